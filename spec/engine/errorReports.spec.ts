import { describe, it, expect, afterEach } from '@jest/globals';
import { TransformError } from '../../src/core/errors.js';
import { CollectionCounters } from '../../src/engine/counters.js';
import { ErrorReports } from '../../src/engine/errorReports.js';
import { batch } from '../../src/engine/transaction.js';
import { captureLog } from '../helpers/fixtures.js';

const failure = (key: string, message = 'boom'): TransformError => new TransformError('Things', key, new Error(message));

describe('ErrorReports', () => {
  let log: ReturnType<typeof captureLog> | undefined;
  afterEach(() => log?.restore());

  it('should count each error and emit it on errors$, inside a transaction only once it has committed', () => {
    log = captureLog();
    const counters = new CollectionCounters();
    const reports = new ErrorReports(counters);
    const seen: string[] = [];
    reports.errors$.subscribe((e) => seen.push(e.key ?? ''));
    reports.report(failure('a'));
    expect(seen).toEqual(['a']);
    batch(() => {
      reports.report(failure('b'));
      expect(seen).toEqual(['a']);
      expect(counters.errors).toBe(2);
    });
    expect(seen).toEqual(['a', 'b']);
  });

  it('should keep the last ten errors, oldest first', () => {
    log = captureLog();
    const reports = new ErrorReports(new CollectionCounters());
    expect(reports.last()).toEqual([]);
    for (let i = 0; i < 12; i++) reports.report(failure(`k${i}`));
    expect(reports.last().map((e) => e.key)).toEqual(['k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'k10', 'k11']);
  });

  it('should log an error whose message repeats once, and still count and emit every occurrence', () => {
    log = captureLog();
    const counters = new CollectionCounters();
    const reports = new ErrorReports(counters);
    const seen: TransformError[] = [];
    reports.errors$.subscribe((e) => seen.push(e));
    for (let i = 0; i < 3; i++) reports.report(failure('x', 'errorReports spec: repeated'));
    expect(log.lines.filter((l) => l.includes('errorReports spec: repeated'))).toHaveLength(1);
    expect(seen).toHaveLength(3);
    expect(counters.errors).toBe(3);
  });
});
