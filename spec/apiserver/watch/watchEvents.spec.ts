import { describe, expect, it } from '@jest/globals';
import { BUILTIN_KINDS } from '../../../src/apiserver/kinds/builtinKinds.js';
import { parseFieldSelector } from '../../../src/apiserver/selectors/fieldSelector.js';
import { parseLabelSelector } from '../../../src/apiserver/selectors/labelSelector.js';
import type { StoreEvent } from '../../../src/apiserver/storage/eventHistory.js';
import type { StoredObject } from '../../../src/apiserver/storage/storedObject.js';
import { bookmarkEvent, watchEventFor, type WatchFilter } from '../../../src/apiserver/watch/watchEvents.js';

const cms = BUILTIN_KINDS.find((rt) => rt.kind === 'ConfigMap')!;
const filter: WatchFilter = { rt: cms, namespace: 'd', opts: { label: parseLabelSelector('app=web'), field: parseFieldSelector('') } };

function cm(rv: number, labels: Record<string, string>, namespace = 'd'): StoredObject {
  return { metadata: { name: 'c', namespace, labels, uid: 'u', resourceVersion: String(rv), creationTimestamp: '', generation: 1 } };
}

function event(type: StoreEvent['type'], rv: number, object: StoredObject, previous?: StoredObject): StoreEvent {
  return { type, rv, storageKey: cms.storageKey, object, previous };
}

describe('watchEventFor', () => {
  it('should pass matching adds, updates and deletes through', () => {
    expect(watchEventFor(filter, event('ADDED', 1, cm(1, { app: 'web' })))?.type).toBe('ADDED');
    expect(watchEventFor(filter, event('MODIFIED', 2, cm(2, { app: 'web' }), cm(1, { app: 'web' })))?.type).toBe('MODIFIED');
    expect(watchEventFor(filter, event('DELETED', 3, cm(3, { app: 'web' }), cm(2, { app: 'web' })))?.type).toBe('DELETED');
  });

  it('should turn selector transitions into ADDED and DELETED', () => {
    const start = watchEventFor(filter, event('MODIFIED', 2, cm(2, { app: 'web' }), cm(1, { app: 'db' })));
    expect(start?.type).toBe('ADDED');
    const stop = watchEventFor(filter, event('MODIFIED', 3, cm(3, { app: 'db' }), cm(2, { app: 'web' })));
    expect(stop?.type).toBe('DELETED');
    expect(stop?.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { app: 'web' }, resourceVersion: '3' } });
    expect(watchEventFor(filter, event('MODIFIED', 4, cm(4, { app: 'db' }), cm(3, { app: 'db' })))).toBeUndefined();
  });

  it('should skip other namespaces and other resources', () => {
    expect(watchEventFor(filter, event('ADDED', 1, cm(1, { app: 'web' }, 'other')))).toBeUndefined();
    expect(watchEventFor(filter, { ...event('ADDED', 1, cm(1, { app: 'web' })), storageKey: '/secrets' })).toBeUndefined();
  });
});

describe('bookmarkEvent', () => {
  it('should carry only kind, apiVersion and resourceVersion', () => {
    expect(bookmarkEvent(cms, 42)).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '42' } },
    });
  });
});
