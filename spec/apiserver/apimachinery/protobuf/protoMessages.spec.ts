import { describe, expect, it } from '@jest/globals';
import protobuf from 'protobufjs';
import { K8S_PROTO_KINDS } from '../../../../src/apiserver/apimachinery/protobuf/generated/index.js';
import { k8sProtoRoot } from '../../../../src/apiserver/apimachinery/protobuf/protoMessages.js';

describe('k8sProtoRoot', () => {
  const root = k8sProtoRoot();

  it('should resolve the message of every decodable kind, and every type those reach', () => {
    const unresolved: string[] = [];
    const seen = new Set<string>();
    const visit = (type: protobuf.Type): void => {
      if (seen.has(type.fullName)) return;
      seen.add(type.fullName);
      for (const field of type.fieldsArray) {
        if (!field.resolvedType && !['string', 'bool', 'bytes', 'int32', 'int64'].includes(field.type))
          unresolved.push(`${type.fullName}.${field.name}`);
        if (field.resolvedType instanceof protobuf.Type) visit(field.resolvedType);
      }
    };
    for (const message of Object.values(K8S_PROTO_KINDS)) visit(root.lookupType(message));
    expect(unresolved).toEqual([]);
    expect(seen.size).toBeGreaterThan(250);
    expect(Object.keys(K8S_PROTO_KINDS)).toEqual(
      expect.arrayContaining(['v1/Pod', 'apps/v1/Deployment', 'scheduling.k8s.io/v1/PriorityClass']),
    );
  });

  // Facts from the published generated.proto files, checked against the generated schema.
  it.each([
    ['k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'name', 1, 'string'],
    ['k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'creationTimestamp', 8, 'Time'],
    ['k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'managedFields', 17, 'ManagedFieldsEntry'],
    ['k8s.io.api.core.v1.Pod', 'spec', 2, 'PodSpec'],
    ['k8s.io.api.core.v1.ServicePort', 'targetPort', 4, 'k8s.io.apimachinery.pkg.util.intstr.IntOrString'],
    ['k8s.io.api.core.v1.Secret', 'data', 2, 'bytes'],
    ['k8s.io.api.apps.v1.DeploymentSpec', 'replicas', 1, 'int32'],
    ['k8s.io.apimachinery.pkg.runtime.Unknown', 'raw', 2, 'bytes'],
  ])('should give %s.%s the number %i and type %s', (message, field, id, type) => {
    const f = root.lookupType(message).fields[field]!;
    expect({ id: f.id, type: f.type }).toEqual({ id, type });
  });

  it('should carry the Go json tags as field options', () => {
    const spec = root.lookupType('k8s.io.api.apps.v1.DeploymentSpec').fields;
    expect(spec.replicas!.options).toEqual({ omitempty: true, pointer: true });
    expect(root.lookupType('k8s.io.api.core.v1.Volume').fields.volumeSource!.options).toEqual({ inline: true });
    expect(root.lookupType('k8s.io.api.rbac.v1.ClusterRole').fields.rules!.options).toBeUndefined();
  });
});
