import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '../../../src/apiserver/apimachinery/json.js';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { patchSchemaFor } from '../../../src/apiserver/patch/patchStrategies.js';
import { applyStrategicMergePatch } from '../../../src/apiserver/patch/strategicMergePatch.js';

/** One case: a `group/Kind`, the live object, the patch and the expected result. */
type Case = [string, JsonObject, JsonObject, JsonObject];

function smp(groupKind: string, live: JsonObject, patch: JsonObject): JsonObject {
  const [group, kind] = groupKind.split('/') as [string, string];
  return applyStrategicMergePatch(live, patch, patchSchemaFor(group, kind));
}

function refusal(groupKind: string, live: JsonObject, patch: JsonObject): StatusError {
  try {
    smp(groupKind, live, patch);
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(patch)}`);
}

const podSpec = (spec: JsonObject): JsonObject => ({ spec });
const template = (spec: JsonObject): JsonObject => ({ spec: { template: { spec } } });
const c = (name: string, more: JsonObject = {}): JsonObject => ({ name, ...more });

describe('applyStrategicMergePatch', () => {
  // Each case's expectation comes from the Kubernetes docs ("Update API Objects in Place Using kubectl patch",
  // the strategic merge patch design note) or from following apimachinery's strategicpatch rules by hand.
  const cases: Record<string, Case> = {
    // Docs: the new container goes before the one the Deployment had.
    'containers merge by name, new ones first': [
      'apps/Deployment',
      template({ containers: [c('patch-demo-ctr', { image: 'nginx' })] }),
      template({ containers: [c('patch-demo-ctr-2', { image: 'redis' })] }),
      template({ containers: [c('patch-demo-ctr-2', { image: 'redis' }), c('patch-demo-ctr', { image: 'nginx' })] }),
    ],
    // Docs: "the tolerations list in the PodSpec was replaced, not merged" (no patchStrategy tag).
    'tolerations are replaced': [
      'apps/Deployment',
      template({ tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }] }),
      template({ tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] }),
      template({ tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] }),
    ],
    'a matching container merges field by field and keeps its place': [
      '/Pod',
      podSpec({ containers: [c('a', { image: 'x', args: ['1'] }), c('b', { image: 'y' })] }),
      podSpec({ containers: [c('b', { image: 'z' })] }),
      podSpec({ containers: [c('a', { image: 'x', args: ['1'] }), c('b', { image: 'z' })] }),
    ],
    // live [a, b, c], patch touches b and adds d: the patch's items keep their order, the server's theirs.
    'patch and server items interleave by the live order': [
      '/Pod',
      podSpec({ containers: [c('a'), c('b'), c('c')] }),
      podSpec({ containers: [c('b', { image: 'x' }), c('d')] }),
      podSpec({ containers: [c('a'), c('b', { image: 'x' }), c('d'), c('c')] }),
    ],
    'init and ephemeral containers merge by name': [
      '/Pod',
      podSpec({ initContainers: [c('i1')], ephemeralContainers: [c('e1')] }),
      podSpec({ initContainers: [c('i1', { image: 'x' })], ephemeralContainers: [c('e2')] }),
      podSpec({ initContainers: [c('i1', { image: 'x' })], ephemeralContainers: [c('e2'), c('e1')] }),
    ],
    'env merges by name, a null deletes a field of an item': [
      '/Pod',
      podSpec({
        containers: [
          c('a', {
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          }),
        ],
      }),
      podSpec({ containers: [c('a', { env: [{ name: 'B', value: null, valueFrom: { fieldRef: { fieldPath: 'x' } } }] })] }),
      podSpec({
        containers: [
          c('a', {
            env: [
              { name: 'A', value: '1' },
              { name: 'B', valueFrom: { fieldRef: { fieldPath: 'x' } } },
            ],
          }),
        ],
      }),
    ],
    'container ports merge by containerPort': [
      '/Pod',
      podSpec({ containers: [c('a', { ports: [{ containerPort: 80, name: 'http' }] })] }),
      podSpec({ containers: [c('a', { ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }] })] }),
      podSpec({ containers: [c('a', { ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 443 }] })] }),
    ],
    'volume mounts merge by mountPath, volume devices by devicePath': [
      '/Pod',
      podSpec({
        containers: [c('a', { volumeMounts: [{ mountPath: '/a', name: 'v' }], volumeDevices: [{ devicePath: '/d', name: 'b' }] })],
      }),
      podSpec({
        containers: [c('a', { volumeMounts: [{ mountPath: '/a', readOnly: true }], volumeDevices: [{ devicePath: '/e', name: 'c' }] })],
      }),
      podSpec({
        containers: [
          c('a', {
            volumeMounts: [{ mountPath: '/a', name: 'v', readOnly: true }],
            volumeDevices: [
              { devicePath: '/e', name: 'c' },
              { devicePath: '/d', name: 'b' },
            ],
          }),
        ],
      }),
    ],
    'volumes merge by name': [
      '/Pod',
      podSpec({ volumes: [{ name: 'v', emptyDir: {} }] }),
      podSpec({ volumes: [{ name: 'w', configMap: { name: 'cm' } }] }),
      podSpec({
        volumes: [
          { name: 'w', configMap: { name: 'cm' } },
          { name: 'v', emptyDir: {} },
        ],
      }),
    ],
    'imagePullSecrets merge by name, hostAliases by ip, topologySpreadConstraints by topologyKey': [
      '/Pod',
      podSpec({
        imagePullSecrets: [{ name: 's1' }],
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }],
        topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 1 }],
      }),
      podSpec({
        imagePullSecrets: [{ name: 's1' }, { name: 's2' }],
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }],
        topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 2 }],
      }),
      podSpec({
        imagePullSecrets: [{ name: 's1' }, { name: 's2' }],
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['b'] }],
        topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 2 }],
      }),
    ],
    'lists without a strategy are replaced (readinessGates, args)': [
      '/Pod',
      podSpec({ readinessGates: [{ conditionType: 'a' }], containers: [c('a', { args: ['1', '2'] })] }),
      podSpec({ readinessGates: [{ conditionType: 'b' }], containers: [c('a', { args: ['3'] })] }),
      podSpec({ readinessGates: [{ conditionType: 'b' }], containers: [c('a', { args: ['3'] })] }),
    ],
    'pod conditions merge by type, pod IPs by ip': [
      '/Pod',
      { status: { conditions: [{ type: 'Ready', status: 'False' }], podIPs: [{ ip: '10.0.0.1' }] } },
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'Initialized', status: 'True' },
          ],
          podIPs: [{ ip: 'fd00::1' }],
        },
      },
      {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'Initialized', status: 'True' },
          ],
          podIPs: [{ ip: 'fd00::1' }, { ip: '10.0.0.1' }],
        },
      },
    ],
    'service ports merge by port': [
      '/Service',
      { spec: { ports: [{ port: 80, name: 'http', targetPort: 8080 }] } },
      { spec: { ports: [{ port: 443, name: 'https' }] } },
      {
        spec: {
          ports: [
            { port: 443, name: 'https' },
            { port: 80, name: 'http', targetPort: 8080 },
          ],
        },
      },
    ],
    'owner references merge by uid, finalizers as a set': [
      '/ConfigMap',
      { metadata: { ownerReferences: [{ uid: 'u1', name: 'a' }], finalizers: ['x', 'y'] } },
      { metadata: { ownerReferences: [{ uid: 'u2', name: 'b' }], finalizers: ['y', 'z'] } },
      {
        metadata: {
          ownerReferences: [
            { uid: 'u2', name: 'b' },
            { uid: 'u1', name: 'a' },
          ],
          finalizers: ['x', 'y', 'z'],
        },
      },
    ],
    'node addresses and conditions merge by type, podCIDRs as a set': [
      '/Node',
      { spec: { podCIDRs: ['10.0.0.0/24'] }, status: { addresses: [{ type: 'InternalIP', address: '1' }] } },
      { spec: { podCIDRs: ['fd00::/64'] }, status: { addresses: [{ type: 'InternalIP', address: '2' }] } },
      { spec: { podCIDRs: ['fd00::/64', '10.0.0.0/24'] }, status: { addresses: [{ type: 'InternalIP', address: '2' }] } },
    ],
    'workload pod templates merge like pods (StatefulSet, DaemonSet, ReplicaSet, Job)': [
      'apps/StatefulSet',
      template({ containers: [c('a', { env: [{ name: 'A', value: '1' }] })] }),
      template({ containers: [c('a', { env: [{ name: 'B', value: '2' }] })] }),
      template({
        containers: [
          c('a', {
            env: [
              { name: 'B', value: '2' },
              { name: 'A', value: '1' },
            ],
          }),
        ],
      }),
    ],
    'cron job templates merge two levels down': [
      'batch/CronJob',
      { spec: { jobTemplate: { spec: { template: { spec: { containers: [c('a')] } } } } } },
      { spec: { jobTemplate: { spec: { template: { spec: { containers: [c('b')] } } } } } },
      { spec: { jobTemplate: { spec: { template: { spec: { containers: [c('b'), c('a')] } } } } } },
    ],
    'workload conditions merge by type': [
      'batch/Job',
      { status: { conditions: [{ type: 'Complete', status: 'False' }] } },
      { status: { conditions: [{ type: 'Complete', status: 'True' }] } },
      { status: { conditions: [{ type: 'Complete', status: 'True' }] } },
    ],
    'maps merge key by key and null deletes': [
      '/ConfigMap',
      { metadata: { labels: { a: '1', b: '2' } }, data: { x: '1' } },
      { metadata: { labels: { a: null, c: '3' } }, data: null },
      { metadata: { labels: { b: '2', c: '3' } } },
    ],
    'a value taken whole drops its nulls and directives': [
      '/Pod',
      podSpec({}),
      podSpec({ containers: [c('a', { image: null }), { $patch: 'delete', name: 'gone' }], nodeSelector: { a: '1', b: null } }),
      podSpec({ containers: [c('a')], nodeSelector: { a: '1' } }),
    ],
    '$patch: replace in a map replaces it': [
      '/ConfigMap',
      { metadata: { labels: { a: '1', b: '2' } } },
      { metadata: { labels: { $patch: 'replace', c: '3' } } },
      { metadata: { labels: { c: '3' } } },
    ],
    '$patch: delete in a map empties it': [
      '/Pod',
      podSpec({ nodeSelector: { a: '1' }, hostname: 'h' }),
      podSpec({ nodeSelector: { $patch: 'delete' } }),
      podSpec({ nodeSelector: {}, hostname: 'h' }),
    ],
    '$patch: replace as a list item replaces the list': [
      '/Pod',
      podSpec({ containers: [c('a'), c('b')] }),
      podSpec({ containers: [{ $patch: 'replace' }, c('only')] }),
      podSpec({ containers: [c('only')] }),
    ],
    '$patch: delete as a list item removes the item with its key': [
      '/Pod',
      podSpec({ containers: [c('a', { env: [{ name: 'A' }, { name: 'B' }] })] }),
      podSpec({ containers: [c('a', { env: [{ name: 'A', $patch: 'delete' }] })] }),
      podSpec({ containers: [c('a', { env: [{ name: 'B' }] })] }),
    ],
    // Design note's example: the strategy of a Deployment keeps only the keys listed.
    '$retainKeys clears the keys it does not list': [
      'apps/Deployment',
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      { spec: { strategy: { type: 'Recreate' } } },
    ],
    '$retainKeys in a volume switches its source': [
      '/Pod',
      podSpec({ volumes: [{ name: 'v', emptyDir: {} }] }),
      podSpec({ volumes: [{ name: 'v', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/x' } }] }),
      podSpec({ volumes: [{ name: 'v', hostPath: { path: '/x' } }] }),
    ],
    '$deleteFromPrimitiveList removes values from a set': [
      '/ConfigMap',
      { metadata: { finalizers: ['a', 'b', 'c'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'x'] } },
      { metadata: { finalizers: ['a', 'c'] } },
    ],
    '$deleteFromPrimitiveList on an absent list does nothing': [
      '/ConfigMap',
      { metadata: { name: 'n' } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
      { metadata: { name: 'n' } },
    ],
    // Listed items as listed; `b`, unlisted, keeps its place before `c` from the live order.
    '$setElementOrder orders a merged list, leaving unlisted live items in place': [
      '/Pod',
      podSpec({ containers: [c('a'), c('b'), c('c')] }),
      podSpec({ '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }], containers: [c('a', { image: 'x' })] }),
      podSpec({ containers: [c('b'), c('c'), c('a', { image: 'x' })] }),
    ],
    '$setElementOrder orders a set of scalars': [
      '/ConfigMap',
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'], finalizers: ['c'] } },
      { metadata: { finalizers: ['b', 'c', 'a'] } },
    ],
  };

  it.each(Object.entries(cases))('%s', (_name, [groupKind, live, patch, expected]) => {
    expect(smp(groupKind, live, patch)).toEqual(expected);
  });

  it('should leave its arguments untouched', () => {
    const live = podSpec({ containers: [c('a')] });
    const patch = podSpec({ containers: [c('b')] });
    smp('/Pod', live, patch);
    expect([live, patch]).toEqual([podSpec({ containers: [c('a')] }), podSpec({ containers: [c('b')] })]);
  });

  it('should answer errors with the codes a real server uses', () => {
    const live = {
      metadata: { finalizers: ['f'] },
      ...podSpec({ containers: [c('a')], volumes: [{ name: 'v' }], nodeSelector: { a: '1' } }),
    };
    const cases: Array<[JsonObject, number, RegExp]> = [
      [podSpec({ containers: [{ image: 'x' }] }), 500, /does not contain declared merge key: name/],
      [podSpec({ containers: [{ name: 'a', $patch: 'merge' }] }), 500, /merging lists cannot yet be specified/],
      [podSpec({ nodeSelector: { $patch: 'keep' } }), 500, /unknown patch type: keep/],
      [podSpec({ containers: [[1]] }), 422, /lists of lists are not supported/],
      [podSpec({ containers: [c('b'), 'x'] }), 500, /list element types are not identical/],
      [{ spec: { $retainKeys: 'type' } }, 400, /invalid patch format of retainKeys/],
      [{ spec: { $retainKeys: ['a'], hostname: 'h' } }, 400, /invalid patch format of retainKeys/],
      [{ metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } }, 400, /invalid patch format of primitive list/],
      [{ spec: { $setElementOrdercontainers: [] } }, 400, /invalid patch format of setElementOrder list/],
      [podSpec({ '$setElementOrder/containers': [{ name: 'b' }], containers: [c('a')] }), 500, /doesn't match \$setElementOrder list/],
    ];
    for (const [patch, code, message] of cases) {
      const e = refusal('/Pod', live, patch);
      expect([patch, e.code]).toEqual([patch, code]);
      expect(e.message).toMatch(message);
    }
  });
});
