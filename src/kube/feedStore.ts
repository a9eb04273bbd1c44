// A feed's cache: the objects as last applied, by their default key, for the collections that attach late.
import type { KubernetesObject } from '@kubernetes/client-node';
import { tryKeyOf } from '../core/keyOf.js';
import { resourceVersionOf, type FeedEvent } from './feedSink.js';

/** What a feed holds between a collection's attaching and its first event. */
export class FeedStore {
  private objects = new Map<string, KubernetesObject>();

  values(): IterableIterator<KubernetesObject> {
    return this.objects.values();
  }

  /**
   * Takes a complete LIST (key → object). An object whose version is unchanged stays the cached one (so
   * collections see the same object, not an equal copy); a key in `keep` (refused this time, but still
   * ours) keeps its cached object; every other key is gone.
   */
  replace(listed: ReadonlyMap<string, KubernetesObject>, keep: ReadonlySet<string>): void {
    const next = new Map<string, KubernetesObject>();
    for (const [key, object] of listed) {
      const cur = this.objects.get(key);
      next.set(key, cur !== undefined && resourceVersionOf(cur) === resourceVersionOf(object) ? cur : object);
    }
    for (const key of keep) {
      const cur = this.objects.get(key);
      if (cur !== undefined && !next.has(key)) next.set(key, cur);
    }
    this.objects = next;
  }

  /** Applies watch events in order. */
  apply(events: readonly FeedEvent[]): void {
    for (const e of events) {
      const key = tryKeyOf(e.object);
      if (key === undefined) continue;
      if (e.type === 'DELETED') this.objects.delete(key);
      else this.objects.set(key, e.object);
    }
  }
}
