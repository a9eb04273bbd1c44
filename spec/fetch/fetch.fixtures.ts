// Fixtures shared by the fetch specs: plain objects keyed `ns/name` (or `name`), and a one-input reader.
import { newSingleton, fetch, type Collection, type FetchFilter } from '../../src/index.js';

export interface Obj {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: { selector?: Record<string, string> };
  v?: number;
}
export const obj = (key: string, labels?: Record<string, string>, selector?: Record<string, string>, v?: number): Obj => {
  const [a, b] = key.split('/') as [string, string?];
  const metadata = b === undefined ? { name: a! } : { namespace: a!, name: b };
  return {
    metadata: { ...metadata, ...(labels ? { labels } : {}) },
    ...(selector ? { spec: { selector } } : {}),
    ...(v !== undefined ? { v } : {}),
  };
};
export const keyOfObj = (o: Obj): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

/**
 * A one-input reader of `src` through `filters`: its value is the sorted keys it fetched, `runs` counts
 * its transform runs (to show which changes recompute it).
 */
export function reader(src: Collection<Obj>, ...filters: FetchFilter<Obj>[]) {
  let runs = 0;
  const s = newSingleton((ctx) => {
    runs++;
    return {
      keys: fetch(ctx, src, ...filters)
        .map(keyOfObj)
        .sort(),
    };
  });
  return { keys: () => s.get()!.keys, runs: () => runs, singleton: s };
}
