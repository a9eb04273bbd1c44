// An options builder: one place for the stop signal, debugger and name prefix a controller's collections share.
import type { CollectionOptions, DebugRegistry } from './types.js';

/** Builds the options of a family of collections (krt's `OptionsBuilder`). */
export interface OptionsBuilder {
  /**
   * Options naming a collection `<namePrefix>/<name>` (just `name` without a prefix), with the shared stop
   * signal and debugger, and `extra` on top (`extra.name` is ignored: the name is `name`).
   */
  with<T = unknown>(name: string, extra?: CollectionOptions<T>): CollectionOptions<T>;
  /** The shared stop signal and debugger with `opts` on top, the name not prefixed (krt's `With`). */
  withOptions<T = unknown>(opts: CollectionOptions<T>): CollectionOptions<T>;
  /** The shared stop signal, if any. */
  readonly stop: AbortSignal | undefined;
  /** The shared debugger, if any. */
  readonly debugger: DebugRegistry | undefined;
  /** The name prefix, if any. */
  readonly namePrefix: string | undefined;
}

/**
 * An options builder for collections that share a stop signal, a debugger and a name prefix.
 * @example
 * const opts = newOptionsBuilder({ namePrefix: 'ambient', stop: signal, debugger: debug });
 * const workloads = newCollection(pods, toWorkload, opts.with('Workloads')); // named "ambient/Workloads"
 */
export function newOptionsBuilder(opts: { stop?: AbortSignal; namePrefix?: string; debugger?: DebugRegistry } = {}): OptionsBuilder {
  const shared = (): { stop?: AbortSignal; debugger?: DebugRegistry } => ({
    ...(opts.stop !== undefined ? { stop: opts.stop } : {}),
    ...(opts.debugger !== undefined ? { debugger: opts.debugger } : {}),
  });
  const prefix = opts.namePrefix === '' ? undefined : opts.namePrefix;
  return {
    with: <T>(name: string, extra?: CollectionOptions<T>): CollectionOptions<T> => ({
      ...shared(),
      ...extra,
      name: prefix === undefined ? name : `${prefix}/${name}`,
    }),
    withOptions: <T>(o: CollectionOptions<T>): CollectionOptions<T> => ({ ...shared(), ...o }),
    stop: opts.stop,
    debugger: opts.debugger,
    namePrefix: prefix,
  };
}
