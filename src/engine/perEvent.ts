// The adapter that lets a per-event handler (`register`) ride on the batch delivery every handler shares.
import type { Event } from '../core/event.js';
import type { BatchHandler, EventHandler } from '../core/types.js';

/**
 * @internal Adapts a per-event handler to batches. Every event is one call: an event whose call throws (or
 * rejects) does not keep the rest of its batch from the handler; the failures are rethrown together once
 * the batch is done, so the registration reports them.
 */
export function perEvent<T>(handler: EventHandler<T>): BatchHandler<T> {
  return (batch) => {
    let errors: unknown[] | undefined;
    for (let i = 0; i < batch.length; i++) {
      let r: unknown; // a function typed to return void may return anything, a thenable included
      try {
        r = handler(batch[i]!);
      } catch (e) {
        (errors ??= []).push(e);
        continue;
      }
      if (typeof r === 'object' && r !== null && typeof (r as Promise<void>).then === 'function') {
        return continueAfter(r as Promise<void>, handler, batch, i + 1, errors ?? []);
      }
    }
    if (errors !== undefined) throw combined(errors);
    return undefined;
  };
}

async function continueAfter<T>(
  first: Promise<void>,
  handler: EventHandler<T>,
  batch: readonly Event<T>[],
  from: number,
  errors: unknown[],
): Promise<void> {
  try {
    await first;
  } catch (e) {
    errors.push(e);
  }
  for (let i = from; i < batch.length; i++) {
    try {
      await handler(batch[i]!);
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length > 0) throw combined(errors);
}

function combined(errors: unknown[]): unknown {
  return errors.length === 1 ? errors[0] : new AggregateError(errors, `${errors.length} events of one batch failed in the handler`);
}
