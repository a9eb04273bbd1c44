import { describe, expect, it } from '@jest/globals';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../../../src/apiserver/apimachinery/protobuf/decodeProtobufObject.js';
import { kubectlFixture } from './kubectlFixture.js';
import { k8sProtoRoot } from '../../../../src/apiserver/apimachinery/protobuf/protoMessages.js';
import { StatusError } from '../../../../src/apiserver/apimachinery/statusError.js';

const fixture = kubectlFixture;

describe('decodeProtobufObject on bodies kubectl sent', () => {
  it('should hold a body for every kind kubectl create makes', () => {
    const kinds = new Set(fixture.cases.map((c) => decodeProtobufObject(Buffer.from(c.body, 'base64')).kind));
    expect([...kinds].sort()).toEqual(
      [
        'ClusterRole',
        'ClusterRoleBinding',
        'ConfigMap',
        'CronJob',
        'Deployment',
        'Ingress',
        'Job',
        'Namespace',
        'Pod',
        'PodDisruptionBudget',
        'PriorityClass',
        'ResourceQuota',
        'Role',
        'RoleBinding',
        'Secret',
        'Service',
        'ServiceAccount',
      ].sort(),
    );
    expect(fixture.cases.every((c) => c.contentType === PROTOBUF_MEDIA_TYPE)).toBe(true);
  });

  const printed = fixture.cases.filter((c) => c.json !== null);
  it.each(printed.map((c) => [`kubectl ${c.args.join(' ')}`, c] as const))(
    'should decode %s into the JSON kubectl prints for it',
    (_, c) => {
      const decoded = decodeProtobufObject(Buffer.from(c.body, 'base64'));
      expect(decoded).toEqual(c.json);
      // Go writes struct fields in declaration order, kind and apiVersion first.
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(c.json));
    },
  );

  it('should decode the Pod kubectl debug builds for a node (general profile)', () => {
    const c = fixture.cases.find((x) => x.args[0] === 'debug')!;
    const pod = decodeProtobufObject(Buffer.from(c.body, 'base64')) as { metadata: { name: string }; spec: Record<string, unknown> };
    expect(pod).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { creationTimestamp: null }, status: {} });
    expect(pod.metadata.name).toMatch(/^node-debugger-n1-[a-z0-9]{5}$/);
    expect(pod.spec).toEqual({
      volumes: [{ name: 'host-root', hostPath: { path: '/' } }],
      containers: [
        {
          name: 'debugger',
          image: 'busybox',
          resources: {},
          volumeMounts: [{ name: 'host-root', mountPath: '/host' }],
          terminationMessagePolicy: 'File',
        },
      ],
      restartPolicy: 'Never',
      nodeName: 'n1',
      hostNetwork: true,
      hostPID: true,
      hostIPC: true,
      tolerations: [{ operator: 'Exists' }],
    });
  });
});

const root = k8sProtoRoot();

/** A Kubernetes protobuf body: the magic prefix and a runtime.Unknown around `raw`. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra: Record<string, unknown> = {}): Buffer {
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const bytes = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, ...extra })).finish();
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), bytes]);
}

/** The message of `type` for a protobufjs object (its field names are the protobuf ones). */
function encode(type: string, object: Record<string, unknown>): Uint8Array {
  const t = root.lookupType(type);
  return t.encode(t.fromObject(object)).finish();
}

function statusOf(f: () => unknown): { code: number; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('decodeProtobufObject', () => {
  const CORE = 'k8s.io.api.core.v1';

  it('should put kind and apiVersion from the envelope first', () => {
    const raw = encode(`${CORE}.ConfigMap`, { metadata: { name: 'c', namespace: 'n' }, data: { k: 'v' } });
    expect(JSON.stringify(decodeProtobufObject(envelope('v1', 'ConfigMap', raw)))).toBe(
      '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"n","creationTimestamp":null},"data":{"k":"v"}}',
    );
  });

  it('should write Time as RFC 3339 in whole seconds and MicroTime with microseconds', () => {
    const raw = encode('k8s.io.api.coordination.v1.Lease', {
      metadata: { name: 'l', creationTimestamp: { seconds: 1700000000, nanos: 999_000_000 }, deletionTimestamp: { seconds: 0, nanos: 0 } },
      spec: { holderIdentity: 'me', acquireTime: { seconds: 1700000001, nanos: 123_456_789 }, leaseDurationSeconds: 0 },
    });
    const lease = decodeProtobufObject(envelope('coordination.k8s.io/v1', 'Lease', raw));
    expect(lease.metadata).toEqual({ name: 'l', creationTimestamp: '2023-11-14T22:13:20Z', deletionTimestamp: '1970-01-01T00:00:00Z' });
    // A pointer to 0 stays: leaseDurationSeconds is *int32 with omitempty.
    expect(lease.spec).toEqual({ holderIdentity: 'me', leaseDurationSeconds: 0, acquireTime: '2023-11-14T22:13:21.123456Z' });
  });

  it("should write an empty Time message (Go's zero time) as null", () => {
    const raw = encode(`${CORE}.Namespace`, { metadata: { name: 'n', creationTimestamp: {} } });
    expect(decodeProtobufObject(envelope('v1', 'Namespace', raw)).metadata).toEqual({ name: 'n', creationTimestamp: null });
  });

  it('should refuse a time outside years 1-9999, naming the field', () => {
    const raw = encode(`${CORE}.Namespace`, { metadata: { name: 'n', creationTimestamp: { seconds: 300_000_000_000 } } });
    const status = statusOf(() => decodeProtobufObject(envelope('v1', 'Namespace', raw)));
    expect(status.code).toBe(400);
    expect(status.message).toContain('Namespace in version "v1" cannot be handled as a Namespace: field metadata.creationTimestamp: ');
  });

  it('should write Quantity as its string, an empty one as "0", and refuse a malformed one', () => {
    const quota = (hard: Record<string, string>) =>
      envelope(
        'v1',
        'ResourceQuota',
        encode(`${CORE}.ResourceQuota`, {
          metadata: { name: 'q' },
          spec: { hard: Object.fromEntries(Object.entries(hard).map(([k, v]) => [k, { string: v }])) },
        }),
      );
    expect(decodeProtobufObject(quota({ cpu: '1500m', memory: '1Gi', pods: '' })).spec).toEqual({
      hard: { cpu: '1500m', memory: '1Gi', pods: '0' },
    });
    const status = statusOf(() => decodeProtobufObject(quota({ cpu: 'lots' })));
    expect(status).toEqual({
      code: 400,
      message: 'ResourceQuota in version "v1" cannot be handled as a ResourceQuota: field spec.hard[cpu]: quantity "lots" is malformed',
    });
  });

  it('should write IntOrString as a number or a string, and refuse an unknown type', () => {
    const service = (targetPort: Record<string, unknown>) =>
      envelope('v1', 'Service', encode(`${CORE}.Service`, { metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort }] } }));
    const portsOf = (o: Record<string, unknown>) => (o.spec as { ports: unknown[] }).ports;
    expect(portsOf(decodeProtobufObject(service({ type: 0, intVal: 8080 })))).toEqual([{ port: 80, targetPort: 8080 }]);
    expect(portsOf(decodeProtobufObject(service({ type: 1, strVal: 'http' })))).toEqual([{ port: 80, targetPort: 'http' }]);
    // A port's fields are plain int32s: 0 stays out under omitempty, but port has none and stays.
    expect(portsOf(decodeProtobufObject(service({})))).toEqual([{ port: 80, targetPort: 0 }]);
    expect(statusOf(() => decodeProtobufObject(service({ type: 2 }))).message).toBe(
      'Service in version "v1" cannot be handled as a Service: field spec.ports[0].targetPort: IntOrString type 2 is neither 0 (int) nor 1 (string)',
    );
  });

  it('should write bytes as base64, an empty value as ""', () => {
    const raw = encode(`${CORE}.Secret`, {
      metadata: { name: 's' },
      data: { key: Buffer.from('\x00\xffsecret', 'latin1'), blank: new Uint8Array() },
      type: 'Opaque',
    });
    expect(decodeProtobufObject(envelope('v1', 'Secret', raw))).toMatchObject({ data: { key: 'AP9zZWNyZXQ=', blank: '' }, type: 'Opaque' });
  });

  it('should write a RawExtension as its JSON, and refuse one that is not JSON', () => {
    const revision = (data: string) =>
      envelope(
        'apps/v1',
        'ControllerRevision',
        encode('k8s.io.api.apps.v1.ControllerRevision', { metadata: { name: 'r' }, data: { raw: Buffer.from(data) }, revision: 2 }),
      );
    expect(decodeProtobufObject(revision('{"spec":{"x":[1,true]}}'))).toMatchObject({ data: { spec: { x: [1, true] } }, revision: 2 });
    expect(statusOf(() => decodeProtobufObject(revision('{nope'))).message).toMatch(
      /^ControllerRevision in version "apps\/v1" cannot be handled as a ControllerRevision: field data: raw bytes are not JSON/,
    );
  });

  it('should write lists and maps without omitempty as null when absent, and leave out those with it', () => {
    const raw = encode('k8s.io.api.rbac.v1.ClusterRole', { metadata: { name: 'c' } });
    expect(decodeProtobufObject(envelope('rbac.authorization.k8s.io/v1', 'ClusterRole', raw))).toEqual({
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'c', creationTimestamp: null },
      rules: null,
    });
  });

  it('should refuse an integer a JSON number cannot hold exactly', () => {
    const raw = encode('k8s.io.api.batch.v1.Job', { metadata: { name: 'j' }, spec: { activeDeadlineSeconds: '9007199254740993' } });
    expect(statusOf(() => decodeProtobufObject(envelope('batch/v1', 'Job', raw))).message).toBe(
      'Job in version "batch/v1" cannot be handled as a Job: field spec.activeDeadlineSeconds: integer 9007199254740993 does not fit a JSON number exactly',
    );
  });

  it.each([
    ['an empty body', Buffer.alloc(0), 400, 'the protobuf body is empty'],
    ['JSON', Buffer.from('{"kind":"Pod"}'), 400, 'expected the prefix "k8s\\x00", got 0x7b226b696e64223a'],
    ['the prefix alone', Buffer.from('k8s\0', 'latin1'), 400, 'nothing after it'],
    [
      'a cut envelope',
      Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x0a, 0x20, 0x0a])]),
      400,
      'the protobuf envelope (runtime.Unknown) could not be decoded',
    ],
  ])('should answer %s with a clear Status', (_, body, code, message) => {
    const status = statusOf(() => decodeProtobufObject(body));
    expect(status.code).toBe(code);
    expect(status.message).toContain(message);
  });

  it('should refuse an envelope without kind or apiVersion', () => {
    expect(statusOf(() => decodeProtobufObject(envelope('v1', '', new Uint8Array())))).toEqual({
      code: 400,
      message: 'the protobuf envelope names no kind (apiVersion "v1")',
    });
    expect(statusOf(() => decodeProtobufObject(envelope('', 'Pod', new Uint8Array())))).toEqual({
      code: 400,
      message: 'the protobuf envelope of a Pod names no apiVersion',
    });
  });

  it('should answer 415 for a kind it has no schema for, naming it', () => {
    expect(statusOf(() => decodeProtobufObject(envelope('example.com/v1', 'Widget', new Uint8Array())))).toEqual({
      code: 415,
      message: 'Widget in version "example.com/v1" cannot be decoded from protobuf by this server: send it as application/json',
    });
  });

  it('should refuse a compressed object, and a malformed one, naming the kind', () => {
    const raw = encode(`${CORE}.ConfigMap`, { metadata: { name: 'c' } });
    expect(statusOf(() => decodeProtobufObject(envelope('v1', 'ConfigMap', raw, { contentEncoding: 'gzip' }))).message).toBe(
      'ConfigMap in version "v1": content encoding "gzip" is not supported',
    );
    const status = statusOf(() => decodeProtobufObject(envelope('v1', 'ConfigMap', raw.subarray(0, raw.length - 2))));
    expect(status.code).toBe(400);
    expect(status.message).toMatch(
      /^ConfigMap in version "v1" cannot be handled as a ConfigMap: its protobuf message \(ConfigMap\) is malformed: /,
    );
  });

  it('should decode DeleteOptions under any group version, as clients label it with theirs', () => {
    const raw = encode('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions', {
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
    expect(decodeProtobufObject(envelope('apps/v1', 'DeleteOptions', raw))).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'apps/v1',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    });
  });

  it('should decode an empty object message to the zero object', () => {
    expect(decodeProtobufObject(envelope('v1', 'Namespace', new Uint8Array()))).toEqual({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {},
    });
  });
});
