// Status collections: a transform that also computes a status for its input, to be written back.
import type { Collection, CollectionOptions, HandlerContext } from '../core/types.js';
import { internal, requireTransform } from '../engine/internalCollection.js';
import { DerivedCollection } from '../engine/derived/derivedCollection.js';

/** An input object with the status its transform computed. Keyed by the input's key. */
export interface ObjectWithStatus<I, S> {
  /** The input object. */
  readonly obj: I;
  /** The status its transform computed for it. */
  readonly status: S;
}

/** What a status transform returns: a status for the input (undefined/null: none) and the outputs. */
export interface StatusResult<S, O> {
  /** The input's status; undefined or null for none. */
  status?: S | null;
  /** The input's outputs; undefined or null for none. */
  outputs?: readonly O[] | null;
}

/** Everything one input produced in its last run. */
interface Bundle<I, S, O> {
  readonly key: string;
  readonly input: I;
  readonly status: S | undefined;
  readonly outputs: readonly O[];
}

/**
 * Like `newManyCollection`, but the transform also returns a status for its input. Returns
 * `[statuses, outputs]`: `statuses` holds `{ obj, status }` for every input that has a status (keyed
 * like the input); feed it to a status writer to patch `.status` back. Status and outputs of one input
 * change in the same transaction.
 * @example
 * const [policyStatus, bindings] = newStatusManyCollection(policies, (ctx, p) => {
 *   const pods = fetch(ctx, podsCol, filterLabel(p.spec.selector));
 *   return { status: { matched: pods.length }, outputs: pods.map((pod) => binding(p, pod)) };
 * });
 */
export function newStatusManyCollection<I, S, O>(
  parent: Collection<I>,
  transform: (ctx: HandlerContext, input: I) => StatusResult<S, O> | undefined | null,
  opts?: CollectionOptions,
): [Collection<ObjectWithStatus<I, S>>, Collection<O>] {
  const p = internal(parent, 'newStatusManyCollection');
  requireTransform(transform, 'newStatusManyCollection');
  const name = opts?.name ?? 'StatusCollection';
  // One engine run per input computes both parts; the two views below only reshape the result.
  const bundles = new DerivedCollection<I, Bundle<I, S, O>>(
    p,
    (ctx, input) => {
      const r = transform(ctx, input);
      return [{ key: p.keyOf(input), input, status: r?.status ?? undefined, outputs: r?.outputs ?? [] }];
    },
    { name: `${name}/results`, key: (b: Bundle<I, S, O>) => b.key, stop: opts?.stop },
    'StatusResults',
  );
  const outputs = new DerivedCollection<Bundle<I, S, O>, O>(bundles, (_ctx, b) => b.outputs, opts, 'StatusOutputs');
  const statuses = new DerivedCollection<Bundle<I, S, O>, ObjectWithStatus<I, S>>(
    bundles,
    (_ctx, b) => (b.status === undefined ? undefined : [{ obj: b.input, status: b.status }]),
    {
      name: `${name}/status`,
      key: (o: ObjectWithStatus<I, S>) => p.keyOf(o.obj),
      stop: opts?.stop,
      debugger: opts?.debugger,
    },
    'Status',
  );
  // The transform runs in `bundles`, which users never hold: its failures (a throw, a bad fetch) belong
  // to both views, or they would only ever reach the log. (The three share one lifetime: once `stop`
  // disposes `bundles` it reports nothing more, so the forwarding needs no teardown of its own.)
  bundles.errors$.subscribe((e) => {
    outputs.reportError(e);
    statuses.reportError(e);
  });
  return [statuses, outputs];
}

/**
 * The single-output form of `newStatusManyCollection`: the transform returns `{ status, output }`.
 * @see newStatusManyCollection
 */
export function newStatusCollection<I, S, O>(
  parent: Collection<I>,
  transform: (ctx: HandlerContext, input: I) => { status?: S | null; output?: O | null } | undefined | null,
  opts?: CollectionOptions,
): [Collection<ObjectWithStatus<I, S>>, Collection<O>] {
  requireTransform(transform, 'newStatusCollection');
  return newStatusManyCollection<I, S, O>(
    parent,
    (ctx, input) => {
      const r = transform(ctx, input);
      return { status: r?.status, outputs: r?.output === undefined || r.output === null ? [] : [r.output] };
    },
    opts,
  );
}
