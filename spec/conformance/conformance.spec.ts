import { describe, it, expect } from '@jest/globals';
import { batch, keyOf, latest, type Collection, type Event } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { RIG_FACTORIES, RIG_METADATA, type Named, type Rig, type RigFactory } from './rig.js';

async function settle(rig: Rig<Named>): Promise<void> {
  if (rig.settle !== undefined) await rig.settle();
}

async function withRig(factory: RigFactory, body: (rig: Rig<Named>) => Promise<void>): Promise<void> {
  const rig = await factory.make();
  try {
    await body(rig);
  } finally {
    await rig.dispose?.();
  }
}

function track(c: Collection<Named>) {
  return trackEvents(c);
}

/** krt's runConformance, step by step (reference §10), in the synchronous model. */
async function runConformance(rig: Rig<Named>): Promise<void> {
  const c = rig.collection;

  // 1. A new collection is empty and carries the configured metadata.
  expect(c.list()).toEqual([]);
  expect(c.metadata()).toEqual(RIG_METADATA);

  // 2. An early handler; the collection and the registration sync.
  const early = track(c);
  expect(await c.waitUntilSynced()).toBe(true);
  expect(await early.registration.waitUntilSynced()).toBe(true);

  // 3. One object.
  rig.createObject('a/b');
  await settle(rig);
  early.expectOrdered('add/a/b');
  expect(c.list()).toHaveLength(1);
  expect(c.getKey('a/b')).toBeDefined();

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
  rig.createObject('a/c');
  await settle(rig);
  early.expectOrdered('add/a/c');
  late.expectOrdered('add/a/c');
  remove.expectOrdered('add/a/c');
  expect(c.list()).toHaveLength(2);
  expect(c.getKey('a/b')).toBeDefined();
  expect(c.getKey('a/c')).toBeDefined();

  // 8, 9. Unregistered handlers get nothing more; a further event still flows past the blocked handler.
  remove.registration.unregister();
  rig.createObject('a/d');
  await settle(rig);
  early.expectOrdered('add/a/d');
  late.expectOrdered('add/a/d');
  expect(c.list()).toHaveLength(3);

  // 10. A handler can still be added while another one is blocked.
  const end = track(c);
  expect(await end.registration.waitUntilSynced()).toBe(true);
  end.expectUnordered('add/a/b', 'add/a/c', 'add/a/d');

  // 11. "Race": handlers registered in the middle of a burst of creations made inside a batch, from a
  // handler during delivery, and from microtasks, each get every add exactly once.
  const races: Array<ReturnType<typeof track>> = [];
  const registerRace = (): void => {
    races.push(track(c));
  };
  registerRace(); // before the burst
  batch(() => {
    for (let i = 0; i < 5; i++) {
      rig.createObject(`a/${i}`);
      if (i === 2) registerRace(); // inside an open batch: replay of the committed state, then the batch
    }
  });
  await settle(rig);
  // A driver handler creates a/5..a/9, each one when it sees the previous one, and registers a race
  // handler in the middle (from inside a delivery). Its replay already holds a/4, so the chain starts there.
  let next = 5;
  const driver = c.register((e: Event<Named>) => {
    if (e.type !== 'add' || next > 9 || keyOf(latest(e)) !== `a/${next - 1}`) return;
    const k = `a/${next}`;
    next++;
    rig.createObject(k);
    if (k === 'a/7') registerRace();
  });
  await settle(rig);
  for (let i = 0; i < 20 && next <= 9; i++) await settle(rig).then(() => Promise.resolve());
  expect(next).toBe(10);
  driver.unregister();
  // a/10..a/19 from microtasks, with a registration from a microtask in the middle.
  const tasks: Promise<void>[] = [];
  for (let i = 10; i < 20; i++) {
    tasks.push(
      Promise.resolve().then(() => {
        rig.createObject(`a/${i}`);
        if (i === 14) registerRace();
      }),
    );
  }
  await Promise.all(tasks);
  await settle(rig);
  registerRace(); // after the burst: the replay alone
  const all = ['add/a/b', 'add/a/c', 'add/a/d'];
  for (let i = 0; i < 20; i++) all.push(`add/a/${i}`);
  expect(races).toHaveLength(5);
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
async function runReplaceConformance(rig: Rig<Named>): Promise<void> {
  const c = rig.collection;
  expect(c.metadata()).toEqual(RIG_METADATA);
  const h = track(c);
  expect(await c.waitUntilSynced()).toBe(true);
  expect(await h.registration.waitUntilSynced()).toBe(true);

  rig.createObject('a/b');
  await settle(rig);
  h.expectOrdered('add/a/b');
  expect(c.list()).toHaveLength(1);
  expect(c.getKey('a/b')).toBeDefined();

  rig.replaceKey('a/b', 'a/c');
  await settle(rig);
  h.expectUnordered('delete/a/b', 'add/a/c');
  expect(c.list()).toHaveLength(1);
  expect(c.getKey('a/b')).toBeUndefined();
  expect(c.getKey('a/c')).toBeDefined();
}

describe('conformance', () => {
  for (const factory of RIG_FACTORIES) {
    describe(factory.kind, () => {
      if (factory.replaceOnly !== true) {
        it('should pass the conformance suite', async () => {
          await withRig(factory, runConformance);
        });
      }
      it('should pass the replace sub-suite', async () => {
        await withRig(factory, runReplaceConformance);
      });
    });
  }
});
