// The defaults kube-apiserver fills into a Service, and what it carries over from the stored Service on update.
import { isJsonObject, jsonEqual, objectField, type JsonObject, type JsonValue } from '../apimachinery/json.js';
import type { StoredObject } from '../storage/storedObject.js';

/** How long a `ClientIP` session affinity lasts unless the Service says otherwise (3 hours). */
export const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10_800;

/**
 * Fills a Service's defaults, in place: `type: ClusterIP`, `sessionAffinity: None` (a `ClientIP` affinity gets its
 * timeout), port `protocol: TCP` and `targetPort` = `port`, `internalTrafficPolicy: Cluster` (not for ExternalName),
 * `externalTrafficPolicy: Cluster` for externally reachable Services, `allocateLoadBalancerNodePorts: true` for load
 * balancers (and `ipMode: VIP` on their status ingress IPs), and the IP families of a single-stack IPv4 cluster (`ipFamilies: [IPv4]`; `ipFamilyPolicy: SingleStack`,
 * or `RequireDualStack` for a headless Service without selector, as a real server picks).
 *
 * On update (`before` set), what the server allocated and the body leaves out is carried over: cluster IPs, IP
 * families, node ports of the same port and protocol, the health check node port. A switch to ExternalName drops the
 * cluster IPs and families the Service had, and a switch to ClusterIP the node ports it had, as a real server does.
 */
export function defaultService(obj: JsonObject, before: StoredObject | undefined): void {
  const spec = isJsonObject(obj.spec) ? obj.spec : (obj.spec = {});
  setIfAbsent(spec, 'type', 'ClusterIP');
  setIfAbsent(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = objectField(objectField(spec, 'sessionAffinityConfig'), 'clientIP')?.timeoutSeconds;
    if (timeout == null) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_TIMEOUT_SECONDS } };
  }
  for (const p of objectsIn(spec.ports)) {
    setIfAbsent(p, 'protocol', 'TCP');
    if (p.targetPort == null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port ?? 0;
  }
  const type = spec.type;
  const externallyReachable =
    type === 'LoadBalancer' || type === 'NodePort' || (Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (externallyReachable) setIfAbsent(spec, 'externalTrafficPolicy', 'Cluster');
  if (type !== 'ExternalName') setIfAbsent(spec, 'internalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer') {
    setIfAbsent(spec, 'allocateLoadBalancerNodePorts', true);
    for (const ingress of objectsIn(objectField(objectField(obj, 'status'), 'loadBalancer')?.ingress)) {
      if (ingress.ip && !ingress.ipMode) ingress.ipMode = 'VIP';
    }
  }
  const old = objectField(before, 'spec');
  if (old) carryOver(spec, old);
  if (type === 'ExternalName') return;
  syncClusterIps(spec);
  setIfAbsent(spec, 'ipFamilies', ['IPv4']);
  const headlessWithoutSelector = spec.clusterIP === 'None' && !(isJsonObject(spec.selector) && Object.keys(spec.selector).length > 0);
  setIfAbsent(spec, 'ipFamilyPolicy', headlessWithoutSelector ? 'RequireDualStack' : 'SingleStack');
}

// `clusterIP` and `clusterIPs[0]` name the same address; a client may set either.
function syncClusterIps(spec: JsonObject): void {
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (isEmpty(spec.clusterIP) && typeof ips[0] === 'string' && ips[0] !== '') spec.clusterIP = ips[0];
  if (!isEmpty(spec.clusterIP) && ips.length === 0) spec.clusterIPs = [spec.clusterIP!];
}

function carryOver(spec: JsonObject, old: JsonObject): void {
  if (spec.type === 'ExternalName') {
    if (old.type !== 'ExternalName') {
      for (const f of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) if (jsonEqual(spec[f], old[f])) delete spec[f];
    }
    return;
  }
  if (isEmpty(spec.clusterIP) && (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) && !isEmpty(old.clusterIP)) {
    spec.clusterIP = old.clusterIP!;
    if (old.clusterIPs !== undefined) spec.clusterIPs = structuredClone(old.clusterIPs);
  }
  for (const f of ['ipFamilies', 'ipFamilyPolicy']) if (spec[f] === undefined && old[f] !== undefined) spec[f] = structuredClone(old[f]!);
  const oldPorts = objectsIn(old.ports);
  const hadNodePorts = old.type === 'NodePort' || old.type === 'LoadBalancer';
  if (hadNodePorts && spec.type === 'ClusterIP') {
    // Node ports the client merely kept from the old Service go with the type that needed them.
    for (const p of objectsIn(spec.ports)) if (p.nodePort && oldPorts.some((o) => o.nodePort === p.nodePort)) delete p.nodePort;
    if (spec.healthCheckNodePort === old.healthCheckNodePort) delete spec.healthCheckNodePort;
  }
  for (const p of objectsIn(spec.ports)) {
    if (p.nodePort) continue;
    const same = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === p.protocol && o.nodePort);
    if (same && (spec.type === 'NodePort' || spec.type === 'LoadBalancer')) p.nodePort = same.nodePort!;
  }
  if (spec.healthCheckNodePort == null && old.healthCheckNodePort != null && spec.type === 'LoadBalancer') {
    spec.healthCheckNodePort = old.healthCheckNodePort;
  }
}

function isEmpty(v: JsonValue | undefined): boolean {
  return v === undefined || v === null || v === '';
}

function setIfAbsent(obj: JsonObject, key: string, value: JsonValue): void {
  if (isEmpty(obj[key])) obj[key] = value;
}

function objectsIn(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}
