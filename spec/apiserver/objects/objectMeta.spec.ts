import { describe, expect, it } from '@jest/globals';
import { StatusError } from '../../../src/apiserver/apimachinery/statusError.js';
import { BUILTIN_KINDS } from '../../../src/apiserver/kinds/builtinKinds.js';
import { resourceType, type ResourceType } from '../../../src/apiserver/kinds/resourceType.js';
import { specChanged, validateName } from '../../../src/apiserver/objects/objectMeta.js';

const kind = (group: string, k: string): ResourceType => BUILTIN_KINDS.find((rt) => rt.group === group && rt.kind === k)!;

function nameCauses(rt: ResourceType, name: string): string[] {
  try {
    validateName(rt, name);
    return [];
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    expect(e.code).toBe(422);
    expect(e.details?.causes?.every((c) => c.field === 'metadata.name' && c.reason === 'FieldValueInvalid')).toBe(true);
    return e.details!.causes!.map((c) => c.message);
  }
}

describe('validateName', () => {
  it.each([
    // kind, name, accepted
    ['ConfigMap', 'a.b-c', true],
    ['ConfigMap', 'Upper', false],
    ['ConfigMap', 'x'.repeat(254), false],
    ['Namespace', 'team-a', true],
    ['Namespace', 'team.a', false],
    ['Namespace', '1team', true],
    ['Service', 'web-1', true],
    ['Service', '1web', false],
    ['Service', 'web.a', false],
    ['Service', 'w'.repeat(64), false],
    ['Deployment', 'web.v2', true],
    ['ClusterRole', 'system:controller:x', true],
    ['ClusterRole', 'Mixed_Case', true],
    ['ClusterRole', 'a/b', false],
    ['ClusterRole', '..', false],
    ['RoleBinding', '50%', false],
  ])('should take %s name %j: %s', (k, name, ok) => {
    const rt = BUILTIN_KINDS.find((r) => r.kind === k)!;
    expect(nameCauses(rt, name).length === 0).toBe(ok);
  });

  it('should word the failures as kube-apiserver does', () => {
    expect(nameCauses(kind('', 'Service'), '1web')).toEqual([
      `Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    expect(nameCauses(kind('', 'Namespace'), 'a.b')).toEqual([
      `Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    expect(nameCauses(kind('rbac.authorization.k8s.io', 'Role'), 'a/b%')).toEqual([
      `Invalid value: "a/b%": may not contain '/'`,
      `Invalid value: "a/b%": may not contain '%'`,
    ]);
    const long = nameCauses(kind('', 'ConfigMap'), 'A'.repeat(254));
    expect(long[0]).toBe(`Invalid value: "${'A'.repeat(254)}": must be no more than 253 characters`);
    expect(long[1]).toContain('a lowercase RFC 1123 subdomain must consist of');
  });
});

describe('specChanged', () => {
  const configMaps = kind('', 'ConfigMap');
  const deployments = kind('apps', 'Deployment');
  const obj = (extra: object) => ({ metadata: { name: 'x', labels: { a: '1' } }, spec: { replicas: 1 }, status: { ready: 1 }, ...extra });

  it('should count everything but metadata and status', () => {
    expect(specChanged(configMaps, obj({}), obj({ spec: { replicas: 2 } }))).toBe(true);
    expect(specChanged(configMaps, obj({}), obj({ data: { k: 'v' } }))).toBe(true);
    expect(specChanged(configMaps, obj({}), obj({ status: { ready: 2 } }))).toBe(false);
    expect(specChanged(configMaps, obj({}), obj({ metadata: { name: 'x', labels: { a: '2' } } }))).toBe(false);
  });

  it("should count a custom resource's status when it has no status subresource", () => {
    const base = { group: 'example.com', version: 'v1', kind: 'Widget', namespaced: true, custom: true };
    const withStatus = resourceType({ ...base, statusSubresource: true });
    const without = resourceType({ ...base, statusSubresource: false });
    expect(specChanged(withStatus, obj({}), obj({ status: { ready: 2 } }))).toBe(false);
    expect(specChanged(without, obj({}), obj({ status: { ready: 2 } }))).toBe(true);
  });

  it("should count a Deployment's annotations, and only a Deployment's", () => {
    const annotated = obj({ metadata: { name: 'x', annotations: { note: 'y' } } });
    expect(specChanged(deployments, obj({}), annotated)).toBe(true);
    expect(specChanged(kind('apps', 'ReplicaSet'), obj({}), annotated)).toBe(false);
    expect(specChanged(deployments, obj({ metadata: { name: 'x', labels: { b: '1' } } }), obj({}))).toBe(false);
  });
});
