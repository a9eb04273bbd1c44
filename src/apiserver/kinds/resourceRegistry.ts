// The kind registry: which resources are served at which group/version, built-ins plus CRD-defined kinds.
import { BUILTIN_KINDS } from './builtinKinds.js';
import type { ResourceType } from './resourceType.js';

/**
 * Maps `group/version` + plural (or kind) to a {@link ResourceType}. CRD kinds come and go at run time
 * (see `crd.ts`); every lookup reads the current state, so a kind is servable as soon as it is added.
 */
export class ResourceRegistry {
  private readonly byGroupVersion = new Map<string, Map<string, ResourceType>>();

  constructor(builtins: readonly ResourceType[] = BUILTIN_KINDS) {
    for (const rt of builtins) this.add(rt);
  }

  /** Serves `rt` at its group/version, replacing any type with the same plural there. */
  add(rt: ResourceType): void {
    let byPlural = this.byGroupVersion.get(rt.groupVersion);
    if (!byPlural) this.byGroupVersion.set(rt.groupVersion, (byPlural = new Map()));
    byPlural.set(rt.plural, rt);
  }

  /** Stops serving every version whose objects live under `storageKey` (all versions of one CRD). */
  removeStorage(storageKey: string): void {
    for (const [gv, byPlural] of this.byGroupVersion) {
      for (const [plural, rt] of byPlural) if (rt.storageKey === storageKey) byPlural.delete(plural);
      if (byPlural.size === 0) this.byGroupVersion.delete(gv);
    }
  }

  /** The type served at `groupVersion` under `plural`, if any. */
  byPlural(groupVersion: string, plural: string): ResourceType | undefined {
    return this.byGroupVersion.get(groupVersion)?.get(plural);
  }

  /** The type served at `groupVersion` with `kind`, if any. */
  byKind(groupVersion: string, kind: string): ResourceType | undefined {
    for (const rt of this.byGroupVersion.get(groupVersion)?.values() ?? []) if (rt.kind === kind) return rt;
    return undefined;
  }

  /** Every type served at `groupVersion`, in registration order. */
  resourcesOf(groupVersion: string): ResourceType[] {
    return [...(this.byGroupVersion.get(groupVersion)?.values() ?? [])];
  }

  /** Every served type, all group/versions. */
  all(): ResourceType[] {
    return [...this.byGroupVersion.values()].flatMap((m) => [...m.values()]);
  }

  /** Every type sharing a storage key, i.e. every served version of one resource. */
  versionsOf(storageKey: string): ResourceType[] {
    return this.all().filter((rt) => rt.storageKey === storageKey);
  }

  /** Named groups (not the core group) with their served versions. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const rt of this.all()) {
      if (!rt.group) continue;
      const versions = out.get(rt.group) ?? [];
      if (!versions.includes(rt.version)) versions.push(rt.version);
      out.set(rt.group, versions);
    }
    return out;
  }
}
