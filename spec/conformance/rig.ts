// Conformance rigs: one factory per collection kind, each driving its collection through the same steps.
import { Subject } from 'rxjs';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newFileCollection } from '../../src/files/index.js';
import { tempFolder, until } from '../files/fileTestKit.js';
import {
  batch,
  collectionFromEvents,
  fetch,
  fetchOne,
  joinCollection,
  joinWithMergeCollection,
  mapCollection,
  nestedJoinCollection,
  nestedJoinWithMergeCollection,
  newIndex,
  newCollection,
  newManyCollection,
  newManyFromNothing,
  newSingleton,
  newStatic,
  newStaticCollection,
  type Collection,
  type StaticCollection,
  type Event,
} from '../../src/index.js';

/** The object every rig holds: keyed `<namespace>/<name>` (keys look like `a/b`). */
export interface Named {
  readonly metadata: { readonly namespace: string; readonly name: string };
}

export function named(key: string): Named {
  const [namespace, name] = split(key);
  return { metadata: { namespace, name } };
}

export function split(key: string): [string, string] {
  const i = key.indexOf('/');
  if (i <= 0 || i === key.length - 1) throw new Error(`rig keys look like "a/b", got ${JSON.stringify(key)}`);
  return [key.slice(0, i), key.slice(i + 1)];
}

/** The metadata every rig's collection carries. */
export const RIG_METADATA = Object.freeze({ foo: 'bar' });

/**
 * A collection under test plus the two ways to change it. Mutations are synchronous for the in-process
 * kinds; rigs fed from outside (Observables, the API server) resolve `settle()` once their last change
 * has propagated.
 */
export interface Rig<T> {
  readonly collection: Collection<T>;
  /** In-process rigs change the collection at once; the API server's rig returns its request, which callers await. */
  createObject(key: string): void | Promise<unknown>;
  replaceKey(oldKey: string, newKey: string): void | Promise<unknown>;
  /** Resolves once every change made so far is visible in `collection` (no-op for synchronous rigs). */
  settle?(): Promise<void>;
  /** Releases what the rig started (servers, timers). */
  dispose?(): Promise<void> | void;
}

/** A rig kind: a name, a factory, and whether it can hold more than one object (singletons cannot). */
export interface RigFactory {
  readonly kind: string;
  /** May be async (a rig that must start a server first). */
  readonly make: () => Rig<Named> | Promise<Rig<Named>>;
  /** Singletons run only the replace sub-suite. */
  readonly replaceOnly?: boolean;
}

// ---- factories ----------------------------------------------------------------------------------------

/** A rig whose objects are created and re-keyed by writing to the static collection `src` (maybe `c` itself). */
function drivenBy(src: StaticCollection<Named>, c: Collection<Named>): Rig<Named> {
  return {
    collection: c,
    createObject: (k) => src.updateObject(named(k)),
    replaceKey: (o, n) => {
      src.deleteObject(o);
      src.updateObject(named(n));
    },
  };
}

/** krt rig 2: a static collection. */
function staticRig(): Rig<Named> {
  const c = newStaticCollection<Named>([], { name: 'conformance/static', metadata: { ...RIG_METADATA } });
  return drivenBy(c, c);
}

/** krt rig 3: a static singleton (replace sub-suite only: it holds one object). */
function staticSingletonRig(): Rig<Named> {
  const s = newStatic<Named>(undefined, { name: 'conformance/staticSingleton', metadata: { ...RIG_METADATA } });
  return {
    collection: s.asCollection(),
    createObject: (k) => s.set(named(k)),
    replaceKey: (_o, n) => s.set(named(n)),
  };
}

/**
 * krt rig 5: a derived many-collection. The primary input is a collection of namespace strings; the
 * transform fetches a collection of name strings and outputs every namespace × name.
 */
function manyCollectionRig(): Rig<Named> {
  const namespaces = newStaticCollection<string>([], { name: 'conformance/namespaces' });
  const names = newStaticCollection<string>([], { name: 'conformance/names' });
  const c = newManyCollection(namespaces, (ctx, ns) => fetch(ctx, names).map((name): Named => ({ metadata: { namespace: ns, name } })), {
    name: 'conformance/many',
    metadata: { ...RIG_METADATA },
  });
  return {
    collection: c,
    createObject: (k) => {
      const [ns, name] = split(k);
      namespaces.updateObject(ns);
      names.updateObject(name);
    },
    replaceKey: (o, n) => {
      const [ons, oname] = split(o);
      const [nns, nname] = split(n);
      // Only the differing part changes, as in krt.
      if (ons !== nns) {
        namespaces.deleteObject(ons);
        namespaces.updateObject(nns);
      }
      if (oname !== nname) {
        names.deleteObject(oname);
        names.updateObject(nname);
      }
    },
  };
}

/** newCollection over a static collection: a 1:1 derived copy. */
function newCollectionRig(): Rig<Named> {
  const src = newStaticCollection<Named>([], { name: 'conformance/source' });
  const c = newCollection(src, (_ctx, o): Named => ({ metadata: { namespace: o.metadata.namespace, name: o.metadata.name } }), {
    name: 'conformance/derived',
    metadata: { ...RIG_METADATA },
  });
  return drivenBy(src, c);
}

/** newManyFromNothing: one transform that copies everything a static collection holds. */
function manyFromNothingRig(): Rig<Named> {
  const src = newStaticCollection<Named>([], { name: 'conformance/nothingSource' });
  const c = newManyFromNothing((ctx) => fetch(ctx, src).map((o): Named => ({ metadata: { ...o.metadata } })), {
    name: 'conformance/manyFromNothing',
    metadata: { ...RIG_METADATA },
  });
  return drivenBy(src, c);
}

/** newSingleton over a static singleton (replace sub-suite only). */
function newSingletonRig(): Rig<Named> {
  const src = newStatic<Named>(undefined, { name: 'conformance/singletonSource' });
  const s = newSingleton(
    (ctx) => {
      const o = fetchOne(ctx, src.asCollection());
      return o === undefined ? undefined : { metadata: { ...o.metadata } };
    },
    { name: 'conformance/singleton', metadata: { ...RIG_METADATA } },
  );
  return {
    collection: s.asCollection(),
    createObject: (k) => src.set(named(k)),
    replaceKey: (_o, n) => src.set(named(n)),
  };
}

// ---- composition kinds ------------------------------------------------------------------------------

/** krt rig 4: a join of two static collections; creations alternate between them. */
function joinRig(): Rig<Named> {
  const left = newStaticCollection<Named>([], { name: 'conformance/joinLeft' });
  const right = newStaticCollection<Named>([], { name: 'conformance/joinRight' });
  const c = joinCollection([left, right], { name: 'conformance/join', metadata: { ...RIG_METADATA } });
  let turn = 0;
  const create = (k: string): void => (turn++ % 2 === 0 ? left : right).updateObject(named(k));
  return {
    collection: c,
    createObject: create,
    replaceKey: (o, n) => {
      left.deleteObject(o);
      right.deleteObject(o);
      create(n);
    },
  };
}

/** joinWithMergeCollection over two static collections; every object lives in both, merged into one. */
function mergeJoinRig(): Rig<Named> {
  const left = newStaticCollection<Named>([], { name: 'conformance/mergeLeft' });
  const right = newStaticCollection<Named>([], { name: 'conformance/mergeRight' });
  const c = joinWithMergeCollection([left, right], (values) => ({ metadata: { ...values[0]!.metadata } }), {
    name: 'conformance/mergeJoin',
    metadata: { ...RIG_METADATA },
  });
  return {
    collection: c,
    createObject: (k) => batch(() => [left, right].forEach((side) => side.updateObject(named(k)))),
    replaceKey: (o, n) =>
      batch(() => {
        left.deleteObject(o);
        right.deleteObject(o);
        left.updateObject(named(n));
        right.updateObject(named(n));
      }),
  };
}

/**
 * nestedJoinWithMergeCollection over a container of members that come and go: each object lives in a member
 * of its own, added to the container with the object and removed with it; a shared third member holds a
 * copy of every object, so merges of two values happen all along.
 */
function nestedMergeJoinRig(): Rig<Named> {
  const shared = newStaticCollection<Named>([], { name: 'conformance/nestedShared' });
  const container = newStaticCollection<Collection<Named>>([shared], { name: 'conformance/nestedMembers' });
  const c = nestedJoinWithMergeCollection(container, (values) => ({ metadata: { ...values[0]!.metadata } }), {
    name: 'conformance/nestedMergeJoin',
    metadata: { ...RIG_METADATA },
  });
  const own = new Map<string, StaticCollection<Named>>();
  const create = (k: string): void =>
    batch(() => {
      const member = newStaticCollection<Named>([named(k)], { name: `conformance/nestedMember/${k}` });
      own.set(k, member);
      container.updateObject(member);
      shared.updateObject(named(k));
    });
  return {
    collection: c,
    createObject: create,
    replaceKey: (o, n) =>
      batch(() => {
        const member = own.get(o);
        own.delete(o);
        if (member !== undefined) container.deleteObject(String(member.uid));
        shared.deleteObject(o);
        create(n);
      }),
  };
}

/** nestedJoinCollection (first wins) over a container whose members each hold every object, added in turn. */
function nestedJoinRig(): Rig<Named> {
  const left = newStaticCollection<Named>([], { name: 'conformance/nestedLeft' });
  const right = newStaticCollection<Named>([], { name: 'conformance/nestedRight' });
  const container = newStaticCollection<Collection<Named>>([left], { name: 'conformance/nestedPair' });
  const c = nestedJoinCollection(container, { name: 'conformance/nestedJoin', metadata: { ...RIG_METADATA } });
  let turn = 0;
  const create = (k: string): void =>
    batch(() => {
      // The second member joins the container with the second object: a member added at run time.
      const t = turn++;
      if (t === 1) container.updateObject(right);
      (t % 2 === 0 ? left : right).updateObject(named(k));
    });
  return {
    collection: c,
    createObject: create,
    replaceKey: (o, n) =>
      batch(() => {
        left.deleteObject(o);
        right.deleteObject(o);
        create(n);
      }),
  };
}

/** mapCollection over a static collection. */
function mapRig(): Rig<Named> {
  const src = newStaticCollection<Named>([], { name: 'conformance/mapSource' });
  const c = mapCollection(src, (o): Named => ({ metadata: { namespace: o.metadata.namespace, name: o.metadata.name } }), {
    name: 'conformance/map',
    metadata: { ...RIG_METADATA },
  });
  return drivenBy(src, c);
}

/**
 * Index-as-collection: objects are filed under their own key, the groups are mapped back to Named objects.
 * The source holds differently-shaped rows, so the group (not the source object) is what the rig sees.
 */
function indexCollectionRig(): Rig<Named> {
  const rows = newStaticCollection<{ id: string }>([], { name: 'conformance/indexRows', key: (r: { id: string }) => r.id });
  const groups = newIndex(rows, 'byId', (r) => [r.id]).asCollection({ name: 'conformance/indexGroups' });
  const c = mapCollection(groups, (g) => named(g.key), { name: 'conformance/indexAsCollection', metadata: { ...RIG_METADATA } });
  return {
    collection: c,
    createObject: (k) => rows.updateObject({ id: k }),
    replaceKey: (o, n) => {
      rows.deleteObject(o);
      rows.updateObject({ id: n });
    },
  };
}

/**
 * collectionFromEvents over a Subject, on its default scheduler (asapScheduler). It syncs at its first
 * emission, which the rig makes at once (an empty array). `settle()` waits a macrotask: the asap flush
 * runs on the microtask queue, so every change made before it has been applied by then.
 */
function fromEventsRig(): Rig<Named> {
  const events = new Subject<Event<Named> | readonly Event<Named>[]>();
  const stop = new AbortController();
  const c = collectionFromEvents<Named>(events, { name: 'conformance/fromEvents', metadata: { ...RIG_METADATA }, stop: stop.signal });
  events.next([]);
  return {
    collection: c,
    createObject: (k) => events.next({ type: 'add', new: named(k) }),
    replaceKey: (o, n) =>
      events.next([
        { type: 'delete', old: named(o) },
        { type: 'add', new: named(n) },
      ]),
    settle: () => new Promise<void>((resolve) => setImmediate(resolve)),
    dispose: () => {
      stop.abort();
      events.complete();
    },
  };
}

/**
 * newFileCollection over a temp folder: each object is a JSON file of its own, written, renamed and deleted
 * for real; `settle()` waits (on the collection's events) until the collection shows every file.
 */
function fileRig(): Rig<Named> {
  const folder = tempFolder();
  const stop = new AbortController();
  const c = newFileCollection<Named>(folder.dir, (text) => JSON.parse(text) as Named, {
    name: 'conformance/files',
    metadata: { ...RIG_METADATA },
    stop: stop.signal,
    debounceMs: 2,
    resyncMs: 0,
  });
  const expected = new Set<string>();
  const file = (k: string): string => join(folder.dir, `${k.replace('/', '_')}.json`);
  const create = (k: string): void => {
    expected.add(k);
    writeFileSync(file(k), JSON.stringify(named(k)));
  };
  return {
    collection: c,
    createObject: create,
    replaceKey: (o, n) => {
      expected.delete(o);
      rmSync(file(o));
      create(n);
    },
    settle: () => until(c, () => c.list().length === expected.size && [...expected].every((k) => c.getKey(k) !== undefined)),
    dispose: () => {
      stop.abort();
      folder.remove();
    },
  };
}

/**
 * Every collection kind that must pass the conformance suite. A kind without a factory here is unfinished.
 *
 * TO EXTEND: add one entry per new kind, in the same shape (`make` may be async; a rig fed from outside
 * implements `settle()` and `dispose()`). The Kubernetes informer (krt rig 1) runs the same steps (steps.ts)
 * in spec/conformance/informerConformance.spec.ts, which starts an API server per test and brings its own
 * race step (creations arrive by watch, so they cannot be batched or chained from a handler).
 */
export const RIG_FACTORIES: readonly RigFactory[] = [
  { kind: 'static collection', make: staticRig },
  { kind: 'static singleton', make: staticSingletonRig, replaceOnly: true },
  { kind: 'derived many-collection (namespaces × names)', make: manyCollectionRig },
  { kind: 'newCollection over a static collection', make: newCollectionRig },
  { kind: 'newManyFromNothing', make: manyFromNothingRig },
  { kind: 'newSingleton over a static singleton', make: newSingletonRig, replaceOnly: true },
  { kind: 'joinCollection of two static collections', make: joinRig },
  { kind: 'joinWithMergeCollection of two static collections', make: mergeJoinRig },
  { kind: 'nestedJoinWithMergeCollection over members that come and go', make: nestedMergeJoinRig },
  { kind: 'nestedJoinCollection over a container that grows', make: nestedJoinRig },
  { kind: 'mapCollection over a static collection', make: mapRig },
  { kind: 'index-as-collection mapped to objects', make: indexCollectionRig },
  { kind: 'collectionFromEvents over a Subject', make: fromEventsRig },
  { kind: 'newFileCollection over a temp folder', make: fileRig },
];
