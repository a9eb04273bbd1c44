// Misuse of the public API fails at the call that made the mistake, with a UsageError naming it.
import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { of } from 'rxjs';
import {
  collectionFromEvents,
  collectionStats,
  fetch,
  joinCollection,
  joinWithMergeCollection,
  mapCollection,
  newCollection,
  newIndex,
  newManyCollection,
  newManyFromNothing,
  newSingleton,
  newStaticCollection,
  newStatusCollection,
  singletonFromValues,
  UsageError,
  type Collection,
  type TransformError,
} from '../../src/index.js';
import { captureLog } from '../helpers/fixtures.js';

const src = newStaticCollection<string>(['a']);
const notACollection = null as unknown as Collection<string>;
const notAFunction = 42 as unknown as () => string;
const asyncTransform = (async () => 'x') as unknown as () => string;

describe('misuse of the public API', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  const cases: Array<[string, () => unknown, RegExp]> = [
    [
      'newCollection(null, f)',
      () => newCollection(notACollection, (_c, s) => s),
      /^newCollection: null is not a collection built by rxkrt/,
    ],
    ['newCollection(c, 42)', () => newCollection(src, notAFunction), /^newCollection needs a transform \(a function\), got 42/],
    [
      'newCollection(c, async f)',
      () => newCollection(src, asyncTransform),
      /^newCollection needs a transform that returns its result, not an async function/,
    ],
    [
      'newManyCollection({}, f)',
      () => newManyCollection({ name: 'Mine' } as unknown as Collection<string>, () => []),
      /^newManyCollection: Mine is not a collection/,
    ],
    [
      'newManyCollection(c, async f)',
      () => newManyCollection(src, asyncTransform as never),
      /^newManyCollection needs a transform that returns/,
    ],
    ['newSingleton(undefined)', () => newSingleton(undefined as never), /^newSingleton needs a transform \(a function\), got undefined/],
    ['newSingleton(async f)', () => newSingleton(asyncTransform), /^newSingleton needs a transform that returns/],
    ['newManyFromNothing("x")', () => newManyFromNothing('x' as never), /^newManyFromNothing needs a transform \(a function\), got "x"/],
    [
      'newStatusCollection(c, async f)',
      () => newStatusCollection(src, asyncTransform as never),
      /^newStatusCollection needs a transform that returns/,
    ],
    ['mapCollection(null, f)', () => mapCollection(notACollection, (s) => s), /^mapCollection: null is not a collection/],
    ['mapCollection(c, 42)', () => mapCollection(src, notAFunction), /^mapCollection needs a mapping function \(a function\), got 42/],
    ['joinCollection(null)', () => joinCollection(null as never), /^joinCollection needs an array of collections, got object/],
    ['joinCollection([c, null])', () => joinCollection([src, notACollection]), /^joinCollection: null is not a collection/],
    [
      'joinWithMergeCollection([c], null)',
      () => joinWithMergeCollection([src], null as never),
      /^joinWithMergeCollection needs a merge function \(a function\), got null/,
    ],
    ['newIndex(undefined, ...)', () => newIndex(undefined as never, 'x', () => []), /^newIndex: undefined is not a collection/],
    ['collectionFromEvents(null)', () => collectionFromEvents(null as never), /^collectionFromEvents needs an Observable, got null/],
    ['singletonFromValues({})', () => singletonFromValues({} as never), /^singletonFromValues needs an Observable, got \{\}/],
    ['collectionStats(null)', () => collectionStats(null as never), /^collectionStats: null is not a collection/],
  ];
  for (const [call, run, message] of cases) {
    it(`should refuse ${call} at the call with a UsageError naming it`, () => {
      let caught: unknown;
      try {
        run();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(UsageError);
      expect((caught as Error).message).toMatch(message);
    });
  }

  it('should report fetch(ctx, null) inside a transform as that input’s error, naming fetch', () => {
    const errors: TransformError[] = [];
    const out = newCollection(src, (ctx, s) => `${s}${fetch(ctx, notACollection).length}`, { name: 'Bad' });
    out.errors$.subscribe((e) => errors.push(e));
    src.updateObject('b');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.key).toBe('b');
    expect(errors[0]!.error).toBeInstanceOf(UsageError);
    expect(errors[0]!.message).toMatch(/fetch: null is not a collection built by rxkrt/);
  });

  it('should accept an Observable from any library that can be subscribed to', () => {
    expect(collectionFromEvents(of([{ type: 'add' as const, new: 'a' }])).name).toMatch(/FromEvents/);
  });
});

describe('a transform that returns a Promise', () => {
  let log: ReturnType<typeof captureLog>;
  beforeEach(() => {
    log = captureLog();
  });
  afterEach(() => log.restore());

  const promising = <T>(v: T): T => Promise.resolve(v) as unknown as T;

  it('should be reported on errors$ as a UsageError saying transforms must return their result, keeping the last output', () => {
    const names = newStaticCollection<string>(['a']);
    let async = false;
    const upper = newCollection(names, (_ctx, s) => (async ? promising(s.toUpperCase()) : s.toUpperCase()));
    const many = newManyCollection(names, (_ctx, s) => (async ? promising([s]) : [s]));
    const errors: TransformError[] = [];
    upper.errors$.subscribe((e) => errors.push(e));
    many.errors$.subscribe((e) => errors.push(e));
    async = true;
    names.updateObject('a');
    expect(errors.map((e) => e.error instanceof UsageError)).toEqual([true, true]);
    for (const e of errors) expect(e.message).toMatch(/the transform returned a Promise; transforms must return their result/);
    expect(upper.list()).toEqual(['A']);
    expect(many.list()).toEqual(['a']);
  });

  it('should never become a singleton’s value', () => {
    const single = newSingleton(() => promising(1));
    expect(single.get()).toBeUndefined();
    expect(log.lines.join('\n')).toMatch(/newSingleton: the transform returned a Promise/);
  });
});
