// krt's conformance suite (reference §10), step by step, for any rig: the steps every collection kind must
// pass. Step 11 (handlers registering during a burst of creations) depends on how a rig's changes arrive,
// so each spec brings its own; the rest is shared.
import { expect } from '@jest/globals';
import type { Collection } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { RIG_METADATA, type Named, type Rig } from './rig.js';

async function settle(rig: Rig<Named>): Promise<void> {
  if (rig.settle !== undefined) await rig.settle();
}

function track(c: Collection<Named>) {
  return trackEvents(c);
}

/**
 * The start of both suites: the configured metadata; a handler registered before anything happens; the
 * collection and the registration sync; then one object, `a/b`, which the handler sees. Returns the handler.
 */
async function firstObject(rig: Rig<Named>): Promise<ReturnType<typeof track>> {
  const c = rig.collection;
  expect(c.metadata()).toEqual(RIG_METADATA);
  const early = track(c);
  expect(await c.waitUntilSynced()).toBe(true);
  expect(await early.registration.waitUntilSynced()).toBe(true);
  await rig.createObject('a/b');
  await settle(rig);
  early.expectOrdered('add/a/b');
  expect(c.list()).toHaveLength(1);
  expect(c.getKey('a/b')).toBeDefined();
  return early;
}

/**
 * Step 11: creates a/0 … a/19 while calling `registerRace` at moments of its choosing (before, during and
 * from inside deliveries), and resolves once all twenty are visible. The suite then checks that every
 * handler registered this way received every add exactly once.
 */
export type RaceStep = (rig: Rig<Named>, registerRace: () => void) => Promise<void>;

/** krt's runConformance, step by step (reference §10), in the synchronous model. */
export async function runConformance(rig: Rig<Named>, race: RaceStep): Promise<void> {
  const c = rig.collection;

  // 1. A new collection is empty and carries the configured metadata.
  expect(c.list()).toEqual([]);
  // 2, 3. An early handler, sync, and one object.
  const early = await firstObject(rig);

  // 4, 5. Late handlers get the replay.
  const late = track(c);
  expect(await late.registration.waitUntilSynced()).toBe(true);
  late.expectOrdered('add/a/b');
  const remove = track(c);
  expect(await remove.registration.waitUntilSynced()).toBe(true);
  remove.expectOrdered('add/a/b');

  // 6. A handler that never finishes: its registration never syncs, and nobody else waits for it.
  let blockedCalls = 0;
  const blocked = c.register(() => {
    blockedCalls++;
    return new Promise<void>(() => {});
  });
  expect(blocked.hasSynced()).toBe(false);

  // 7. A second object reaches every other handler.
  await rig.createObject('a/c');
  await settle(rig);
  early.expectOrdered('add/a/c');
  late.expectOrdered('add/a/c');
  remove.expectOrdered('add/a/c');
  expect(c.list()).toHaveLength(2);
  expect(c.getKey('a/b')).toBeDefined();
  expect(c.getKey('a/c')).toBeDefined();

  // 8, 9. Unregistered handlers get nothing more; a further event still flows past the blocked handler.
  remove.registration.unregister();
  await rig.createObject('a/d');
  await settle(rig);
  early.expectOrdered('add/a/d');
  late.expectOrdered('add/a/d');
  expect(c.list()).toHaveLength(3);

  // 10. A handler can still be added while another one is blocked.
  const end = track(c);
  expect(await end.registration.waitUntilSynced()).toBe(true);
  end.expectUnordered('add/a/b', 'add/a/c', 'add/a/d');

  // 11. Handlers registered during a burst of creations (see RaceStep), and one after it.
  const races: Array<ReturnType<typeof track>> = [];
  await race(rig, () => {
    races.push(track(c));
  });
  races.push(track(c));
  const all = ['add/a/b', 'add/a/c', 'add/a/d'];
  for (let i = 0; i < 20; i++) all.push(`add/a/${i}`);
  for (const r of races) {
    r.expectUnordered(...all);
    expect(r.registration.hasSynced()).toBe(true);
  }
  early.expectUnordered(...all.slice(3));
  expect(c.list()).toHaveLength(23);

  // 12. The unregistered handler saw nothing after unregistering; the blocked one saw its first batch only.
  remove.expectEmpty();
  expect(blocked.hasSynced()).toBe(false);
  expect(blockedCalls).toBe(1);
}

/** krt's runReplaceConformance: a key change is a delete of the old key and an add of the new one. */
export async function runReplaceConformance(rig: Rig<Named>): Promise<void> {
  const c = rig.collection;
  const h = await firstObject(rig);
  await rig.replaceKey('a/b', 'a/c');
  await settle(rig);
  h.expectUnordered('delete/a/b', 'add/a/c');
  expect(c.list()).toHaveLength(1);
  expect(c.getKey('a/b')).toBeUndefined();
  expect(c.getKey('a/c')).toBeDefined();
}
