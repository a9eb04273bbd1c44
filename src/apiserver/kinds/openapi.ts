// Minimal OpenAPI v3 documents: just enough for kubectl to use server-side field validation.
import { createHash } from 'node:crypto';
import type { JsonObject } from '../apimachinery/json.js';
import type { ResourceRegistry } from './resourceRegistry.js';

/**
 * `GET /openapi/v3`: one entry per served group/version. The `hash` changes when the resources of a
 * group/version change (a CRD appears), so kubectl's on-disk cache does not serve a stale document.
 */
export function openApiIndexDoc(registry: ResourceRegistry): JsonObject {
  const paths: JsonObject = {};
  const gvs = new Set(registry.all().map((rt) => rt.groupVersion));
  for (const gv of gvs) {
    const key = gvPath(gv);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(openApiGroupVersionDoc(registry, gv)!)}` };
  }
  return { paths };
}

/**
 * `GET /openapi/v3/api/v1` or `/openapi/v3/apis/G/V`, or `undefined` for an unknown group/version.
 *
 * kubectl (`create`, `apply`, `replace`) validates manifests before sending them. It first asks this
 * document whether the PATCH operation of the object's kind accepts the `fieldValidation` query
 * parameter; if so it leaves validation to the server and sends `?fieldValidation=Strict`, otherwise it
 * downloads full schemas (and fails when there are none). So each kind gets one PATCH operation
 * tagged with its group/version/kind and that parameter. There are deliberately no component schemas:
 * without them kubectl's client-side apply falls back to its compiled-in types (built-ins) or a merge
 * patch (custom resources), as with a real server that has no schema for a kind. This server does not
 * validate fields (it has no schemas), so `Strict` is accepted and not enforced.
 */
export function openApiGroupVersionDoc(registry: ResourceRegistry, groupVersion: string): JsonObject | undefined {
  const types = registry.resourcesOf(groupVersion);
  if (types.length === 0) return undefined;
  const paths: JsonObject = {};
  for (const rt of types) {
    const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
    const path = rt.namespaced ? `${base}/namespaces/{namespace}/${rt.plural}/{name}` : `${base}/${rt.plural}/{name}`;
    paths[path] = {
      patch: {
        operationId: `patch${rt.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: rt.group, version: rt.version, kind: rt.kind },
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string' } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string' } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string' } },
          { name: 'force', in: 'query', schema: { type: 'boolean' } },
        ],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0-rxkrt' },
    paths,
    components: { schemas: {} },
  };
}

/** `api/v1` for the core group, `apis/G/V` otherwise. */
export function gvPath(groupVersion: string): string {
  return groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`;
}

function hashOf(doc: JsonObject): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
}
