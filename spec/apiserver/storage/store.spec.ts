import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { Store } from '../../../src/apiserver/storage/store.js';
import type { StoredObject } from '../../../src/apiserver/storage/storedObject.js';
import { seededRandom } from '../../../src/testing/index.js';

function obj(name: string, data: string, namespace = 'ns'): StoredObject {
  return { metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: '', creationTimestamp: '', generation: 1 }, data };
}

describe('Store', () => {
  it('should stamp every write with a larger resourceVersion and notify listeners', () => {
    const store = new Store();
    const seen: string[] = [];
    const stop = store.subscribe((e) => seen.push(`${e.type} ${e.object.metadata.name} ${e.rv}`));
    const a = store.put('/cm', obj('a', '1'));
    const b = store.put('/cm', obj('b', '1'));
    const a2 = store.put('/cm', obj('a', '2'));
    store.remove('/cm', structuredClone(b));
    stop();
    store.put('/cm', obj('c', '1'));
    expect([a, b, a2].map((o) => o.metadata.resourceVersion)).toEqual(['1', '2', '3']);
    expect(seen).toEqual(['ADDED a 1', 'ADDED b 2', 'MODIFIED a 3', 'DELETED b 4']);
    expect(store.resourceVersion()).toBe(5);
  });

  it('should freeze stored objects', () => {
    const store = new Store();
    const a = store.put('/cm', obj('a', '1'));
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.metadata)).toBe(true);
  });

  it('should list sorted by namespace then name, optionally one namespace', () => {
    const store = new Store();
    store.put('/cm', obj('b', '1', 'x'));
    store.put('/cm', obj('a', '1', 'y'));
    store.put('/cm', obj('a', '1', 'x'));
    expect(store.list('/cm').map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['x/a', 'x/b', 'y/a']);
    expect(store.list('/cm', 'y').map((o) => o.metadata.name)).toEqual(['a']);
    expect(store.list('/other')).toEqual([]);
  });

  it('should list what sorts after a key, within one namespace or across all, as writes come and go', () => {
    const store = new Store();
    const rand = seededRandom(11);
    const names = ['a', 'b', 'c', 'd', 'e'];
    const namespaces = ['', 'm', 'n', 'n-2', 'o'];
    const live = new Map<string, StoredObject>();
    for (let step = 0; step < 200; step++) {
      const ns = namespaces[Math.floor(rand() * namespaces.length)]!;
      const name = names[Math.floor(rand() * names.length)]!;
      const key = `${ns}/${name}`;
      const o = {
        ...obj(name, String(step), ns),
        metadata: { ...obj(name, '', ns).metadata, namespace: ns === '' ? undefined : ns },
      } as StoredObject;
      if (live.has(key) && rand() < 0.4) {
        store.remove('/cm', structuredClone(live.get(key)!));
        live.delete(key);
      } else {
        live.set(key, store.put('/cm', o));
      }
      // Every namespace (and all), after every possible key and after none: the reference filters and sorts.
      const keyOf = (x: StoredObject): string => `${x.metadata.namespace ?? ''}/${x.metadata.name}`;
      for (const scope of [undefined, ...namespaces]) {
        for (const after of [undefined, '', 'm/', 'm/c', 'n/e', 'n-2/a', 'n/zz', 'z', ...live.keys()]) {
          const want = [...live.keys()]
            .sort()
            .filter((k) => (scope === undefined || k.startsWith(`${scope}/`)) && (after === undefined || k > after))
            .join(' ');
          const got = store.list('/cm', scope, after).map(keyOf).join(' ');
          if (got !== want) expect({ step, scope, after, got }).toEqual({ step, scope, after, got: want });
        }
      }
    }
  });

  it('should rewind to a past snapshot through the history', () => {
    const store = new Store();
    store.put('/cm', obj('a', '1'));
    store.put('/cm', obj('b', '1'));
    const at = store.resourceVersion();
    store.put('/cm', obj('a', '2'));
    store.remove('/cm', structuredClone(store.get('/cm', 'ns', 'b')!));
    store.put('/cm', obj('c', '1'));
    store.put('/other', obj('z', '1'));
    expect(store.listAt('/cm', at).map((o) => `${o.metadata.name}=${o.data}`)).toEqual(['a=1', 'b=1']);
    expect(store.list('/cm').map((o) => `${o.metadata.name}=${o.data}`)).toEqual(['a=2', 'c=1']);
  });

  it('should answer 410 for replays and snapshots from before a compaction', () => {
    const store = new Store();
    store.put('/cm', obj('a', '1'));
    store.put('/cm', obj('a', '2'));
    store.compact();
    store.put('/cm', obj('a', '3'));
    expect(() => store.eventsAfter(1)).toThrow(StatusError);
    expect(() => store.listAt('/cm', 1)).toThrow(StatusError);
    try {
      store.eventsAfter(1);
    } catch (e) {
      expect((e as StatusError).code).toBe(410);
      expect((e as StatusError).reason).toBe('Expired');
    }
    expect(store.eventsAfter(2).map((e) => e.rv)).toEqual([3]);
  });

  it('should expire replays from before the oldest event kept', () => {
    const store = new Store({ historySize: 2 });
    for (const d of ['1', '2', '3', '4']) store.put('/cm', obj('a', d));
    expect(() => store.eventsAfter(1)).toThrow(StatusError);
    expect(store.eventsAfter(2).map((e) => e.rv)).toEqual([3, 4]);
  });
});
