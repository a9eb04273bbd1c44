// The shape of the generated Kubernetes protobuf descriptors, and the one protobufjs Root built from them.
import protobuf from 'protobufjs';
import { K8S_PROTO_PACKAGES } from './generated/index.js';

/**
 * What a Go struct field's json tag says that protobuf cannot: carried as protobufjs field options, since
 * the JSON a client would have sent follows encoding/json, not the protobuf field.
 */
export interface GoJsonOptions {
  /** The JSON name, when it differs from the protobuf name. */
  readonly json?: string;
  /** `omitempty`: a zero scalar, an empty list or map, or a nil pointer is left out. */
  readonly omitempty?: boolean;
  /** A Go pointer: absent on the wire means nil (left out or `null`), not the zero value. */
  readonly pointer?: boolean;
  /** An embedded struct: its fields join the parent's JSON object. */
  readonly inline?: boolean;
}

/** One field of a generated descriptor (a protobufjs `IField`, or `IMapField` with a `keyType`). */
export interface ProtoFieldDescriptor {
  readonly type: string;
  readonly id: number;
  readonly rule?: 'repeated';
  readonly keyType?: string;
  readonly options?: GoJsonOptions;
}

/** The messages of one protobuf package, by name: protobufjs JSON descriptors. */
export type ProtoMessages = Readonly<Record<string, { readonly fields: Readonly<Record<string, ProtoFieldDescriptor>> }>>;

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
