// The shape of the generated Kubernetes protobuf descriptors: protobufjs JSON, with Go's json tags as field options.

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
