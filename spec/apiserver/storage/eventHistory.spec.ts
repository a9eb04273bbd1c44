import { describe, expect, it } from '@jest/globals';
import { EventHistory, type StoreEvent } from '../../../src/apiserver/storage/eventHistory.js';

function event(rv: number): StoreEvent {
  return {
    type: 'ADDED',
    rv,
    storageKey: '/pods',
    object: { metadata: { name: `p${rv}`, uid: 'u', resourceVersion: String(rv), creationTimestamp: '', generation: 1 } },
  };
}

describe('EventHistory', () => {
  it('should return events after a resourceVersion in order', () => {
    const h = new EventHistory(10);
    for (const rv of [3, 5, 8, 9]) h.push(event(rv));
    expect(h.after(0).map((e) => e.rv)).toEqual([3, 5, 8, 9]);
    expect(h.after(5).map((e) => e.rv)).toEqual([8, 9]);
    expect(h.after(6).map((e) => e.rv)).toEqual([8, 9]);
    expect(h.after(9)).toEqual([]);
    expect(h.oldestReplayable()).toBe(0);
  });

  it('should evict the oldest events when full and raise the replay floor', () => {
    const h = new EventHistory(3);
    for (let rv = 1; rv <= 5; rv++) h.push(event(rv));
    expect(h.after(0).map((e) => e.rv)).toEqual([3, 4, 5]);
    // rv=2 was evicted: a replay must start at 2 or later.
    expect(h.oldestReplayable()).toBe(2);
    expect(h.after(3).map((e) => e.rv)).toEqual([4, 5]);
  });

  it('should forget everything on compact', () => {
    const h = new EventHistory(5);
    for (let rv = 1; rv <= 4; rv++) h.push(event(rv));
    h.compact(4);
    expect(h.after(0)).toEqual([]);
    expect(h.oldestReplayable()).toBe(4);
    h.push(event(6));
    expect(h.after(4).map((e) => e.rv)).toEqual([6]);
  });

  it('should reject a bad capacity', () => {
    expect(() => new EventHistory(0)).toThrow(RangeError);
  });
});
