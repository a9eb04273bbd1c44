import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { newManyCollection, newStaticCollection, fetch, KeyError, type TransformError } from '../../src/index.js';
import { trackEvents } from '../../src/testing/tracker.js';
import { seededRandom } from '../../src/testing/index.js';
import {
  captureLog,
  keysOf,
  pod,
  service,
  simplePods,
  simpleServices,
  simpleEndpoints,
  type Pod,
  type Service,
  sortedBatches,
} from '../helpers/fixtures.js';

interface Out {
  metadata: { name: string; namespace?: string };
  v?: number;
}

describe('newManyCollection', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should produce any number of outputs per input', () => {
    const pods = newStaticCollection<Pod>([pod('p1', '1.1.1.1', { app: 'a' }), pod('p2', '1.1.1.2', { app: 'a' })]);
    const services = newStaticCollection<Service>([service('s', { app: 'a' })]);
    const eps = simpleEndpoints(simpleServices(services), simplePods(pods));
    expect(keysOf(eps)).toEqual(['namespace/s/p1', 'namespace/s/p2']);
    const t = trackEvents(eps, { batches: true });
    t.takeBatches();
    t.take();
    pods.deleteObject('namespace/p1');
    t.expectOrdered('delete/namespace/s/p1');
    services.deleteObject('namespace/s');
    t.expectOrdered('delete/namespace/s/p2');
    expect(eps.list()).toEqual([]);
  });

  it('should emit a delete and an add in one batch when an output changes key', () => {
    const src = newStaticCollection<{ metadata: { name: string }; suffix: string }>([{ metadata: { name: 'a' }, suffix: '1' }]);
    const out = newManyCollection(src, (_ctx, i): Out[] => [{ metadata: { name: `${i.metadata.name}-${i.suffix}` } }]);
    const t = trackEvents(out, { batches: true, runExistingState: false });
    src.updateObject({ metadata: { name: 'a' }, suffix: '2' });
    expect(sortedBatches(t)).toEqual(['add/a-2,delete/a-1']);
  });

  it('should keep the last of two outputs with one key from one run, and report it', () => {
    const errors: TransformError[] = [];
    const src = newStaticCollection<string>(['a']);
    const out = newManyCollection(
      src,
      (_ctx, s): Out[] => [
        { metadata: { name: s }, v: 1 },
        { metadata: { name: s }, v: 2 },
      ],
      { name: 'Dup' },
    );
    out.errors$.subscribe((e) => errors.push(e));
    src.updateObject('b');
    expect(out.getKey('b')?.v).toBe(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Dup');
    expect(errors[0]!.key).toBe('b');
    expect(errors[0]!.error).toBeInstanceOf(KeyError);
  });

  it('should let the first input keep an output key two inputs produce, and hand it over when it stops', () => {
    const errors: TransformError[] = [];
    const src = newStaticCollection<{ metadata: { name: string }; out?: string; v: number }>([]);
    const out = newManyCollection(src, (_ctx, i): Out[] => (i.out ? [{ metadata: { name: i.out }, v: i.v }] : []), { name: 'Conflicts' });
    out.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    out.register((e) => void seen.push(`${e.type}:${e.old?.v}>${e.new?.v}`));

    src.updateObject({ metadata: { name: 'first' }, out: 'shared', v: 1 });
    src.updateObject({ metadata: { name: 'second' }, out: 'shared', v: 2 });
    expect(out.getKey('shared')?.v).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.key).toBe('second');
    expect(errors[0]!.message).toMatch(/Conflicts/);
    expect(errors[0]!.message).toMatch(/first/);

    // The shadowed input changing its value changes nothing visible.
    src.updateObject({ metadata: { name: 'second' }, out: 'shared', v: 3 });
    expect(out.getKey('shared')?.v).toBe(1);
    // The owner stops producing the key: the other takes over with an update.
    src.deleteObject('first');
    expect(out.getKey('shared')?.v).toBe(3);
    src.deleteObject('second');
    expect(out.getKey('shared')).toBeUndefined();
    // A key that had gone comes back as an add.
    src.updateObject({ metadata: { name: 'third' }, out: 'shared', v: 4 });
    expect(seen).toEqual(['add:undefined>1', 'update:1>3', 'delete:3>undefined', 'add:undefined>4']);
  });

  it('should hand a shared key over once, and drop it, when the waiting input went from several outputs to that one', () => {
    const errors: TransformError[] = [];
    const src = newStaticCollection<{ metadata: { name: string }; outs: string[]; v: number }>([]);
    const out = newManyCollection(src, (_ctx, i): Out[] => i.outs.map((name) => ({ metadata: { name }, v: i.v })), { name: 'Conflicts' });
    out.errors$.subscribe((e) => errors.push(e));
    src.updateObject({ metadata: { name: 'first' }, outs: ['shared'], v: 1 });
    src.updateObject({ metadata: { name: 'second' }, outs: ['shared', 'own'], v: 2 });
    src.updateObject({ metadata: { name: 'second' }, outs: ['shared'], v: 3 });
    // One conflict, reported when it began: the second input kept its claim on the key through both runs.
    expect(errors).toHaveLength(1);
    const seen: string[] = [];
    out.register((e) => void seen.push(`${e.type}:${e.old?.v}>${e.new?.v}`));
    src.deleteObject('first');
    expect(out.getKey('shared')?.v).toBe(3);
    src.updateObject({ metadata: { name: 'second' }, outs: [], v: 3 });
    expect(out.getKey('shared')).toBeUndefined();
    expect(out.list()).toEqual([]);
    expect(seen).toEqual(['add:undefined>1', 'update:1>3', 'delete:3>undefined']);
  });

  it('should give each shared key to the input that has claimed it longest, through random claims and releases', () => {
    // The model: per output key, the inputs producing it in the order they started to (a claim lasts
    // while every run of the input produces the key); the first of them owns it and its value is visible.
    const log = captureLog();
    const rand = seededRandom(11);
    type In = { metadata: { name: string }; outs: Record<string, number> };
    const src = newStaticCollection<In>([]);
    const out = newManyCollection(src, (_ctx, i): Out[] => Object.entries(i.outs).map(([name, v]) => ({ metadata: { name }, v })), {
      name: 'Claims',
    });
    // Every change is delivered: the events, replayed, give the visible state after each transaction.
    const replayed = new Map<string, number>();
    out.register((e) => {
      if (e.type === 'delete') replayed.delete(e.old!.metadata.name);
      else replayed.set(e.new!.metadata.name, e.new!.v!);
    });
    const claims = new Map<string, string[]>();
    const produced = new Map<string, Record<string, number>>();
    for (let step = 0; step < 2000; step++) {
      const input = `i${Math.floor(rand() * 6)}`;
      const outs: Record<string, number> = {};
      if (rand() < 0.85) for (const k of ['k0', 'k1', 'k2', 'k3']) if (rand() < 0.4) outs[k] = Math.floor(rand() * 3);
      if (rand() < 0.15) src.deleteObject(input);
      else src.updateObject({ metadata: { name: input }, outs });
      const now = src.getKey(input)?.outs ?? {};
      for (const k of ['k0', 'k1', 'k2', 'k3']) {
        const line = claims.get(k) ?? [];
        const at = line.indexOf(input);
        if (k in now && at < 0) line.push(input);
        if (!(k in now) && at >= 0) line.splice(at, 1);
        claims.set(k, line);
      }
      produced.set(input, now);
      const expected: Record<string, number> = {};
      for (const [k, line] of claims) if (line.length > 0) expected[k] = produced.get(line[0]!)![k]!;
      const visible: Record<string, number> = {};
      for (const o of out.list()) visible[o.metadata.name] = o.v!;
      expect(visible).toEqual(expected);
      expect(Object.fromEntries(replayed)).toEqual(expected);
    }
    expect(log.lines.some((l) => l.includes('is already produced by input'))).toBe(true);
    log.restore();
  });

  it('should recompute only the inputs affected by a fetched change', () => {
    const svcs = newStaticCollection<Service>([service('a', { app: 'a' }), service('b', { app: 'b' })]);
    const pods = newStaticCollection<Pod>([]);
    const runs: string[] = [];
    newManyCollection(svcs, (ctx, s) => {
      runs.push(s.metadata.name);
      return fetch(ctx, pods)
        .filter((p) => p.metadata.labels?.['app'] === s.spec?.selector?.['app'])
        .map((p) => p.metadata.name);
    });
    runs.length = 0;
    svcs.updateObject(service('a', { app: 'a2' }));
    expect(runs).toEqual(['a']);
  });

  it('should treat undefined and null results as no outputs, and skip undefined items', () => {
    const src = newStaticCollection<string>(['a', 'b', 'c']);
    const out = newManyCollection(src, (_ctx, s) => (s === 'a' ? undefined : s === 'b' ? null : [s, undefined as unknown as string]));
    expect(out.list()).toEqual(['c']);
  });

  it('should report a transform that returns something other than an array', () => {
    const errors: TransformError[] = [];
    const src = newStaticCollection<string>([]);
    const out = newManyCollection(src, (_ctx, s) => s as unknown as string[]);
    out.errors$.subscribe((e) => errors.push(e));
    src.updateObject('a');
    expect(out.list()).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toBeInstanceOf(TypeError);
  });
});
