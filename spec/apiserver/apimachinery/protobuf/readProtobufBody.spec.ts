import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { readProtobufBody } from '../../../../src/apiserver/apimachinery/protobuf/readProtobufBody.js';
import { kubectlFixture } from './kubectlFixture.js';

/** A request whose body arrives in `chunks`, with `headers`. */
function fakeRequest(chunks: Buffer[], headers: Record<string, string> = {}): IncomingMessage {
  return Object.assign(Readable.from(chunks), { headers }) as unknown as IncomingMessage;
}

describe('readProtobufBody', () => {
  it('should decode a body that arrives in pieces', async () => {
    const body = Buffer.from(kubectlFixture.cases[0]!.body, 'base64');
    const pieces = [body.subarray(0, 3), body.subarray(3, 10), body.subarray(10)];
    expect(await readProtobufBody(fakeRequest(pieces))).toMatchObject({ kind: 'Namespace', metadata: { name: 'demo' } });
  });

  it('should refuse a declared size over 3 MiB before reading, and a body that grows past it', async () => {
    await expect(readProtobufBody(fakeRequest([], { 'content-length': String(4 * 1024 * 1024) }))).rejects.toMatchObject({ code: 413 });
    const mib = Buffer.alloc(1024 * 1024);
    await expect(readProtobufBody(fakeRequest([mib, mib, mib, mib]))).rejects.toMatchObject({ code: 413, reason: 'RequestEntityTooLarge' });
  });
});
