// Marble-testing helpers: build events tersely, render batches as short strings, and a TestScheduler for any runner.
import { map, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { Event } from '../core/event.js';
import { latest } from '../core/event.js';
import { singletonKey } from '../collections/singleton.js';
import { describeValue } from '../core/errors.js';

/**
 * An `add` event carrying `obj`.
 * @example
 * const pods$ = cold('a-b', { a: add(pod('a')), b: [add(pod('b')), del(pod('a'))] });
 */
export function add<T>(obj: T): Event<T> {
  return { type: 'add', new: obj };
}

/**
 * An `update` event from `old` to `next`.
 * @example
 * const pods$ = cold('a-b', { a: add(podV1), b: update(podV1, podV2) });
 */
export function update<T>(old: T, next: T): Event<T> {
  return { type: 'update', old, new: next };
}

/**
 * A `delete` event carrying the removed `obj`. (`delete` is a reserved word, hence the short name.)
 * @example
 * const pods$ = cold('a-b', { a: add(pod('a')), b: del(pod('a')) });
 */
export function del<T>(obj: T): Event<T> {
  return { type: 'delete', old: obj };
}

/** How {@link describeEvent}, {@link describeEvents} and {@link eventsToStrings} render events. */
export interface DescribeOptions<T> {
  /**
   * The key shown for an object. Default: `keyOf` (a string is itself, `namespace/name`, `resourceName()`),
   * and `static` for values `keyOf` cannot key (numbers, plain records), which is where singletons keep them.
   * Pass the collection's own `key` option here when it has one.
   */
  key?: (o: T) => string;
  /**
   * Sort the events of a batch by their rendering. The order of events inside one batch is not part of
   * rxkrt's contract (only the batch boundaries are), so assertions on multi-event batches usually want this.
   */
  sort?: boolean;
}

/**
 * Renders one event as `"<type>/<key>"`, the format krt's trackers use.
 * @example
 * describeEvent(add({ metadata: { namespace: 'ns', name: 'a' } })); // 'add/ns/a'
 * describeEvent(del(3)); // 'delete/static'
 */
export function describeEvent<T>(e: Event<T>, opts?: DescribeOptions<T>): string {
  const key = opts?.key ?? (singletonKey as (o: T) => string);
  return `${e.type}/${key(latest(e))}`;
}

/**
 * Renders a batch as its events' {@link describeEvent} strings joined by `,` (empty batch: `''`).
 * @example
 * describeEvents([add(a), update(b0, b1)]); // 'add/ns/a,update/ns/b'
 * describeEvents(batch, { sort: true });    // order-insensitive rendering
 */
export function describeEvents<T>(batch: readonly Event<T>[], opts?: DescribeOptions<T>): string {
  const parts = batch.map((e) => describeEvent(e, opts));
  if (opts?.sort === true) parts.sort();
  return parts.join(',');
}

/**
 * Maps a collection's `events$` to one string per batch ({@link describeEvents}), which is what marble
 * diagrams compare best: one letter per batch, one batch per transaction.
 * @example
 * testScheduler.run(({ cold, expectObservable }) => {
 *   const pods = collectionFromEvents<Pod>(cold('-a-b', { a: add(p1), b: del(p1) }));
 *   expectObservable(eventsToStrings(pods.events$)).toBe('-x-y', { x: 'add/ns/p1', y: 'delete/ns/p1' });
 * });
 */
export function eventsToStrings<T>(events$: Observable<readonly Event<T>[]>, opts?: DescribeOptions<T>): Observable<string> {
  return events$.pipe(map((batch) => describeEvents(batch, opts)));
}

/** Thrown by the scheduler of {@link createMarbleScheduler} when a marble expectation does not hold. */
export class MarbleMismatchError extends Error {
  /** Always `'MarbleMismatchError'`. */
  override readonly name = 'MarbleMismatchError';
  constructor(
    message: string,
    /** What the observable (or subscription log) did. */
    readonly actual: unknown,
    /** What the marble diagram said. */
    readonly expected: unknown,
  ) {
    super(message);
  }
}

/**
 * A `TestScheduler` whose assertion is a structural deep equality that throws a {@link MarbleMismatchError}
 * listing expected and actual frame by frame, so it works under jest, vitest, mocha or `node:test` alike.
 * Equality is that of jest's `toEqual`: prototypes are ignored, properties whose value is undefined are
 * ignored, arrays, Map, Set and Date compare by content, errors by name and message, asymmetric matchers
 * (`expect.any(...)`, `expect.stringContaining(...)`) are honoured, and `equals` methods are NOT consulted.
 * Inside `run()`, `asapScheduler` is virtual, so `collectionFromEvents` and `singletonFromValues` flush
 * in virtual time.
 * @example
 * const testScheduler = createMarbleScheduler();
 * testScheduler.run(({ cold, expectObservable }) => {
 *   const src = cold('-a--b|', { a: add(p1), b: del(p1) });
 *   const pods = collectionFromEvents<Pod>(src);
 *   expectObservable(eventsToStrings(pods.events$)).toBe('-x--y', { x: 'add/ns/p1', y: 'delete/ns/p1' });
 * });
 */
export function createMarbleScheduler(): TestScheduler {
  return new TestScheduler((actual: unknown, expected: unknown) => {
    if (structurallyEqual(actual, expected)) return;
    throw new MarbleMismatchError(explainMismatch(actual, expected), actual, expected);
  });
}

// ---- equality ---------------------------------------------------------------------------------------

/** jest-`toEqual`-like deep equality; see createMarbleScheduler for the rules. */
function structurallyEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  // jest/vitest asymmetric matchers (expect.any, expect.stringContaining, ...) on the expected side.
  if (isAsymmetricMatcher(b)) return b.asymmetricMatch(a);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => structurallyEqual(x, b[i]));
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map) || !(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !structurallyEqual(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Set || b instanceof Set) {
    if (!(a instanceof Set) || !(b instanceof Set) || a.size !== b.size) return false;
    const rest = [...b];
    for (const x of a) {
      const i = rest.findIndex((y) => structurallyEqual(x, y));
      if (i < 0) return false;
      rest.splice(i, 1);
    }
    return true;
  }
  if (a instanceof Error || b instanceof Error) {
    return a instanceof Error && b instanceof Error && a.name === b.name && a.message === b.message;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && structurallyEqual(ra[k], rb[k]));
}

function isAsymmetricMatcher(x: unknown): x is { asymmetricMatch(other: unknown): boolean } {
  return typeof x === 'object' && x !== null && typeof (x as { asymmetricMatch?: unknown }).asymmetricMatch === 'function';
}

// ---- the readable diff --------------------------------------------------------------------------------

interface MessageLike {
  frame: number;
  notification: { kind: 'N' | 'E' | 'C'; value?: unknown; error?: unknown };
}

interface SubscriptionLike {
  subscribedFrame: number;
  unsubscribedFrame: number;
}

/** A short, readable rendering of a value for the diff: JSON-like, with Map, Set, errors and matchers spelled out. */
function render(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v instanceof Error) return `${v.name}: ${v.message}`;
  if (isAsymmetricMatcher(v)) return describeMatcher(v);
  try {
    const text = JSON.stringify(v, (_k, x: unknown) => {
      if (typeof x === 'bigint') return `${x}n`;
      if (x instanceof Error) return `${x.name}: ${x.message}`;
      if (x instanceof Map) return { Map: Object.fromEntries([...x].map(([k, y]) => [String(k), y])) };
      if (x instanceof Set) return { Set: [...x] };
      if (isAsymmetricMatcher(x)) return describeMatcher(x);
      return x;
    }) as string | undefined; // undefined for a function or a symbol
    if (text === undefined) return String(v);
    return text.length > 300 ? `${text.slice(0, 297)}...` : text;
  } catch {
    return describeValue(v);
  }
}

/** `StringContaining "x"`, `Any<Number>`: how jest prints its asymmetric matchers. */
function describeMatcher(m: { asymmetricMatch(other: unknown): boolean }): string {
  const r = m as { toAsymmetricMatcher?: () => string; sample?: unknown };
  const name = typeof r.toAsymmetricMatcher === 'function' ? r.toAsymmetricMatcher() : String(m);
  if (r.sample === undefined || name.includes(' ') || name.includes('<')) return name;
  return `${name} ${typeof r.sample === 'function' ? (r.sample as { name: string }).name : JSON.stringify(r.sample)}`;
}

function renderFrame(f: number): string {
  return Number.isFinite(f) ? String(f) : 'never';
}

/** One line per message (`@3 next "add/ns/a"`) or subscription (`subscribed @0, unsubscribed @5`). */
function renderEntry(x: unknown): string {
  const m = x as Partial<MessageLike> | null | undefined;
  if (typeof m?.frame === 'number' && m.notification !== undefined) {
    const n = m.notification;
    if (n.kind === 'N') return `@${m.frame} next ${render(n.value)}`;
    if (n.kind === 'E') return `@${m.frame} error ${render(n.error)}`;
    return `@${m.frame} complete`;
  }
  const s = x as Partial<SubscriptionLike> | null | undefined;
  if (typeof s?.subscribedFrame === 'number') {
    return `subscribed @${renderFrame(s.subscribedFrame)}, unsubscribed @${renderFrame(s.unsubscribedFrame ?? Infinity)}`;
  }
  return render(x);
}

function explainMismatch(actual: unknown, expected: unknown): string {
  const a = Array.isArray(actual) ? actual : [actual];
  const e = Array.isArray(expected) ? expected : [expected];
  let first = 0;
  while (first < a.length && first < e.length && structurallyEqual(a[first], e[first])) first++;
  const lines = (xs: unknown[]): string =>
    xs.length === 0 ? '    (nothing)' : xs.map((x, i) => `  ${i === first ? '>' : ' '} ${renderEntry(x)}`).join('\n');
  return `marble expectation failed at entry #${first + 1}\nexpected:\n${lines(e)}\nactual:\n${lines(a)}`;
}
