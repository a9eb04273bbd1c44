import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { integer, oid } from '../../../src/apiserver/http/der.js';
import { selfSignedCert } from '../../../src/apiserver/http/selfSignedCert.js';

describe('selfSignedCert', () => {
  it('should make a self-signed CA certificate for the given names and addresses', async () => {
    const now = new Date('2026-12-03T00:00:00Z');
    const { certPem, keyPem } = selfSignedCert(['localhost', '127.0.0.1', '::1', 'dev.internal'], now);
    const x = new X509Certificate(certPem);
    expect(x.subject).toBe('CN=rxkrt-apiserver');
    expect(x.issuer).toBe(x.subject);
    expect(x.ca).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.checkHost('localhost')).toBe('localhost');
    expect(x.checkHost('dev.internal')).toBe('dev.internal');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.checkIP('::1')).toBe('::1');
    expect(x.checkHost('evil.example')).toBeUndefined();
    expect(x.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:dev.internal');
    expect(new Date(x.validFrom).getTime()).toBe(now.getTime() - 3_600_000);
    expect(new Date(x.validTo).getTime()).toBe(now.getTime() + 365 * 86_400_000);
    expect(keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(x.checkPrivateKey((await import('node:crypto')).createPrivateKey(keyPem))).toBe(true);
  });

  it('should make a new key and serial every time', () => {
    const a = new X509Certificate(selfSignedCert(['localhost']).certPem);
    const b = new X509Certificate(selfSignedCert(['localhost']).certPem);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(a.publicKey.export({ format: 'jwk' })).not.toEqual(b.publicKey.export({ format: 'jwk' }));
  });
});

describe('oid', () => {
  it('should encode arcs of more than seven bits in base 128', () => {
    expect(oid('1.2.840.10045.4.3.2').toString('hex')).toBe('06082a8648ce3d040302');
  });

  it('should encode integers minimally: leading zeros dropped, one added back before a set top bit', () => {
    expect(integer(Buffer.from([0x00, 0x05])).toString('hex')).toBe('020105');
    expect(integer(Buffer.from([0x00, 0x00, 0x85])).toString('hex')).toBe('02020085');
    expect(integer(Buffer.from([0x85])).toString('hex')).toBe('02020085');
    expect(integer(Buffer.from([0x00])).toString('hex')).toBe('020100');
  });

  it('should make certificates that parse whatever their random serial starts with', () => {
    // 600 certificates: a serial starting with a zero byte (1 in 256) used to be refused as illegal padding.
    for (let i = 0; i < 600; i++) expect(() => new X509Certificate(selfSignedCert(['localhost', '127.0.0.1']).certPem)).not.toThrow();
  });
});
