// newSingleton: one derived value computed from nothing but what it fetches.
import type { CollectionOptions, HandlerContext, Singleton } from '../core/types.js';
import { DerivedCollection, type ManyTransform } from '../engine/derived/derivedCollection.js';
import { requireTransform } from '../engine/internalCollection.js';
import { isThenable } from '../engine/thenable.js';
import { UsageError } from '../core/errors.js';
import { dummyInput, SingletonView, singletonKey } from './singleton.js';

/**
 * Derives a single value. The transform runs once at construction and again whenever something it
 * fetched changes. A string value is keyed by itself, so a changed string is a delete plus an add;
 * other values keep one key and change by update.
 * @example const count = newSingleton((ctx) => fetch(ctx, configMaps).length);
 */
export function newSingleton<O>(transform: (ctx: HandlerContext) => O | undefined | null, opts?: CollectionOptions<O>): Singleton<O> {
  requireTransform(transform, 'newSingleton');
  // A singleton keys any value, a Promise too: refused here, or it would be stored as the value.
  const run = (ctx: HandlerContext): O | undefined | null => {
    const v = transform(ctx);
    if (isThenable(v)) throw new UsageError('newSingleton: the transform returned a Promise; transforms must return their result');
    return v;
  };
  const node = new DerivedCollection<string, O>(
    dummyInput(opts),
    run as unknown as ManyTransform<string, O>,
    { key: singletonKey, ...opts },
    'Singleton',
    false,
    true,
  );
  return new SingletonView<O>(node);
}
