// Serves resource routes: GET/list/watch, POST, PUT, PATCH, DELETE and deletecollection on one resource.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { objectField, stringField, type JsonObject } from '../apimachinery/json.js';
import { parseDeleteQuery, parsePatchQuery, parseWriteQuery, wantsPretty } from '../apimachinery/queryParams.js';
import { methodNotAllowed, notFound } from '../apimachinery/statusError.js';
import { createObject } from '../objects/createObject.js';
import { deleteObject } from '../objects/deleteObject.js';
import { listObjects } from '../objects/listObjects.js';
import { partialObjectMetadata, partialObjectMetadataList, wantsPartialObjectMetadata } from './partialObjectMetadata.js';
import { parseListOptions, present } from '../objects/listOptions.js';
import { patchObject } from '../objects/patchObject.js';
import { patchScale, readScale, updateScale } from '../objects/scaleObject.js';
import { updateObject } from '../objects/updateObject.js';
import { patchTypeOf } from '../patch/applyPatch.js';
import type { ServerState } from '../state/serverState.js';
import type { WatchHub } from '../watch/watchHub.js';
import { prettyPrint, readJsonBody, sendJson } from '../apimachinery/jsonBodies.js';
import type { Route } from './router.js';
import { checkAcceptsJson } from './acceptNegotiation.js';
import { readObjectBody, readOptionsBody } from './objectBody.js';

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
  const userAgent = req.headers['user-agent'];
  if (wantsPretty(params, userAgent)) prettyPrint(res);
  const defaultManager = managerFromUserAgent(userAgent);
  checkAcceptsJson(req.headers.accept);

  if (subresource === 'scale' && name !== undefined) {
    const query = method === 'PATCH' ? parsePatchQuery(params, false) : parseWriteQuery(params, 'UpdateOptions');
    return handleScale(state, req, res, route, name, { manager: query.fieldManager ?? defaultManager, dryRun: query.dryRun });
  }
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
    const query = parseWriteQuery(params, 'CreateOptions');
    const body = await readObjectBody(req, rt);
    const created = createObject(state, rt, namespace, body, { manager: query.fieldManager ?? defaultManager, dryRun: query.dryRun });
    return sendJson(res, 201, present(created, rt));
  }
  if (method === 'PUT' && name !== undefined) {
    const query = parseWriteQuery(params, 'UpdateOptions');
    const body = await readObjectBody(req, rt);
    const manager = query.fieldManager ?? defaultManager;
    const updated = updateObject(state, rt, namespace, name, body, { subresource, manager, dryRun: query.dryRun });
    return sendJson(res, 200, present(updated, rt));
  }
  if (method === 'PATCH' && name !== undefined) {
    const type = patchTypeOf(req.headers['content-type']);
    const query = parsePatchQuery(params, type === 'apply');
    const { object, created } = patchObject(state, rt, namespace, name, type, await readJsonBody(req), {
      subresource,
      fieldManager: query.fieldManager,
      defaultManager,
      force: query.force ?? false,
      dryRun: query.dryRun,
    });
    return sendJson(res, created ? 201 : 200, present(object, rt));
  }
  if (method === 'DELETE' && !subresource) {
    const options = parseDeleteQuery(params, await readOptionsBody(req));
    if (name !== undefined) return sendJson(res, 200, present(deleteObject(state, rt, namespace, name, options), rt));
    // deletecollection: delete whatever the selectors pick, answer with the deleted objects.
    const list = listObjects(state, rt, namespace, parseListOptions(rt, params));
    const items = (list.items as JsonObject[]).map((o) => {
      const meta = objectField(o, 'metadata');
      const { preconditions: _each, ...forEach } = options;
      return present(deleteObject(state, rt, stringField(meta, 'namespace'), stringField(meta, 'name')!, forEach), rt);
    });
    return sendJson(res, 200, { ...list, items, metadata: { resourceVersion: String(state.store.resourceVersion()) } });
  }
  throw methodNotAllowed(method);
}

async function handleScale(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  route: ResourceRoute,
  name: string,
  opts: { manager: string; dryRun: boolean },
): Promise<void> {
  const { rt, namespace } = route;
  const method = req.method ?? 'GET';
  if (method === 'GET') return sendJson(res, 200, readScale(state, rt, namespace, name));
  if (method === 'PUT') return sendJson(res, 200, updateScale(state, rt, namespace, name, await readJsonBody(req), opts));
  if (method === 'PATCH') {
    const type = patchTypeOf(req.headers['content-type']);
    return sendJson(res, 200, patchScale(state, rt, namespace, name, type, await readJsonBody(req), opts));
  }
  throw methodNotAllowed(method);
}

function getObject(state: ServerState, route: ResourceRoute, name: string): JsonObject {
  const obj = state.store.get(route.rt.storageKey, route.namespace, name);
  if (!obj) throw notFound(route.rt.plural, name, route.rt.group);
  return present(obj, route.rt);
}

// A real server names the manager of an Update after the client's User-Agent ("kubectl/v1.32 …" → "kubectl").
function managerFromUserAgent(ua: string | undefined): string {
  return ua?.split('/')[0]?.trim() || 'unknown';
}
