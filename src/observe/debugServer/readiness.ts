// Readiness: which collections have not synced yet (all live ones, or those a DebugHandler holds).
import { liveCollections } from '../../engine/liveCollections.js';
import type { DebugHandler } from '../DebugHandler.js';

/** Names of the collections that have not synced; empty when ready. */
export function notSynced(debug: DebugHandler | undefined): string[] {
  if (debug !== undefined) return debug.dump().flatMap((c) => (c.state.synced ? [] : [c.name]));
  return liveCollections().flatMap((c) => (c.hasSynced() ? [] : [c.name]));
}
