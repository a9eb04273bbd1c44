// The kinds a CustomResourceDefinition serves, and where their objects are stored.
import { isJsonObject, objectField, stringField, stringsOf, type JsonObject } from '../apimachinery/json.js';
import { resourceType, type ResourceType } from './resourceType.js';

/** Storage key of CustomResourceDefinition objects. */
export const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';

/**
 * The resource types a CRD serves: one per version with `served: true`. Fields the server does not
 * need (`schema`, printer columns) are ignored; `selectableFields` become field-selector keys.
 */
export function crdResourceTypes(crd: JsonObject): ResourceType[] {
  const spec = objectField(crd, 'spec') ?? {};
  const names = objectField(spec, 'names') ?? {};
  const kind = stringField(names, 'kind')!;
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isJsonObject) : [];
  return versions
    .filter((v) => v.served !== false)
    .map((v) => {
      const sub = objectField(v, 'subresources') ?? objectField(spec, 'subresources');
      const fields = Array.isArray(v.selectableFields) ? v.selectableFields.filter(isJsonObject) : [];
      return {
        ...resourceType({
          group: stringField(spec, 'group')!,
          version: stringField(v, 'name')!,
          kind,
          namespaced: spec.scope !== 'Cluster',
          plural: stringField(names, 'plural'),
          singular: stringField(names, 'singular') || kind.toLowerCase(),
          statusSubresource: isJsonObject(sub?.status),
          shortNames: stringsOf(names.shortNames),
          categories: stringsOf(names.categories),
          selectableFields: fields.map((f) => String(f.jsonPath ?? '').replace(/^\./, '')).filter(Boolean),
          custom: true,
        }),
        listKind: stringField(names, 'listKind') || `${kind}List`,
      };
    });
}

/** The storage key of the objects a CRD defines: `group/plural`. */
export function crdStorageKey(crd: JsonObject): string {
  const spec = objectField(crd, 'spec');
  return `${stringField(spec, 'group')}/${stringField(objectField(spec, 'names'), 'plural')}`;
}
