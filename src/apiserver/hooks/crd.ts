// CustomResourceDefinitions: validation, the status a real server reports, and serving their kinds.
import { isJsonObject, objectField, stringField, stringsOf, type JsonObject } from '../apimachinery/json.js';
import { invalid } from '../apimachinery/statusError.js';
import { formatTime } from '../apimachinery/clock.js';
import type { KindHooks } from '../state/serverState.js';
import type { StoredObject } from '../storage/storedObject.js';
import { crdResourceTypes, crdStorageKey } from '../kinds/crdKinds.js';

/** Hooks for CustomResourceDefinition objects: validate, report status, serve and retire kinds. */
export const crdHooks: KindHooks = {
  validate(obj, before, rt) {
    const causes = crdProblems(obj, before);
    if (causes.length) throw invalid(rt.kind, obj.metadata.name, causes, rt.group);
  },
  prepare(obj, before, state) {
    obj.status = crdStatus(obj, objectField(before, 'status'), formatTime(state.clock.now()));
  },
  afterWrite(obj, state) {
    // Replace, not add: a version may have stopped being served.
    const types = crdResourceTypes(obj);
    state.registry.removeStorage(types[0]?.storageKey ?? crdStorageKey(obj));
    for (const t of types) state.registry.add(t);
  },
  beforeRemove(obj, state) {
    // A real server deletes every instance before the CRD goes away; so do we, emitting DELETED.
    const key = crdStorageKey(obj);
    for (const o of state.store.list(key)) state.store.remove(key, structuredClone(o) as StoredObject);
  },
  afterRemove(obj, state) {
    state.registry.removeStorage(crdStorageKey(obj));
  },
};

function crdProblems(obj: StoredObject, before: StoredObject | undefined): Array<{ field: string; message: string }> {
  const causes: Array<{ field: string; message: string }> = [];
  const spec = objectField(obj, 'spec');
  const group = stringField(spec, 'group');
  const names = objectField(spec, 'names');
  const plural = stringField(names, 'plural');
  const kind = stringField(names, 'kind');
  if (!group || !group.includes('.'))
    causes.push({
      field: 'spec.group',
      message: `Invalid value: ${JSON.stringify(group ?? '')}: should be a domain with at least one dot`,
    });
  if (!plural || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(plural))
    causes.push({ field: 'spec.names.plural', message: 'Required value: a lowercase DNS-1035 label' });
  if (!kind) causes.push({ field: 'spec.names.kind', message: 'Required value' });
  if (spec?.scope !== 'Namespaced' && spec?.scope !== 'Cluster')
    causes.push({ field: 'spec.scope', message: 'Unsupported value: must be "Namespaced" or "Cluster"' });
  const versions = Array.isArray(spec?.versions) ? spec.versions : [];
  if (versions.length === 0) causes.push({ field: 'spec.versions', message: 'Required value: must have at least one version' });
  versions.forEach((v, i) => {
    if (!isJsonObject(v) || !stringField(v, 'name')) causes.push({ field: `spec.versions[${i}].name`, message: 'Required value' });
  });
  // A real server insists on exactly one storage version; we only reject more than one (and take the
  // first version otherwise), so short test CRDs need not spell `storage: true`.
  if (versions.filter((v) => isJsonObject(v) && v.storage === true).length > 1) {
    causes.push({ field: 'spec.versions', message: 'Invalid value: must have exactly one version marked as storage version' });
  }
  if (group && plural && obj.metadata.name !== `${plural}.${group}`) {
    causes.push({
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(obj.metadata.name)}: must be spec.names.plural+"."+spec.group`,
    });
  }
  if (before) {
    const old = objectField(before, 'spec');
    if (stringField(old, 'group') !== group) causes.push({ field: 'spec.group', message: 'Invalid value: field is immutable' });
    if (old?.scope !== spec?.scope) causes.push({ field: 'spec.scope', message: 'Invalid value: field is immutable' });
  }
  return causes;
}

function crdStatus(crd: StoredObject, previous: JsonObject | undefined, now: string): JsonObject {
  const spec = objectField(crd, 'spec') ?? {};
  const names = objectField(spec, 'names') ?? {};
  const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isJsonObject);
  const storage = versions.find((v) => v.storage === true) ?? versions.at(0);
  const since = (type: string): string => {
    const old = (Array.isArray(previous?.conditions) ? previous.conditions : []).filter(isJsonObject).find((c) => c.type === type);
    return stringField(old, 'lastTransitionTime') ?? now;
  };
  const stored = new Set(stringsOf(previous?.storedVersions));
  if (storage) stored.add(String(storage.name));
  return {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        reason: 'NoConflicts',
        message: 'no conflicts found',
        lastTransitionTime: since('NamesAccepted'),
      },
      {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
        lastTransitionTime: since('Established'),
      },
    ],
    acceptedNames: {
      plural: names.plural ?? '',
      singular: names.singular ?? String(names.kind ?? '').toLowerCase(),
      kind: names.kind ?? '',
      listKind: names.listKind ?? `${String(names.kind ?? '')}List`,
      ...(names.shortNames ? { shortNames: names.shortNames } : {}),
      ...(names.categories ? { categories: names.categories } : {}),
    },
    storedVersions: [...stored],
  };
}
