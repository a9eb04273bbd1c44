import { describe, it, expect } from '@jest/globals';
import { batch, keyOf, latest, type Event } from '../../src/index.js';
import { RIG_FACTORIES, type Named, type Rig, type RigFactory } from './rig.js';
import { runConformance, runReplaceConformance, type RaceStep } from './steps.js';

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

/**
 * Step 11 for rigs changed in process: handlers registered before a burst of creations made inside a batch,
 * inside the open batch, from a handler during delivery, and from a microtask. Such a rig's `createObject`
 * returns nothing to wait for (hence `void`).
 */
const raceInProcess: RaceStep = async (rig, register) => {
  const c = rig.collection;
  let registered = 0;
  const registerRace = (): void => {
    registered++;
    register();
  };
  registerRace(); // before the burst
  batch(() => {
    for (let i = 0; i < 5; i++) {
      void rig.createObject(`a/${i}`);
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
    void rig.createObject(k);
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
        void rig.createObject(`a/${i}`);
        if (i === 14) registerRace();
      }),
    );
  }
  await Promise.all(tasks);
  await settle(rig);
  expect(registered).toBe(4);
};

describe('conformance', () => {
  for (const factory of RIG_FACTORIES) {
    describe(factory.kind, () => {
      if (factory.replaceOnly !== true) {
        it('should pass the conformance suite', async () => {
          await withRig(factory, (rig) => runConformance(rig, raceInProcess));
        });
      }
      it('should pass the replace sub-suite', async () => {
        await withRig(factory, runReplaceConformance);
      });
    });
  }
});
