// POST: the create rules of a real API server (names, namespaces, server-set metadata, AlreadyExists).
import { randomUUID } from 'node:crypto';
import { alreadyExists, badRequest, invalid, notFound, StatusError } from '../apimachinery/statusError.js';
import { formatTime } from '../apimachinery/clock.js';
import type { ResourceType } from '../kinds/resourceType.js';
import { encodeOwners, fieldScope, recordUpdate } from '../patch/managedFields.js';
import type { ServerState } from '../state/serverState.js';
import { zeroStatusOf } from '../apimachinery/protobuf/zeroStatus.js';
import type { StoredObject } from '../storage/storedObject.js';
import { checkTypeMeta, generatedName, SERVER_METADATA, validateName } from './objectMeta.js';
import { validateMetadata } from './validateMetadata.js';
import type { WriteOptions } from './writeOptions.js';

/**
 * Creates an object of `rt` from a request body and returns it as stored (with uid, resourceVersion,
 * generation 1 and creationTimestamp). `namespace` is the URL's namespace for namespaced kinds.
 *
 * @throws StatusError `404` when the namespace does not exist, `409 AlreadyExists` for a taken name,
 *   `422 Invalid` for a missing or malformed name or a kind/apiVersion that does not match the URL,
 *   `400` when the body's namespace contradicts the URL.
 */
export function createObject(
  state: ServerState,
  rt: ResourceType,
  namespace: string | undefined,
  body: unknown,
  opts: WriteOptions,
): StoredObject {
  const obj = checkTypeMeta(rt, body);
  const hooks = state.hooks.get(rt.storageKey);
  hooks?.defaults?.(obj, undefined, state);
  const meta = obj.metadata;
  if (rt.namespaced) {
    const ns = namespaceFor(meta.namespace, namespace);
    if (!state.store.get('/namespaces', undefined, ns)) throw notFound('namespaces', ns);
    meta.namespace = ns;
  } else {
    delete meta.namespace;
  }
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    // What a real server answers (with this very code and message) when a client re-posts a read object.
    throw new StatusError(500, 'InternalError', 'resourceVersion should not be set on objects to be created');
  }
  const name = pickName(state, rt, meta.name, meta.generateName);
  validateName(rt, name);
  if (state.store.get(rt.storageKey, meta.namespace as string | undefined, name)) throw alreadyExists(rt.plural, name, rt.group);

  for (const f of [...SERVER_METADATA, 'resourceVersion', 'managedFields']) delete meta[f];
  Object.assign(meta, { name, uid: randomUUID(), creationTimestamp: formatTime(state.clock.now()), generation: 1 });
  // Kinds with a status subresource reset `.status` on create: status is written through `/status` only. A
  // built-in kind's status is a Go struct, so a real server answers its zero value, where a custom resource's is
  // gone; a Node keeps the status it was registered with, as kubelets rely on.
  if (rt.statusSubresource && !(rt.group === '' && rt.kind === 'Node')) {
    if (rt.custom) delete obj.status;
    else obj.status = zeroStatusOf(rt.groupVersion, rt.kind);
  }
  const stored = obj as StoredObject;
  hooks?.prepare?.(stored, undefined, state);
  validateMetadata(rt, stored);
  hooks?.validate?.(stored, undefined, rt);
  const owners =
    opts.ownership?.(undefined, stored) ??
    recordUpdate([], undefined, stored, {
      manager: opts.manager,
      subresource: '',
      apiVersion: rt.groupVersion,
      time: formatTime(state.clock.now()),
      scope: fieldScope(rt, ''),
    });
  stored.metadata.managedFields = encodeOwners(owners);
  if (opts.dryRun) return stored;
  const committed = state.store.put(rt.storageKey, stored);
  hooks?.afterWrite?.(committed, state);
  return committed;
}

function namespaceFor(bodyNamespace: unknown, urlNamespace: string | undefined): string {
  const fromBody = typeof bodyNamespace === 'string' && bodyNamespace !== '' ? bodyNamespace : undefined;
  if (fromBody && urlNamespace && fromBody !== urlNamespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const ns = urlNamespace ?? fromBody;
  if (!ns) throw badRequest('a namespace is required to create a namespaced object');
  return ns;
}

function pickName(state: ServerState, rt: ResourceType, name: unknown, generateName: unknown): string {
  if (typeof name === 'string' && name !== '') return name;
  if (typeof generateName === 'string' && generateName !== '') {
    // Retry on the (unlikely) collision instead of answering 409 as a real server may.
    for (let i = 0; i < 10; i++) {
      const candidate = generatedName(generateName);
      if (!state.store.list(rt.storageKey).some((o) => o.metadata.name === candidate)) return candidate;
    }
  }
  throw invalid(
    rt.kind,
    '',
    [{ field: 'metadata.name', message: 'Required value: name or generateName is required', reason: 'FieldValueRequired' }],
    rt.group,
  );
}
