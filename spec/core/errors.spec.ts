import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { newStaticCollection, newCollection, newSingleton, fetch, DebugHandler, KeyError, TransformError } from '../../src/index.js';
import { captureLog } from '../helpers/fixtures.js';

interface In {
  metadata: { name: string };
  v: number;
  out?: string;
}
const input = (name: string, v: number, out?: string): In => ({ metadata: { name }, v, ...(out ? { out } : {}) });

describe('TransformError', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should keep the last outputs of an input whose transform throws, and report collection, key and error', () => {
    const src = newStaticCollection<In>([input('a', 1)]);
    const out = newCollection(
      src,
      (_ctx, i) => {
        if (i.v < 0) throw new RangeError(`negative ${i.v}`);
        return { metadata: i.metadata, double: i.v * 2 };
      },
      { name: 'Doubler' },
    );
    const errors: TransformError[] = [];
    out.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    out.register((e) => void seen.push(e.type));
    src.updateObject(input('a', -1));
    expect(out.getKey('a')).toEqual({ metadata: { name: 'a' }, double: 2 });
    expect(errors).toHaveLength(1);
    const e = errors[0]!;
    expect(e).toBeInstanceOf(TransformError);
    expect(e.collection).toBe('Doubler');
    expect(e.key).toBe('a');
    expect(e.error).toBeInstanceOf(RangeError);
    expect(e.message).toContain('Doubler');
    expect(e.message).toContain('"a"');
    expect(e.message).toContain('negative -1');
    // Logged as well, never thrown to the mutation.
    expect(log.lines.some((l) => l.includes('negative -1'))).toBe(true);
    // The input recovers with its next good run.
    src.updateObject(input('a', 3));
    expect(out.getKey('a')?.double).toBe(6);
    expect(seen).toEqual(['add', 'update']);
  });

  it('should report a failing first run and produce nothing for that input', () => {
    const src = newStaticCollection<In>([]);
    const out = newCollection(src, (_ctx, i) => {
      if (i.v === 0) throw new Error('zero');
      return i;
    });
    const errors: TransformError[] = [];
    out.errors$.subscribe((e) => errors.push(e));
    src.updateObject(input('z', 0));
    expect(out.list()).toEqual([]);
    expect(errors.map((e) => e.key)).toEqual(['z']);
  });

  it('should recompute a failed input when something its failed run read changes', () => {
    const cfg = newStaticCollection<string>([]);
    const src = newStaticCollection<In>([input('a', 1)]);
    const out = newCollection(src, (ctx, i) => {
      const c = fetch(ctx, cfg);
      if (c.length === 0) throw new Error('no config yet');
      return { metadata: i.metadata, cfg: c.join() };
    });
    expect(out.list()).toEqual([]);
    cfg.updateObject('on');
    expect(out.getKey('a')?.cfg).toBe('on');
  });

  it('should not replay past errors on errors$ (hot)', () => {
    const src = newStaticCollection<In>([]);
    const out = newCollection(src, (): In => {
      throw new Error('always');
    });
    src.updateObject(input('a', 1));
    const late: TransformError[] = [];
    out.errors$.subscribe((e) => late.push(e));
    expect(late).toEqual([]);
    src.updateObject(input('b', 1));
    expect(late.map((e) => e.key)).toEqual(['b']);
  });

  it('should leave the key out for singletons', () => {
    const src = newStaticCollection<string>([]);
    const s = newSingleton(
      (ctx) => {
        if (fetch(ctx, src).length > 0) throw new Error('x');
        return 0;
      },
      { name: 'Single' },
    );
    const errors: TransformError[] = [];
    s.asCollection().errors$.subscribe((e) => errors.push(e));
    src.updateObject('a');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Single');
    expect(errors[0]!.key).toBeUndefined();
    expect(s.get()).toBe(0);
  });

  it('should show a failing input in the debug dump', () => {
    const debug = new DebugHandler();
    const src = newStaticCollection<In>([input('a', 1)]);
    const out = newCollection(
      src,
      (_ctx, i) => {
        if (i.v < 0) throw new Error('bad input');
        return i;
      },
      { debugger: debug, name: 'Dumped' },
    );
    src.updateObject(input('a', -1));
    const dump = debug.dump().find((d) => d.uid === out.uid)!;
    expect(JSON.stringify(dump.state.inputs?.['a'])).toContain('bad input');
  });

  it('should let the first input keep an output key produced by two, report the conflict, then hand it over', () => {
    const src = newStaticCollection<In>([input('first', 1, 'shared')]);
    const out = newCollection(src, (_ctx, i) => (i.out ? { metadata: { name: i.out }, v: i.v } : undefined), { name: 'Clash' });
    const errors: TransformError[] = [];
    out.errors$.subscribe((e) => errors.push(e));
    const seen: string[] = [];
    out.register((e) => void seen.push(`${e.type}:${e.new?.v ?? e.old?.v}`));
    src.updateObject(input('second', 2, 'shared'));
    expect(out.getKey('shared')?.v).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.collection).toBe('Clash');
    expect(errors[0]!.key).toBe('second');
    expect(errors[0]!.error).toBeInstanceOf(KeyError);
    expect(errors[0]!.message).toContain('"shared"');
    expect(errors[0]!.message).toContain('"first"');
    src.updateObject(input('first', 1));
    expect(out.getKey('shared')?.v).toBe(2);
    expect(seen).toEqual(['add:1', 'update:2']);
  });
});

describe('KeyError', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  it('should name the collection and show the value for an output without a key', () => {
    const src = newStaticCollection<string>([]);
    const out = newCollection(src, (_ctx, s) => ({ noKey: s }), { name: 'Keyless' });
    const errors: TransformError[] = [];
    out.errors$.subscribe((e) => errors.push(e));
    src.updateObject('v1');
    expect(errors).toHaveLength(1);
    const ke = errors[0]!.error as KeyError;
    expect(ke).toBeInstanceOf(KeyError);
    expect(ke.collection).toBe('Keyless');
    expect(ke.value).toEqual({ noKey: 'v1' });
    expect(ke.message).toContain('Keyless');
    expect(ke.message).toContain('{"noKey":"v1"}');
  });

  it('should shorten a huge value in its message', () => {
    const e = new KeyError('C', { big: 'x'.repeat(10_000) });
    expect(e.message.length).toBeLessThan(500);
  });
});
