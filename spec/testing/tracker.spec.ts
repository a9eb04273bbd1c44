import { describe, it, expect } from '@jest/globals';
import { batch, newStaticCollection, newStatic } from '../../src/index.js';
import { add, del, EventTracker, trackEvents, TrackerMismatchError, update } from '../../src/testing/index.js';

interface Pod {
  metadata: { name: string; namespace: string };
  ip?: string;
}
const pod = (name: string, ip?: string): Pod => ({ metadata: { name, namespace: 'ns' }, ...(ip ? { ip } : {}) });

describe('EventTracker', () => {
  it('should record events as type/key strings and hand them out once', () => {
    const t = new EventTracker<Pod>();
    t.handler(add(pod('a')));
    t.handler(update(pod('a'), pod('a', '1')));
    t.handler(del(pod('a', '1')));
    expect(t.take()).toEqual(['add/ns/a', 'update/ns/a', 'delete/ns/a']);
    expect(t.take()).toEqual([]);
    expect(t.all).toHaveLength(3);
  });

  it('should pass expectOrdered only for exactly those events in that order', () => {
    const t = new EventTracker<Pod>();
    t.handler(add(pod('a')));
    t.handler(add(pod('b')));
    t.expectOrdered('add/ns/a', 'add/ns/b');

    t.handler(add(pod('a')));
    t.handler(add(pod('b')));
    expect(() => t.expectOrdered('add/ns/b', 'add/ns/a')).toThrow(TrackerMismatchError);

    t.handler(add(pod('a')));
    expect(() => t.expectOrdered('add/ns/a', 'add/ns/b')).toThrow('expected events [add/ns/a, add/ns/b] in order, got [add/ns/a]');

    t.handler(add(pod('a')));
    t.handler(add(pod('c')));
    // An extra event fails too: nothing may arrive beyond what is expected.
    expect(() => t.expectOrdered('add/ns/a')).toThrow(TrackerMismatchError);
  });

  it('should pass expectUnordered for exactly those events in any order, and fail on extras', () => {
    const t = new EventTracker<Pod>();
    t.handler(add(pod('b')));
    t.handler(add(pod('a')));
    t.expectUnordered('add/ns/a', 'add/ns/b');
    t.handler(add(pod('a')));
    t.handler(add(pod('a')));
    expect(() => t.expectUnordered('add/ns/a')).toThrow('in any order, got [add/ns/a, add/ns/a]');
    t.handler(add(pod('a')));
    expect(() => t.expectUnordered('add/ns/a', 'add/ns/a')).toThrow(TrackerMismatchError);
  });

  it('should pass expectEmpty only when nothing was recorded since the last check', () => {
    const t = new EventTracker<Pod>();
    t.expectEmpty();
    t.handler(add(pod('a')));
    expect(() => t.expectEmpty()).toThrow(TrackerMismatchError);
    t.expectEmpty();
  });

  it('should record each batch of its batch handler as one comma-joined string', () => {
    const t = new EventTracker<Pod>();
    t.batchHandler([add(pod('a')), add(pod('b'))]);
    t.batchHandler([del(pod('a'))]);
    expect(t.takeBatches()).toEqual(['add/ns/a,add/ns/b', 'delete/ns/a']);
    expect(t.take()).toEqual(['add/ns/a', 'add/ns/b', 'delete/ns/a']);
    expect(t.takeBatches()).toEqual([]);
  });

  it('should use a given key function', () => {
    const t = new EventTracker<{ id: string }>((o) => `id:${o.id}`);
    t.handler(add({ id: 'x' }));
    t.expectOrdered('add/id:x');
  });
});

describe('trackEvents', () => {
  it('should register with replay and follow live events', () => {
    const pods = newStaticCollection<Pod>([pod('a')]);
    const t = trackEvents(pods);
    t.expectOrdered('add/ns/a');
    pods.updateObject(pod('b'));
    pods.deleteObject('ns/a');
    t.expectOrdered('add/ns/b', 'delete/ns/a');
    expect(t.registration.hasSynced()).toBe(true);
  });

  it('should record batches when asked, and skip the replay when asked', () => {
    const pods = newStaticCollection<Pod>([pod('a'), pod('b')]);
    const batches = trackEvents(pods, { batches: true });
    expect(batches.takeBatches().map((b) => b.split(',').sort().join(','))).toEqual(['add/ns/a,add/ns/b']);
    const live = trackEvents(pods, { runExistingState: false });
    live.expectEmpty();
    batch(() => {
      pods.deleteObject('ns/a');
      pods.deleteObject('ns/b');
    });
    expect(live.takeBatches().map((b) => b.split(',').sort().join(','))).toEqual(['delete/ns/a,delete/ns/b']);
    live.take();
    batches.take();
  });

  it('should stop recording once its registration is unregistered', () => {
    const pods = newStaticCollection<Pod>([]);
    const t = trackEvents(pods);
    t.registration.unregister();
    pods.updateObject(pod('a'));
    t.expectEmpty();
  });

  it('should key events as the collection does, custom key option and singletons included', () => {
    const rows = newStaticCollection<{ id: string }>([{ id: 'x' }], { key: (r: { id: string }) => r.id });
    trackEvents(rows).expectOrdered('add/x');
    const count = newStatic<number>(3);
    const t = trackEvents(count.asCollection());
    t.expectOrdered('add/static');
    count.set(4);
    t.expectOrdered('update/static');
    expect(trackEvents(rows, { key: (r) => `row-${r.id}` }).take()).toEqual(['add/row-x']);
  });
});

describe('TrackerMismatchError', () => {
  it('should be an Error with its own name', () => {
    const t = new EventTracker<Pod>();
    t.handler(add(pod('a')));
    let caught: unknown;
    try {
      t.expectEmpty();
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).name).toBe('TrackerMismatchError');
  });
});
