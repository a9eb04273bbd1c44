// What a feed (one LIST + WATCH) hands to the collections it feeds.
import type { KubernetesObject } from '@kubernetes/client-node';

/** A watch event as the feed passes it on: admitted and shaped. */
export interface FeedEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubernetesObject;
}

/** A collection fed by a feed. Every call but `failed` comes inside one transaction shared by all sinks. */
export interface FeedSink {
  /** The complete current list (the first one, a relist, or the state on attaching): diff against it. */
  reset(objects: Iterable<KubernetesObject>): void;
  /** Watch events, in order. */
  apply(events: readonly FeedEvent[]): void;
  /** The initial state is complete (a first LIST applied, or the resource found absent). */
  synced(): void;
  /** Something failed; `key` names the object when there is one. */
  failed(cause: unknown, key: string | undefined, message: string): void;
}

/** An object's `metadata.resourceVersion`, if it is a string. */
export function resourceVersionOf(o: unknown): string | undefined {
  const rv = (o as { metadata?: { resourceVersion?: unknown } | null } | null | undefined)?.metadata?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}
