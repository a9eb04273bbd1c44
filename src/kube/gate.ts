// The gate: which keys this replica may act on. Leader election and the shard ring make one; side-effect
// sinks (the status writer, the reconciler) consult it.
import type { Observable } from 'rxjs';

/**
 * Decides which keys this replica acts on. Every replica keeps the full derived state; only side effects
 * (status writes, reconciles, events) pass through a gate, so a standby is always hot.
 *
 * `owns(key)` must answer from local state at once: sinks ask it before every action. `changes$` emits
 * whenever the answer may have changed for some key (ownership gained or lost); sinks then pick up keys
 * they now own and drop work for keys they lost.
 */
export interface Gate {
  /** Whether this replica may act on `key` now. */
  owns(key: string): boolean;
  /** Emits when ownership may have changed for any key. */
  readonly changes$: Observable<void>;
}
