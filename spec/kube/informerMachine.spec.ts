import { describe, it, expect } from '@jest/globals';
import { INFORMER_INITIAL_STATE, informerStep as step, type InformerInput, type InformerState } from '../../src/kube/index.js';

const boom = new Error('boom');

/** One of every input. */
const ALL_INPUTS: readonly InformerInput[] = [
  { kind: 'listed', resourceVersion: '7' },
  { kind: 'listFailed', error: boom },
  { kind: 'watchEvent', resourceVersion: '8' },
  { kind: 'watchEvent', resourceVersion: undefined },
  { kind: 'watchExpired' },
  { kind: 'watchRefused', error: boom },
  { kind: 'watchClosed' },
  { kind: 'watchHealthy' },
  { kind: 'watchFailed', error: boom },
  { kind: 'timerFired' },
  { kind: 'resourceMissing' },
  { kind: 'resourceFound' },
  { kind: 'stop' },
];

const listing = (attempt = 0): InformerState => ({ kind: 'listing', attempt });
const watching = (resourceVersion: string, o: { attempt?: number; sawEvent?: boolean; afterList?: boolean } = {}): InformerState => ({
  kind: 'watching',
  resourceVersion,
  attempt: o.attempt ?? 0,
  sawEvent: o.sawEvent ?? false,
  afterList: o.afterList ?? false,
});
const waiting = (then: 'list' | 'watch', resourceVersion: string, attempt: number): InformerState => ({
  kind: 'waiting',
  then,
  resourceVersion,
  attempt,
});
const STOPPED: InformerState = { kind: 'stopped' };

/** Every kind of state, in a few variants. */
const ALL_STATES: readonly InformerState[] = [
  INFORMER_INITIAL_STATE,
  listing(3),
  watching('5'),
  watching('5', { sawEvent: true }),
  watching('5', { afterList: true, attempt: 2 }),
  waiting('list', '', 1),
  waiting('watch', '5', 4),
  { kind: 'absent' },
  STOPPED,
];

/** Feeds inputs one after the other; returns every intermediate result. */
function run(from: InformerState, inputs: readonly InformerInput[], policy?: { initialMs?: number; maxMs?: number }) {
  const out: Array<ReturnType<typeof step>> = [];
  let s = from;
  for (const i of inputs) {
    const r = step(s, i, policy);
    out.push(r);
    s = r.state;
  }
  return out;
}

describe('informerStep', () => {
  describe('listing', () => {
    it('should start in listing with no failures', () => {
      expect(INFORMER_INITIAL_STATE).toEqual(listing(0));
    });

    it('should watch from the list resourceVersion once the list is applied', () => {
      expect(step(listing(0), { kind: 'listed', resourceVersion: '42' })).toEqual({
        state: watching('42', { afterList: true }),
        effects: [{ kind: 'watch', resourceVersion: '42' }],
      });
    });

    it('should report a failed list and back off before listing again', () => {
      expect(step(listing(0), { kind: 'listFailed', error: boom })).toEqual({
        state: waiting('list', '', 1),
        effects: [
          { kind: 'report', error: boom, during: 'list' },
          { kind: 'wait', ms: 100 },
        ],
      });
      expect(step(waiting('list', '', 1), { kind: 'timerFired' })).toEqual({ state: listing(1), effects: [{ kind: 'list' }] });
    });

    it('should grow the list backoff exponentially up to the 5 s cap', () => {
      const inputs: InformerInput[] = [];
      for (let i = 0; i < 9; i++) inputs.push({ kind: 'listFailed', error: boom }, { kind: 'timerFired' });
      const waits = run(INFORMER_INITIAL_STATE, inputs)
        .flatMap((r) => r.effects)
        .filter((e) => e.kind === 'wait')
        .map((e) => (e as { ms: number }).ms);
      expect(waits).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    });

    it('should follow a custom backoff policy', () => {
      const inputs: InformerInput[] = [];
      for (let i = 0; i < 4; i++) inputs.push({ kind: 'listFailed', error: boom }, { kind: 'timerFired' });
      const waits = run(INFORMER_INITIAL_STATE, inputs, { initialMs: 10, maxMs: 30 })
        .flatMap((r) => r.effects)
        .filter((e) => e.kind === 'wait');
      expect(waits).toEqual([
        { kind: 'wait', ms: 10 },
        { kind: 'wait', ms: 20 },
        { kind: 'wait', ms: 30 },
        { kind: 'wait', ms: 30 },
      ]);
    });

    it('should ignore watch inputs and timers while listing (stale inputs)', () => {
      for (const input of ALL_INPUTS.filter(
        (i) => i.kind !== 'listed' && i.kind !== 'listFailed' && i.kind !== 'resourceMissing' && i.kind !== 'stop',
      )) {
        expect(step(listing(2), input)).toEqual({ state: listing(2), effects: [] });
      }
    });
  });

  describe('watching', () => {
    it('should track the resourceVersion of every event and bookmark, keeping the failure count until the watch is healthy', () => {
      const s = step(watching('5', { attempt: 3, afterList: true }), { kind: 'watchEvent', resourceVersion: '9' });
      expect(s).toEqual({ state: watching('9', { attempt: 3, sawEvent: true, afterList: true }), effects: [] });
      // An event without a resourceVersion keeps the last one.
      expect(step(s.state, { kind: 'watchEvent', resourceVersion: undefined }).state).toEqual(
        watching('9', { attempt: 3, sawEvent: true, afterList: true }),
      );
      // A watch that stayed open long enough forgives the failures before it.
      expect(step(s.state, { kind: 'watchHealthy' })).toEqual({ state: watching('9', { sawEvent: true, afterList: true }), effects: [] });
    });

    it('should keep growing the backoff when every watch delivers an event and then fails at once', () => {
      const inputs: InformerInput[] = [];
      for (let i = 0; i < 5; i++)
        inputs.push({ kind: 'watchEvent', resourceVersion: String(10 + i) }, { kind: 'watchFailed', error: boom }, { kind: 'timerFired' });
      const waits = run(watching('9'), inputs)
        .flatMap((r) => r.effects)
        .filter((e) => e.kind === 'wait')
        .map((e) => (e as { ms: number }).ms);
      expect(waits).toEqual([100, 200, 400, 800, 1600]);
    });

    it('should resume at once from the last resourceVersion when a watch that delivered something ends', () => {
      expect(step(watching('9', { sawEvent: true, afterList: true }), { kind: 'watchClosed' })).toEqual({
        state: watching('9'),
        effects: [{ kind: 'watch', resourceVersion: '9' }],
      });
    });

    it('should back off (without reporting) when a watch ends having delivered nothing', () => {
      expect(step(watching('9'), { kind: 'watchClosed' })).toEqual({
        state: waiting('watch', '9', 1),
        effects: [{ kind: 'wait', ms: 100 }],
      });
      expect(step(waiting('watch', '9', 1), { kind: 'timerFired' })).toEqual({
        state: watching('9', { attempt: 1 }),
        effects: [{ kind: 'watch', resourceVersion: '9' }],
      });
    });

    it('should close, report and back off when a watch fails, then watch again from the same resourceVersion', () => {
      expect(step(watching('9', { sawEvent: true }), { kind: 'watchFailed', error: boom })).toEqual({
        state: waiting('watch', '9', 1),
        effects: [{ kind: 'closeWatch' }, { kind: 'report', error: boom, during: 'watch' }, { kind: 'wait', ms: 100 }],
      });
    });

    it('should grow the watch backoff up to the cap while watches keep failing, and start over after a healthy watch', () => {
      const inputs: InformerInput[] = [];
      for (let i = 0; i < 8; i++) inputs.push({ kind: 'watchFailed', error: boom }, { kind: 'timerFired' });
      inputs.push({ kind: 'watchEvent', resourceVersion: '10' }, { kind: 'watchHealthy' }, { kind: 'watchFailed', error: boom });
      const results = run(watching('9'), inputs);
      const waits = results
        .flatMap((r) => r.effects)
        .filter((e) => e.kind === 'wait')
        .map((e) => (e as { ms: number }).ms);
      expect(waits).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 100]);
      expect(results.at(-1)!.state).toEqual(waiting('watch', '10', 1));
    });

    it('should relist at once when a resumed watch finds its history gone (410)', () => {
      expect(step(watching('9', { attempt: 0 }), { kind: 'watchExpired' })).toEqual({
        state: listing(0),
        effects: [{ kind: 'closeWatch' }, { kind: 'list' }],
      });
      expect(step(watching('9', { sawEvent: true, afterList: true }), { kind: 'watchExpired' })).toEqual({
        state: listing(0),
        effects: [{ kind: 'closeWatch' }, { kind: 'list' }],
      });
    });

    it('should carry the Retry-After of a failure as a floor under the backoff wait', () => {
      expect(step(listing(0), { kind: 'listFailed', error: boom, retryAfterMs: 7000 }).effects).toContainEqual({
        kind: 'wait',
        ms: 100,
        atLeastMs: 7000,
      });
      expect(step(watching('9'), { kind: 'watchFailed', error: boom, retryAfterMs: 3000 }).effects).toContainEqual({
        kind: 'wait',
        ms: 100,
        atLeastMs: 3000,
      });
    });

    it('should report and relist when the server refuses the resourceVersion (400), backing off if it refuses a fresh one too', () => {
      expect(step(watching('9', { attempt: 1 }), { kind: 'watchRefused', error: boom })).toEqual({
        state: listing(1),
        effects: [{ kind: 'closeWatch' }, { kind: 'report', error: boom, during: 'watch' }, { kind: 'list' }],
      });
      expect(step(watching('9', { afterList: true }), { kind: 'watchRefused', error: boom })).toEqual({
        state: waiting('list', '', 1),
        effects: [{ kind: 'closeWatch' }, { kind: 'report', error: boom, during: 'watch' }, { kind: 'wait', ms: 100 }],
      });
    });

    it('should back off instead of spinning when even the watch from a fresh list expires before any event', () => {
      // A server answering 410 to every watch: LIST, WATCH 410, wait, LIST, WATCH 410, longer wait, …
      const inputs: InformerInput[] = [];
      for (let i = 0; i < 8; i++)
        inputs.push({ kind: 'listed', resourceVersion: String(i) }, { kind: 'watchExpired' }, { kind: 'timerFired' });
      const results = run(INFORMER_INITIAL_STATE, inputs);
      const effects = results.flatMap((r) => r.effects);
      expect(effects.filter((e) => e.kind === 'wait').map((e) => (e as { ms: number }).ms)).toEqual([
        100, 200, 400, 800, 1600, 3200, 5000, 5000,
      ]);
      expect(effects.filter((e) => e.kind === 'list')).toHaveLength(8);
      // Once a watch delivers something and stays healthy, the count starts over and a later 410 relists at once.
      const recovered = run(results.at(-1)!.state, [
        { kind: 'listed', resourceVersion: '20' },
        { kind: 'watchEvent', resourceVersion: '21' },
        { kind: 'watchHealthy' },
        { kind: 'watchExpired' },
      ]);
      expect(recovered.at(-1)).toEqual({ state: listing(0), effects: [{ kind: 'closeWatch' }, { kind: 'list' }] });
    });

    it('should ignore list results and timers while watching (stale inputs)', () => {
      const s = watching('5', { sawEvent: true, attempt: 0 });
      for (const input of [
        { kind: 'listed', resourceVersion: '99' },
        { kind: 'listFailed', error: boom },
        { kind: 'timerFired' },
      ] as const) {
        expect(step(s, input)).toEqual({ state: s, effects: [] });
      }
    });
  });

  describe('waiting', () => {
    it('should ignore everything but the timer and stop (stale inputs from a closed watch or an old list)', () => {
      for (const s of [waiting('list', '', 2), waiting('watch', '5', 2)]) {
        for (const input of ALL_INPUTS.filter((i) => i.kind !== 'timerFired' && i.kind !== 'stop')) {
          expect(step(s, input)).toEqual({ state: s, effects: [] });
        }
      }
    });
  });

  describe('absent (a custom resource whose CRD is not installed yet)', () => {
    it('should count as synced and empty on a missing resource, and probe for it every resourcePollMs', () => {
      const [missing, fired, still, again, found] = run(listing(2), [
        { kind: 'resourceMissing' },
        { kind: 'timerFired' },
        { kind: 'resourceMissing' },
        { kind: 'timerFired' },
        { kind: 'resourceFound' },
      ]);
      expect(missing).toEqual({ state: { kind: 'absent' }, effects: [{ kind: 'absent' }, { kind: 'wait', ms: 5_000 }] });
      expect(fired).toEqual({ state: { kind: 'absent' }, effects: [{ kind: 'probe' }] });
      expect(still).toEqual({ state: { kind: 'absent' }, effects: [{ kind: 'wait', ms: 5_000 }] });
      expect(again!.effects).toEqual([{ kind: 'probe' }]);
      // Found: a LIST from scratch, with no failures counted against it.
      expect(found).toEqual({ state: listing(0), effects: [{ kind: 'list' }] });
      expect(step(listing(), { kind: 'resourceMissing' }, undefined, 250).effects).toEqual([{ kind: 'absent' }, { kind: 'wait', ms: 250 }]);
    });

    it('should ignore watch and list inputs while absent', () => {
      const ignored = ALL_INPUTS.filter((i) => !['timerFired', 'resourceMissing', 'resourceFound', 'stop'].includes(i.kind));
      for (const input of ignored) expect(step({ kind: 'absent' }, input)).toEqual({ state: { kind: 'absent' }, effects: [] });
    });
  });

  describe('stop', () => {
    it('should stop from every state, closing the watch and cancelling the timer', () => {
      for (const s of ALL_STATES.filter((x) => x.kind !== 'stopped')) {
        expect(step(s, { kind: 'stop' })).toEqual({ state: STOPPED, effects: [{ kind: 'closeWatch' }, { kind: 'cancelWait' }] });
      }
    });

    it('should do nothing at all once stopped', () => {
      for (const input of ALL_INPUTS) expect(step(STOPPED, input)).toEqual({ state: STOPPED, effects: [] });
    });
  });

  it('should be pure: the same state and input give the same result and the input state is not changed', () => {
    for (const s of ALL_STATES) {
      const before = JSON.stringify(s);
      for (const input of ALL_INPUTS) {
        expect(step(s, input)).toEqual(step(s, input));
        expect(JSON.stringify(s)).toBe(before);
      }
    }
  });

  it('should always ask for exactly one next action (list, watch or wait) unless stopped or unchanged', () => {
    // Whatever happens, the informer never goes quiet: a transition out of a state schedules what comes next.
    for (const s of ALL_STATES) {
      for (const input of ALL_INPUTS) {
        const r = step(s, input);
        if (r.state.kind === 'stopped' || r.effects.length === 0) continue;
        if (r.state.kind === 'watching' && input.kind === 'watchEvent') continue;
        const next = r.effects.filter((e) => e.kind === 'list' || e.kind === 'watch' || e.kind === 'wait' || e.kind === 'probe');
        expect({ from: s, input: input.kind, next: next.length }).toEqual({ from: s, input: input.kind, next: 1 });
      }
    }
  });
});
