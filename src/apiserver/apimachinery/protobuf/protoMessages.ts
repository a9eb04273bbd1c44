// The protobufjs Root built once from the generated Kubernetes protobuf descriptors.
import protobuf from 'protobufjs';
import { K8S_PROTO_PACKAGES } from './generated/index.js';

type Nested = NonNullable<protobuf.INamespace['nested']>;

let root: protobuf.Root | undefined;

/** The protobufjs Root of every generated package, built and resolved on first use. */
export function k8sProtoRoot(): protobuf.Root {
  if (root) return root;
  const top: Nested = {};
  for (const [pkg, messages] of Object.entries(K8S_PROTO_PACKAGES)) {
    let nested = top;
    for (const part of pkg.split('.')) nested = ((nested[part] ??= { nested: {} }) as { nested: Nested }).nested;
    // proto2, as the generated.proto files declare: a field on the wire is present even when zero (a pointer
    // to 0, such as `replicas: 0`); without it protobufjs reads fields as proto3's and drops zero values.
    for (const [name, type] of Object.entries(messages)) nested[name] = { ...type, edition: 'proto2' } as protobuf.IType;
  }
  root = protobuf.Root.fromJSON({ nested: top });
  root.resolveAll();
  return root;
}
