// Serves resource routes: GET/list/watch, POST, PUT, PATCH, DELETE and deletecollection on one resource.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject, objectField, stringField, type JsonObject } from '../apimachinery/json.js';
import { methodNotAllowed, notFound } from '../apimachinery/statusError.js';
import { createObject } from '../objects/createObject.js';
import { deleteObject, type DeletePreconditions } from '../objects/deleteObject.js';
import { listObjects } from '../objects/listObjects.js';
import { partialObjectMetadata, partialObjectMetadataList, wantsPartialObjectMetadata } from './partialObjectMetadata.js';
import { parseListOptions, present } from '../objects/listOptions.js';
import { patchObject } from '../objects/patchObject.js';
import { updateObject } from '../objects/updateObject.js';
import { patchTypeOf } from '../patch/applyPatch.js';
import type { ServerState } from '../state/serverState.js';
import type { WatchHub } from '../watch/watchHub.js';
import { readJsonBody, sendJson } from '../apimachinery/jsonBodies.js';
import type { Route } from './router.js';

type ResourceRoute = Extract<Route, { type: 'resource' }>;

/**
 * Handles one request on a resource route. Writes go through the create/update/patch/delete rules;
 * responses are the objects as served at the route's version.
 *
 * @throws StatusError for every failure; the caller turns it into a `Status` response.
 */
export async function handleResource(
  state: ServerState,
  hub: WatchHub,
  req: IncomingMessage,
  res: ServerResponse,
  route: ResourceRoute,
  url: URL,
): Promise<void> {
  const { rt, namespace, name, subresource = '' } = route;
  const params = url.searchParams;
  const method = req.method ?? 'GET';
  const dryRun = params.getAll('dryRun').includes('All');
  const manager = params.get('fieldManager') || managerFromUserAgent(req.headers['user-agent']);

  if (method === 'GET') {
    if (name !== undefined && subresource) return sendJson(res, 200, getObject(state, route, name));
    const opts = parseListOptions(rt, params, route.watchPath);
    const metadataOnly = wantsPartialObjectMetadata(req.headers.accept);
    if (opts.watch || route.watchPath) return hub.serve(res, rt, namespace, name, opts, metadataOnly ? partialObjectMetadata : undefined);
    if (name !== undefined) return sendJson(res, 200, getObject(state, route, name));
    const list = listObjects(state, rt, namespace, opts);
    return sendJson(res, 200, metadataOnly ? partialObjectMetadataList(list) : list);
  }
  if (method === 'POST' && name === undefined) {
    // Creating needs the namespace in the path for namespaced kinds, as on a real server.
    if (rt.namespaced && namespace === undefined) throw methodNotAllowed(method);
    const created = createObject(state, rt, namespace, await readJsonBody(req), { manager, dryRun });
    return sendJson(res, 201, present(created, rt));
  }
  if (method === 'PUT' && name !== undefined) {
    const updated = updateObject(state, rt, namespace, name, await readJsonBody(req), { subresource, manager, dryRun });
    return sendJson(res, 200, present(updated, rt));
  }
  if (method === 'PATCH' && name !== undefined) {
    const type = patchTypeOf(req.headers['content-type']);
    const force = ['true', '1'].includes(params.get('force') ?? '');
    const { object, created } = patchObject(state, rt, namespace, name, type, await readJsonBody(req), {
      subresource,
      fieldManager: params.get('fieldManager') || undefined,
      defaultManager: manager,
      force,
      dryRun,
    });
    return sendJson(res, created ? 201 : 200, present(object, rt));
  }
  if (method === 'DELETE' && !subresource) {
    const preconditions = deletePreconditions(await readJsonBody(req));
    if (name !== undefined) return sendJson(res, 200, present(deleteObject(state, rt, namespace, name, { dryRun, preconditions }), rt));
    // deletecollection: delete whatever the selectors pick, answer with the deleted objects.
    const list = listObjects(state, rt, namespace, parseListOptions(rt, params));
    const items = (list.items as JsonObject[]).map((o) => {
      const meta = objectField(o, 'metadata');
      return present(deleteObject(state, rt, stringField(meta, 'namespace'), stringField(meta, 'name')!, { dryRun }), rt);
    });
    return sendJson(res, 200, { ...list, items, metadata: { resourceVersion: String(state.store.resourceVersion()) } });
  }
  throw methodNotAllowed(method);
}

function getObject(state: ServerState, route: ResourceRoute, name: string): JsonObject {
  const obj = state.store.get(route.rt.storageKey, route.namespace, name);
  if (!obj) throw notFound(route.rt.plural, name, route.rt.group);
  return present(obj, route.rt);
}

function deletePreconditions(body: unknown): DeletePreconditions | undefined {
  const pre = isJsonObject(body) ? objectField(body, 'preconditions') : undefined;
  return pre ? { resourceVersion: stringField(pre, 'resourceVersion'), uid: stringField(pre, 'uid') } : undefined;
}

// A real server names the manager of an Update after the client's User-Agent ("kubectl/v1.32 …" → "kubectl").
function managerFromUserAgent(ua: string | undefined): string {
  return ua?.split('/')[0]?.trim() || 'unknown';
}
