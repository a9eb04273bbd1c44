// Everything a request handler may touch, passed explicitly instead of living in module globals.
import type { Clock } from '../apimachinery/clock.js';
import type { JsonObject } from '../apimachinery/json.js';
import type { Ipv4Range } from '../apimachinery/ipv4Range.js';
import type { ResourceRegistry } from '../kinds/resourceRegistry.js';
import type { ResourceType } from '../kinds/resourceType.js';
import type { Store } from '../storage/store.js';
import type { StoredObject } from '../storage/storedObject.js';

/**
 * Per-kind behaviour beyond the generic write rules, keyed by storage key in {@link ServerState.hooks}.
 * Hooks run synchronously inside the write, so their effects are visible when the request returns.
 */
export interface KindHooks {
  /**
   * Fills the defaults a real server fills when it decodes a request body (every create and update, before the
   * generation is compared), and carries over what the server allocated when the body leaves it out.
   */
  defaults?(obj: JsonObject, before: StoredObject | undefined, state: ServerState): void;
  /** Sets server-owned fields (status, labels) on the object about to be stored; `before` is absent on create. */
  prepare?(obj: StoredObject, before: StoredObject | undefined, state: ServerState): void;
  /** Rejects an invalid object with a `422` StatusError. */
  validate?(obj: StoredObject, before: StoredObject | undefined, rt: ResourceType): void;
  /** Runs after a create or update is committed. */
  afterWrite?(obj: StoredObject, state: ServerState): void;
  /** Runs just before the object is removed for good (cascades go here). */
  beforeRemove?(obj: StoredObject, state: ServerState): void;
  /** Runs after the object was removed. */
  afterRemove?(obj: StoredObject, state: ServerState): void;
}

/** The server's state: store, kind registry, clock, per-kind hooks and the address ranges it allocates from. */
export interface ServerState {
  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly clock: Clock;
  readonly hooks: ReadonlyMap<string, KindHooks>;
  /** Where Service cluster IPs come from (`--service-cluster-ip-range`). */
  readonly serviceIpRange: Ipv4Range;
}
