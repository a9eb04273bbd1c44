// Informers that would LIST and WATCH the same thing share one feed, counted by its users.
import type { KubeConfig } from '@kubernetes/client-node';
import type { ResourceRef } from './resourcePath.js';
import type { InformerOptions } from './informerOptions.js';
import { InformerFeed } from './informerFeed.js';

/**
 * Numbers for the functions and schedulers a sharing key names: only the same object shares, and a
 * WeakMap keeps the registry from holding them alive.
 */
const identities = new WeakMap<object, number>();
let nextIdentity = 1;

function identityOf(o: object | undefined): number {
  if (o === undefined) return 0;
  let id = identities.get(o);
  if (id === undefined) identities.set(o, (id = nextIdentity++));
  return id;
}

/** Feeds by KubeConfig (another config may carry other credentials), then by what they LIST and WATCH. */
const feeds = new WeakMap<KubeConfig, Map<string, InformerFeed>>();

/**
 * What two informers must agree on to share: the resource (apiVersion, kind, plural, namespace), both
 * selectors, what is admitted and stored (metadata only, stripped, which transform, opaque resourceVersions),
 * whether a missing CRD is waited for, and the schedulers (a test's virtual clock must not drive a production
 * informer's timers). The rest of the feed's options (backoff, page size, timeouts, poll interval) are the
 * first user's: they tune how the shared LIST and WATCH recover, not what a user sees. Each user's collection
 * options (name, stop, key, equals, metadata, debugger) stay its own.
 */
export function sharingKey(ref: ResourceRef, opts: InformerOptions | undefined): string {
  return JSON.stringify([
    ref.apiVersion,
    ref.kind,
    ref.plural ?? '',
    ref.namespace ?? '',
    ref.labelSelector ?? '',
    ref.fieldSelector ?? '',
    opts?.metadataOnly === true,
    opts?.stripServerFields === true,
    opts?.opaqueResourceVersions === true,
    opts?.waitForResource !== false,
    identityOf(opts?.transform),
    identityOf(opts?.scheduler),
    identityOf(opts?.timerScheduler),
  ]);
}

/** The feed for `ref` on `kc`: a running one with the same sharing key, or a new one (unshared if asked). */
export function feedFor(kc: KubeConfig, ref: ResourceRef, opts: InformerOptions | undefined): InformerFeed {
  if (opts?.shared === false) return new InformerFeed(kc, ref, opts, () => {});
  let byKey = feeds.get(kc);
  if (byKey === undefined) feeds.set(kc, (byKey = new Map()));
  const key = sharingKey(ref, opts);
  const running = byKey.get(key);
  if (running !== undefined) return running;
  const table = byKey;
  const feed = new InformerFeed(kc, ref, opts, () => {
    if (table.get(key) === feed) table.delete(key);
  });
  table.set(key, feed);
  return feed;
}
