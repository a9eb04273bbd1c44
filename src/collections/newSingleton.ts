// newSingleton: one derived value computed from nothing but what it fetches.
import type { CollectionOptions, HandlerContext, Singleton } from '../core/types.js';
import { DerivedCollection, type ManyTransform } from '../engine/derived/derivedCollection.js';
import { dummyInput, SingletonView, singletonKey } from './singleton.js';

/**
 * Derives a single value. The transform runs once at construction and again whenever something it
 * fetched changes. A string value is keyed by itself, so a changed string is a delete plus an add;
 * other values keep one key and change by update.
 * @example const count = newSingleton((ctx) => fetch(ctx, configMaps).length);
 */
export function newSingleton<O>(transform: (ctx: HandlerContext) => O | undefined | null, opts?: CollectionOptions): Singleton<O> {
  const node = new DerivedCollection<string, O>(
    dummyInput(opts),
    ((ctx: HandlerContext) => transform(ctx)) as unknown as ManyTransform<string, O>,
    { key: singletonKey, ...opts },
    'Singleton',
    false,
    true,
  );
  return new SingletonView<O>(node);
}
