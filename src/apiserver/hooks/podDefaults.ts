// The defaults kube-apiserver fills into a Pod spec, its containers and probes, in Pods and in workload templates.
import { isJsonObject, objectField, type JsonObject, type JsonValue } from '../apimachinery/json.js';

/**
 * Fills a pod spec's defaults, in place. `pod` is true for a Pod itself: `enableServiceLinks: true`, and container
 * resource requests copied from limits where absent, are only filled there, not in a workload's template (a real
 * server defaults them on the Pod object only).
 *
 * Spec: `dnsPolicy: ClusterFirst`, `restartPolicy: Always`, `securityContext: {}`, `terminationGracePeriodSeconds: 30`,
 * `schedulerName: default-scheduler`. Every container (init and ephemeral too): `imagePullPolicy` (`Always` for a
 * `:latest` or untagged image, else `IfNotPresent`), `terminationMessagePath: /dev/termination-log`,
 * `terminationMessagePolicy: File`, port `protocol: TCP` (and `hostPort` = `containerPort` on the host network),
 * probe timings, `httpGet` path and scheme, and the `defaultMode` of secret, config map, downward API and projected
 * volumes; a volume without a source becomes an `emptyDir`.
 */
export function defaultPodSpec(spec: JsonObject, pod: boolean): void {
  setIfAbsent(spec, 'dnsPolicy', 'ClusterFirst');
  setIfAbsent(spec, 'restartPolicy', 'Always');
  if (!isJsonObject(spec.securityContext)) spec.securityContext = {};
  setIfAbsent(spec, 'terminationGracePeriodSeconds', 30);
  setIfAbsent(spec, 'schedulerName', 'default-scheduler');
  if (pod) {
    setIfAbsent(spec, 'enableServiceLinks', true);
    for (const c of [...objectsIn(spec.containers), ...objectsIn(spec.initContainers)]) requestsFromLimits(c);
  }
  const hostNetwork = spec.hostNetwork === true;
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of objectsIn(spec[list])) defaultContainer(c, hostNetwork);
  }
  for (const v of objectsIn(spec.volumes)) defaultVolume(v);
}

/** Fills the defaults of a workload's `spec.template` (a pod template), in place; nothing when there is none. */
export function defaultPodTemplate(workloadSpec: JsonObject | undefined): void {
  const template = objectField(workloadSpec, 'template');
  if (!template) return;
  const spec = isJsonObject(template.spec) ? template.spec : (template.spec = {});
  defaultPodSpec(spec, false);
}

/** `Always` for an image tagged `latest` or not tagged at all (a digest counts as a tag), else `IfNotPresent`. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  const tag = colon < 0 ? 'latest' : lastSegment.slice(colon + 1);
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: JsonObject, hostNetwork: boolean): void {
  setIfAbsent(c, 'imagePullPolicy', defaultPullPolicy(typeof c.image === 'string' ? c.image : ''));
  setIfAbsent(c, 'terminationMessagePath', '/dev/termination-log');
  setIfAbsent(c, 'terminationMessagePolicy', 'File');
  for (const p of objectsIn(c.ports)) {
    setIfAbsent(p, 'protocol', 'TCP');
    if (hostNetwork && !p.hostPort && typeof p.containerPort === 'number') p.hostPort = p.containerPort;
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const pr = objectField(c, probe);
    if (!pr) continue;
    for (const [k, v] of [
      ['timeoutSeconds', 1],
      ['periodSeconds', 10],
      ['successThreshold', 1],
      ['failureThreshold', 3],
    ] as const) {
      if (!pr[k]) pr[k] = v;
    }
    const http = objectField(pr, 'httpGet');
    if (http) {
      setIfAbsent(http, 'path', '/');
      setIfAbsent(http, 'scheme', 'HTTP');
    }
  }
}

function requestsFromLimits(c: JsonObject): void {
  const resources = objectField(c, 'resources');
  const limits = objectField(resources, 'limits');
  if (!resources || !limits) return;
  const requests = isJsonObject(resources.requests) ? resources.requests : (resources.requests = {});
  for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined && v !== undefined) requests[k] = v;
}

// The volume sources whose files get a mode by default: 0644 (420 in decimal, as JSON carries it).
const MODE_SOURCES = ['secret', 'configMap', 'downwardAPI', 'projected'];

function defaultVolume(v: JsonObject): void {
  const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== null && v[k] !== undefined);
  if (sources.length === 0) v.emptyDir = {};
  for (const source of MODE_SOURCES) {
    const s = objectField(v, source);
    if (s) setIfAbsent(s, 'defaultMode', 420);
  }
}

function setIfAbsent(obj: JsonObject, key: string, value: JsonValue): void {
  if (obj[key] === undefined || obj[key] === null || obj[key] === '') obj[key] = value;
}

function objectsIn(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}
