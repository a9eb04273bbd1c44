import { describe, it, expect } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import { FeedStore } from '../../src/kube/feedStore.js';

const obj = (name: string, resourceVersion: string): KubernetesObject => ({ metadata: { name, namespace: 'ns', resourceVersion } });

describe('FeedStore', () => {
  it('should keep the cached object for an unchanged version, take a changed one, drop what a LIST lacks, and keep what it is told to', () => {
    const store = new FeedStore();
    const a1 = obj('a', '1');
    const b1 = obj('b', '1');
    const c1 = obj('c', '1');
    store.replace(
      new Map([
        ['ns/a', a1],
        ['ns/b', b1],
        ['ns/c', c1],
      ]),
      new Set(),
    );
    const a1copy = obj('a', '1');
    const b2 = obj('b', '2');
    // c is absent from this LIST, but refused rather than gone (its key is kept).
    store.replace(
      new Map([
        ['ns/a', a1copy],
        ['ns/b', b2],
      ]),
      new Set(['ns/c', 'ns/never-seen']),
    );
    const values = [...store.values()];
    expect(values).toHaveLength(3);
    expect(values[0]).toBe(a1);
    expect(values[1]).toBe(b2);
    expect(values[2]).toBe(c1);
    store.replace(new Map(), new Set());
    expect([...store.values()]).toEqual([]);
  });

  it('should apply watch events in order', () => {
    const store = new FeedStore();
    const a2 = obj('a', '2');
    store.apply([
      { type: 'ADDED', object: obj('a', '1') },
      { type: 'ADDED', object: obj('b', '1') },
      { type: 'MODIFIED', object: a2 },
      { type: 'DELETED', object: obj('b', '3') },
    ]);
    expect([...store.values()]).toEqual([a2]);
  });
});
