// Cluster IPs and node ports for Services: allocated from the server's ranges, checked when asked for by number.
import { isJsonObject, objectField, type JsonObject } from '../apimachinery/json.js';
import { allocatable, allocationOrder, formatIpv4, parseIpv4 } from '../apimachinery/ipv4Range.js';
import { invalid, type FieldCause } from '../apimachinery/statusError.js';
import type { ResourceType } from '../kinds/resourceType.js';
import type { ServerState } from '../state/serverState.js';
import type { StoredObject } from '../storage/storedObject.js';

/** The node port range of a default kube-apiserver (`--service-node-port-range`). */
export const NODE_PORT_RANGE = { first: 30_000, last: 32_767 } as const;

const SERVICES = '/services';

/**
 * Gives a Service what kube-apiserver allocates: a cluster IP from {@link ServerState.serviceIpRange} (unless headless
 * or ExternalName) and a node port for every port of a NodePort or LoadBalancer Service. Addresses asked for by number
 * are honoured when free and in range. What is in use is read from the stored Services, so deleting a Service
 * releases its addresses with it, and a dry run holds nothing.
 *
 * @throws StatusError `422 Invalid` for a cluster IP that is taken, outside the range or not an IP, a cluster IP
 *   changed after it was set, a node port that is taken or outside 30000–32767, or one on a ClusterIP Service.
 */
export function allocateServiceAddresses(obj: StoredObject, before: StoredObject | undefined, state: ServerState, rt: ResourceType): void {
  const spec = isJsonObject(obj.spec) ? obj.spec : (obj.spec = {});
  const others = state.store
    .list(SERVICES)
    .filter((s) => !(s.metadata.name === obj.metadata.name && s.metadata.namespace === obj.metadata.namespace));
  const causes: FieldCause[] = [];
  if (spec.type !== 'ExternalName') clusterIp(spec, objectField(before, 'spec'), others, state, causes);
  nodePorts(spec, others, causes);
  if (causes.length > 0) throw invalid(rt.kind, obj.metadata.name, causes, rt.group);
}

function clusterIp(spec: JsonObject, old: JsonObject | undefined, others: StoredObject[], state: ServerState, causes: FieldCause[]): void {
  const oldIp = old && old.type !== 'ExternalName' ? old.clusterIP : undefined;
  if (typeof oldIp === 'string' && oldIp !== '') {
    if (spec.clusterIP !== oldIp) {
      causes.push({
        field: 'spec.clusterIPs[0]',
        message: `Invalid value: ${JSON.stringify(spec.clusterIP ?? '')}: may not change once set`,
      });
    }
    return;
  }
  const range = state.serviceIpRange;
  const used = new Set(others.map((s) => objectField(s, 'spec')?.clusterIP).filter((ip): ip is string => typeof ip === 'string'));
  const requested = spec.clusterIP;
  if (requested === 'None') {
    spec.clusterIPs = ['None'];
    return;
  }
  if (typeof requested === 'string' && requested !== '') {
    const ip = parseIpv4(requested);
    const refuse = (why: string): void => {
      causes.push({
        field: 'spec.clusterIPs',
        message: `Invalid value: ${JSON.stringify([requested])}: failed to allocate IP ${requested}: ${why}`,
      });
    };
    if (ip === undefined) {
      causes.push({
        field: 'spec.clusterIPs[0]',
        message: `Invalid value: ${JSON.stringify(requested)}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      });
    } else if (!allocatable(range, ip)) {
      refuse(`the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${range.cidr}`);
    } else if (used.has(requested)) {
      refuse('provided IP is already allocated');
    }
    spec.clusterIPs = [requested];
    return;
  }
  for (const ip of allocationOrder(range)) {
    const text = formatIpv4(ip);
    if (used.has(text)) continue;
    spec.clusterIP = text;
    spec.clusterIPs = [text];
    return;
  }
  causes.push({ field: 'spec.clusterIPs', message: `Internal error: failed to allocate a serviceIP: range is full (${range.cidr})` });
}

function nodePorts(spec: JsonObject, others: StoredObject[], causes: FieldCause[]): void {
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isJsonObject) : [];
  const wanted = spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
  if (!wanted) {
    if (spec.type === 'ClusterIP' || spec.type === 'ExternalName') {
      ports.forEach((p, i) => {
        if (p.nodePort)
          causes.push({
            field: `spec.ports[${i}].nodePort`,
            message: `Forbidden: may not be used when \`type\` is '${String(spec.type)}'`,
            reason: 'FieldValueForbidden',
          });
      });
    }
    return;
  }
  const used = new Set<number>();
  for (const s of others) {
    for (const p of (objectField(s, 'spec')?.ports as unknown[] | undefined) ?? [])
      if (isJsonObject(p) && typeof p.nodePort === 'number') used.add(p.nodePort);
  }
  // One Service may give the same node port to two ports that differ in protocol (DNS on TCP and UDP).
  const own = new Map<number, unknown>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const n = p.nodePort;
    const field = `spec.ports[${i}].nodePort`;
    if (typeof n !== 'number' || n < NODE_PORT_RANGE.first || n > NODE_PORT_RANGE.last) {
      const message = `Invalid value: ${JSON.stringify(n)}: provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE.first}-${NODE_PORT_RANGE.last}`;
      causes.push({ field, message });
    } else if (used.has(n) || (own.has(n) && own.get(n) === p.protocol)) {
      causes.push({ field, message: `Invalid value: ${n}: provided port is already allocated` });
    }
    if (typeof n === 'number') own.set(n, p.protocol);
  });
  let next: number = NODE_PORT_RANGE.first;
  for (const p of ports) {
    if (p.nodePort) continue;
    while (next <= NODE_PORT_RANGE.last && (used.has(next) || own.has(next))) next++;
    if (next > NODE_PORT_RANGE.last) {
      causes.push({ field: 'spec.ports', message: 'Internal error: failed to allocate a nodePort: range is full' });
      return;
    }
    p.nodePort = next;
    own.set(next, p.protocol);
  }
}
