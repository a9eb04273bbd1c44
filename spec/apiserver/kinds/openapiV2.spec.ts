import { describe, it, expect } from '@jest/globals';
import protobuf from 'protobufjs';
import { openApiV2Doc, openApiV2Protobuf } from '../../../src/apiserver/kinds/openapiV2.js';

describe('openApiV2', () => {
  it('should be a Swagger 2.0 document with no definitions, so kubectl skips validating kinds it does not find', () => {
    expect(openApiV2Doc()).toEqual({
      swagger: '2.0',
      info: { title: 'Kubernetes', version: expect.any(String) },
      paths: {},
      definitions: {},
    });
  });

  it('should encode the same document with gnostic field numbers (swagger 1, info 2; title 1, version 2)', () => {
    const reader = protobuf.Reader.create(openApiV2Protobuf());
    const fields: Record<number, unknown> = {};
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      fields[tag >>> 3] = tag >>> 3 === 1 ? reader.string() : reader.bytes();
    }
    expect(fields[1]).toBe('2.0');
    const info = protobuf.Reader.create(fields[2] as Uint8Array);
    const infoFields: string[] = [];
    while (info.pos < info.len) {
      info.uint32();
      infoFields.push(info.string());
    }
    expect(infoFields).toEqual(['Kubernetes', (openApiV2Doc().info as { version: string }).version]);
  });
});
