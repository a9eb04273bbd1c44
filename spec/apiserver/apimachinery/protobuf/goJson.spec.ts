import { describe, expect, it } from '@jest/globals';
import protobuf from 'protobufjs';
import { GoJsonError, messageToGoJson } from '../../../../src/apiserver/apimachinery/protobuf/goJson.js';

// A Go struct of every shape the rules distinguish, with its json tags as field options:
//   type Inner struct { Note string `json:"note,omitempty"` }
//   type Outer struct {
//     Name string `json:"name"`; Nick string `json:"nick,omitempty"`; Count *int32 `json:"count,omitempty"`
//     Size int32 `json:"size,omitempty"`; Ready bool `json:"ready"`; Tags []string `json:"tags"`
//     Extra []string `json:"extra,omitempty"`; Env map[string]string `json:"env"`; Blob []byte `json:"blob,omitempty"`
//     Raw []byte `json:"raw"`; Inner Inner `json:"inner,omitempty"`; Ptr *Inner `json:"ptr,omitempty"`
//     Nil *Inner `json:"nil"`; Inner `json:",inline"` (as `embedded`); Renamed string `json:"other"`
//   }
const outerJson = {
  nested: {
    Inner: { edition: 'proto2', fields: { note: { type: 'string', id: 1, options: { omitempty: true } } } },
    Outer: {
      edition: 'proto2',
      fields: {
        name: { type: 'string', id: 1 },
        nick: { type: 'string', id: 2, options: { omitempty: true } },
        count: { type: 'int32', id: 3, options: { omitempty: true, pointer: true } },
        size: { type: 'int32', id: 4, options: { omitempty: true } },
        ready: { type: 'bool', id: 5 },
        tags: { rule: 'repeated', type: 'string', id: 6 },
        extra: { rule: 'repeated', type: 'string', id: 7, options: { omitempty: true } },
        env: { keyType: 'string', type: 'string', id: 8 },
        blob: { type: 'bytes', id: 9, options: { omitempty: true } },
        raw: { type: 'bytes', id: 10 },
        inner: { type: 'Inner', id: 11, options: { omitempty: true } },
        ptr: { type: 'Inner', id: 12, options: { omitempty: true, pointer: true } },
        nil: { type: 'Inner', id: 13, options: { pointer: true } },
        embedded: { type: 'Inner', id: 14, options: { inline: true } },
        renamed: { type: 'string', id: 15, options: { json: 'other' } },
      },
    },
  },
};
// Map fields carry a keyType, which protobufjs's IField type leaves out.
const root = protobuf.Root.fromJSON(outerJson as protobuf.INamespace);
const outer = root.lookupType('Outer');

/** Encodes then decodes, so presence is what the wire says. */
function roundTrip(object: Record<string, unknown>): Record<string, unknown> {
  return outer.decode(outer.encode(outer.fromObject(object)).finish()) as unknown as Record<string, unknown>;
}

describe('messageToGoJson', () => {
  it('should write what Go writes for a struct with nothing on the wire', () => {
    expect(messageToGoJson(outer, roundTrip({}))).toEqual({
      name: '',
      ready: false,
      tags: null,
      env: null,
      raw: null,
      inner: {},
      nil: null,
      other: '',
    });
  });

  it('should keep a pointer to a zero value, and drop a zero plain value under omitempty', () => {
    const json = messageToGoJson(outer, roundTrip({ count: 0, size: 0, nick: '', ptr: {}, blob: new Uint8Array() }));
    expect(json).toMatchObject({ count: 0, ptr: {} });
    expect(json).not.toHaveProperty('size');
    expect(json).not.toHaveProperty('nick');
    expect(json).not.toHaveProperty('blob');
  });

  it('should write values in Go field order, inline embedded fields, and use JSON names', () => {
    const json = messageToGoJson(
      outer,
      roundTrip({
        renamed: 'r',
        embedded: { note: 'inlined' },
        name: 'n',
        tags: ['a'],
        env: { k: 'v' },
        raw: Buffer.from('hi'),
        inner: { note: 'x' },
      }),
    );
    expect(JSON.stringify(json)).toBe(
      '{"name":"n","ready":false,"tags":["a"],"env":{"k":"v"},"raw":"aGk=","inner":{"note":"x"},"nil":null,"note":"inlined","other":"r"}',
    );
  });

  it('should name the JSON path of a field it cannot write', () => {
    const limitsJson = {
      nested: {
        k8s: {
          nested: {
            io: {
              nested: {
                apimachinery: {
                  nested: {
                    pkg: {
                      nested: {
                        api: { nested: { resource: { nested: { Quantity: { fields: { string: { type: 'string', id: 1 } } } } } } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        Limits: { edition: 'proto2', fields: { max: { keyType: 'string', type: 'k8s.io.apimachinery.pkg.api.resource.Quantity', id: 1 } } },
      },
    };
    const limits = protobuf.Root.fromJSON(limitsJson as protobuf.INamespace).lookupType('Limits');
    const message = limits.decode(limits.encode(limits.fromObject({ max: { cpu: { string: '2 cores' } } })).finish());
    expect(() => messageToGoJson(limits, message as unknown as Record<string, unknown>)).toThrow(
      new GoJsonError('max[cpu]', 'quantity "2 cores" is malformed'),
    );
  });
});
