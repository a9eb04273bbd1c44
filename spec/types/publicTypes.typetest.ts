// Type tests, checked by `npm run typecheck` (tsc fails on an unused @ts-expect-error): the public types
// say what they promise. Nothing here runs; each function is a scenario the compiler must accept or refuse.
import {
  fetch,
  filterLabelSelector,
  nestedJoinWithMergeCollection,
  newOptionsBuilder,
  newRecomputeProtected,
  parseLabelSelector,
  type LabelSelector,
  filterGeneric,
  filterKey,
  newCollection,
  newStaticCollection,
  query$,
  type Collection,
  type Event,
  type HandlerContext,
} from '../../src/index.js';

interface Pod {
  metadata: { name: string; namespace: string };
  ip?: string;
}
interface Service {
  metadata: { name: string; namespace: string };
  port: number;
}
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const is = <T extends true>(_: T): void => {};

/** Event<T> is discriminated by `type`. */
export function eventUnion(e: Event<Pod>): string {
  if (e.type === 'add') return e.new.metadata.name;
  if (e.type === 'delete') return e.old.metadata.name;
  is<Equal<typeof e.type, 'update'>>(true);
  // @ts-expect-error an add has no old object
  const missing: Pod = ({ type: 'add', new: e.new } as Event<Pod> & { type: 'add' }).old;
  return `${e.old.metadata.name}→${e.new.metadata.name}${String(missing)}`;
}

/** Code that reads `e.new ?? e.old` keeps compiling, and gets `Pod | undefined`. */
export function oldStyle(e: Event<Pod>): string | undefined {
  const o = e.new ?? e.old;
  is<Equal<typeof o, Pod>>(true);
  return e.new?.ip ?? o.ip;
}

/** Filters are checked against the collection they fetch from. */
export function fetchChecked(ctx: HandlerContext, pods: Collection<Pod>): Pod[] {
  const ok = fetch(
    ctx,
    pods,
    filterKey('ns/a'),
    filterGeneric((p: Pod) => p.ip !== undefined),
  );
  const byPort = filterGeneric((s: Service) => s.port > 0);
  // @ts-expect-error a predicate over Services cannot filter Pods
  fetch(ctx, pods, byPort);
  // @ts-expect-error live queries check their filters the same way
  query$(pods, byPort);
  return ok;
}

/** `key` and `equals` are typed by the collection's object type. */
export function typedOptions(): void {
  newStaticCollection<Pod>([], { key: (p) => p.metadata.name, equals: (a, b) => a.ip === b.ip });
  // @ts-expect-error a key function must take the collection's objects
  newStaticCollection<Pod>([], { key: (s: Service) => String(s.port) });
  const src = newStaticCollection<Pod>([]);
  const out = newCollection(src, (_ctx, p) => ({ id: p.metadata.name, port: 80 }), {
    key: (o) => o.id,
    equals: (a, b) => a.port === b.port,
  });
  is<Equal<ReturnType<typeof out.list>, Array<{ id: string; port: number }>>>(true);
  out.list();
  // @ts-expect-error the output has no `name`
  newCollection(src, (_ctx, p) => ({ id: p.metadata.name }), { key: (o) => o.name });
}

/** Full selectors: the Kubernetes shape, with its four operators only. */
export function labelSelectors(pods: Collection<Pod>, ctx: HandlerContext): Pod[] {
  const parsed: LabelSelector = parseLabelSelector('app=web,tier in (a,b)');
  const ok: LabelSelector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] };
  // @ts-expect-error Gt is not a LabelSelector operator
  const gt: LabelSelector = { matchExpressions: [{ key: 'n', operator: 'Gt', values: ['1'] }] };
  return [
    ...fetch(ctx, pods, filterLabelSelector(parsed), filterLabelSelector('app')),
    ...fetch(ctx, pods, filterLabelSelector(ok)),
  ].concat(gt === ok ? [] : []);
}

/** A nested join keeps the members' object type; the options builder types `key` by it too. */
export function nestedJoins(members: Collection<Collection<Pod>>): void {
  const opts = newOptionsBuilder({ namePrefix: 'test' });
  const joined = nestedJoinWithMergeCollection(members, (ps) => ps[0], opts.with<Pod>('Pods', { key: (p) => p.metadata.name }));
  is<Equal<ReturnType<typeof joined.list>, Pod[]>>(true);
  joined.list();
  // @ts-expect-error merge must return the members' type
  nestedJoinWithMergeCollection(members, (ps) => ps.length);
  const protectedSet = newRecomputeProtected(new Set<string>());
  protectedSet.modify((set) => void set.add('x'));
  // @ts-expect-error modify's function returns the data's type (or nothing)
  protectedSet.modify(() => 3);
}
