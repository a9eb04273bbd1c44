import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import {
  newStaticCollection,
  newStatic,
  newCollection,
  newSingleton,
  fetch,
  batch,
  type Event,
  type TransformError,
} from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { captureLog } from '../helpers/fixtures.js';
import { localPod, staticKey, type LocalPod } from './newCollection.fixtures.js';

describe('newCollection outputs', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  describe('discardResult (TestCollectionDiscardResult)', () => {
    it('should keep the first non-empty result as a default', async () => {
      const s = newSingleton((ctx) => {
        ctx.discardResult();
        return { v: 'initial' };
      });
      expect(await s.waitUntilSynced()).toBe(true);
      expect(s.get()).toEqual({ v: 'initial' });
    });

    it('should have no value when the first run discards an empty result', async () => {
      const s = newSingleton<{ v: string }>((ctx) => {
        ctx.discardResult();
        return undefined;
      });
      expect(await s.waitUntilSynced()).toBe(true);
      expect(s.get()).toBeUndefined();
    });

    it('should keep the last good value while discarding, and take the next good one', () => {
      const state = newStatic<string>('initial');
      const s = newSingleton((ctx) => {
        const v = fetch(ctx, state.asCollection())[0];
        if (v === 'skip') ctx.discardResult();
        return { v };
      });
      const t = trackEvents(s.asCollection(), { key: staticKey });
      expect(s.get()).toEqual({ v: 'initial' });
      state.set('skip');
      expect(s.get()).toEqual({ v: 'initial' });
      state.set('final');
      expect(s.get()).toEqual({ v: 'final' });
      t.expectOrdered('add/static', 'update/static');
    });

    it("should keep an input's last outputs in a keyed collection too", () => {
      const src = newStaticCollection<{ metadata: { name: string }; v: number }>([{ metadata: { name: 'a' }, v: 1 }]);
      const out = newCollection(src, (ctx, i) => {
        if (i.v < 0) ctx.discardResult();
        return { metadata: { name: i.metadata.name }, v: i.v };
      });
      src.updateObject({ metadata: { name: 'a' }, v: -1 });
      expect(out.getKey('a')).toEqual({ metadata: { name: 'a' }, v: 1 });
      src.updateObject({ metadata: { name: 'a' }, v: 2 });
      expect(out.getKey('a')).toEqual({ metadata: { name: 'a' }, v: 2 });
    });
  });

  it('should emit an update when an output key passes from one input to another in one transaction', () => {
    const errors: TransformError[] = [];
    const src = newStaticCollection<{ metadata: { name: string }; owns: boolean; v: number }>([
      { metadata: { name: 'a' }, owns: true, v: 1 },
      { metadata: { name: 'b' }, owns: false, v: 2 },
    ]);
    const out = newCollection(src, (_ctx, i) => (i.owns ? { metadata: { name: 'shared' }, v: i.v } : undefined));
    out.errors$.subscribe((e) => errors.push(e));
    const seen: Array<readonly Event<{ v: number }>[]> = [];
    out.registerBatch((b) => void seen.push(b), false);
    for (const order of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const owner = out.getKey('shared')!.v === 1 ? 'a' : 'b';
      const other = owner === 'a' ? 'b' : 'a';
      batch(() => {
        for (const k of order) {
          const v = k === 'a' ? 1 : 2;
          src.updateObject({ metadata: { name: k }, owns: k === other, v });
        }
      });
    }
    expect(seen.map((b) => b.map((e) => `${e.type}:${e.old?.v}>${e.new?.v}`))).toEqual([['update:1>2'], ['update:2>1']]);
    // No conflict remained once the transaction was over: nothing to report.
    expect(errors).toEqual([]);
  });

  it('should keep the visible output when a rerun produces an equal one, and neither freeze nor keep the new one', () => {
    const pods = newStaticCollection<LocalPod>([localPod('a', '1.1.1.1')]);
    const made: Array<{ metadata: { name: string }; ip?: string }> = [];
    const ips = newCollection(pods, (_ctx, p) => {
      const o = { metadata: { name: p.metadata.name, namespace: p.metadata.namespace }, ip: p.ip };
      made.push(o);
      return o;
    });
    const seen: Event<{ ip?: string }>[] = [];
    ips.register((e) => void seen.push(e));
    const first = ips.getKey('ns/a')!;
    expect(first).toBe(made[0]);
    pods.updateObject(localPod('a', '1.1.1.1', { tier: 'web' }));
    expect(made).toHaveLength(2);
    expect(ips.getKey('ns/a')).toBe(first);
    expect(Object.isFrozen(made[1])).toBe(false);
    pods.updateObject(localPod('a', '1.1.1.2'));
    expect(ips.getKey('ns/a')).toBe(made[2]);
    expect(Object.isFrozen(made[2])).toBe(true);
    expect(seen.map((e) => e.type)).toEqual(['add', 'update']);
    expect(seen[1]!.old).toBe(first);
  });

  it('should freeze an output that becomes visible when the input holding its key lets it go', () => {
    const pods = newStaticCollection<LocalPod>([localPod('a'), localPod('b')]);
    const shared = newCollection(pods, (_ctx, p) => ({ metadata: { name: 'shared', namespace: 'ns' }, from: p.metadata.name }));
    expect(shared.getKey('ns/shared')?.from).toBe('a');
    pods.deleteObject('ns/a');
    const heir = shared.getKey('ns/shared')!;
    expect(heir.from).toBe('b');
    expect(Object.isFrozen(heir)).toBe(true);
    expect(log.lines.some((l) => l.includes('already produced by input'))).toBe(true);
  });

  it('should hand out the new output, frozen, when its equals throws, and report the throw once', () => {
    const pods = newStaticCollection<LocalPod>([localPod('a', '1')]);
    let calls = 0;
    const ips = newCollection(pods, (_ctx, p) => ({ metadata: p.metadata, ip: p.ip }), {
      name: 'ThrowingEquals',
      // Throws the first time only: strict mode compares every emitted update again.
      equals: (x: { ip?: string }, y: { ip?: string }) => {
        if (calls++ === 0) throw new Error('cannot compare');
        return x.ip === y.ip;
      },
    });
    const errors: TransformError[] = [];
    ips.errors$.subscribe((e) => errors.push(e));
    pods.updateObject(localPod('a', '2'));
    const o = ips.getKey('ns/a')!;
    expect(o.ip).toBe('2');
    expect(Object.isFrozen(o)).toBe(true);
    expect(errors.map((e) => e.message)).toEqual(['collection "ThrowingEquals": equals threw comparing output "ns/a": cannot compare']);
  });

  it('should freeze its outputs', () => {
    const src = newStaticCollection<string>(['a']);
    const c = newCollection(src, (_ctx, s) => ({ metadata: { name: s }, tags: [s] }));
    const o = c.getKey('a')!;
    expect(Object.isFrozen(o)).toBe(true);
    expect(() => {
      (o as { metadata: { name: string } }).metadata = { name: 'b' };
    }).toThrow();
  });
});
