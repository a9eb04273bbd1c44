// What a collection reports on `errors$`: counted, logged once per message, kept for the debug server, and
// emitted only once the transaction that raised it has committed.
import { Subject, type Observable } from 'rxjs';
import type { TransformError } from '../core/errors.js';
import { logErrorOnce } from '../core/logger.js';
import { afterCommitted } from './transaction.js';
import type { CollectionCounters } from './counters.js';

/** How many of a collection's last errors the debug server can show. */
const RECENT_ERRORS = 10;

/** @internal A collection's error stream and the few last errors it reported. */
export class ErrorReports {
  private readonly subject = new Subject<TransformError>();
  readonly errors$: Observable<TransformError> = this.subject.asObservable();
  /** Made on the first error: most collections never report one. */
  private recent: TransformError[] | undefined;

  constructor(private readonly counters: CollectionCounters) {}

  report(err: TransformError): void {
    this.counters.errors++;
    const recent = (this.recent ??= []);
    if (recent.length === RECENT_ERRORS) recent.shift();
    recent.push(err);
    logErrorOnce({ collection: err.collection, key: err.key, err: err.error }, err.message);
    afterCommitted(() => this.subject.next(err));
  }

  /** The last errors reported, oldest first. */
  last(): readonly TransformError[] {
    return this.recent ?? [];
  }
}
