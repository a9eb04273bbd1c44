// A self-signed X.509 certificate for serving HTTPS on loopback, made with node:crypto alone (no openssl at run time).
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import { bitString, boolean, integer, octetString, oid, sequence, set, time, tlv, utf8 } from './der.js';

/** A certificate and its key, PEM-encoded. */
export interface SelfSignedCert {
  /** The certificate; it is its own CA, so this is also what clients trust (`certificate-authority-data`). */
  readonly certPem: string;
  readonly keyPem: string;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_KEY_ID = '2.5.29.14';
const KEY_USAGE = '2.5.29.15';
const SUBJECT_ALT_NAME = '2.5.29.17';
const BASIC_CONSTRAINTS = '2.5.29.19';
const EXT_KEY_USAGE = '2.5.29.37';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

/**
 * Makes a fresh P-256 key and a certificate for `hosts` (names and IP addresses, all in subjectAltName), valid from
 * an hour ago (clock skew) for a year. Node's crypto can make keys and sign but not build certificates, so the
 * certificate is encoded here; pulling in a certificate library for one self-signed leaf was not worth a dependency.
 *
 * It is a CA certificate (basicConstraints CA:TRUE, keyCertSign) as well as a server one: Go (kubectl) and OpenSSL
 * (node) accept a self-signed certificate as its own trust anchor when it may sign certificates.
 */
export function selfSignedCert(hosts: readonly string[], now: Date = new Date()): SelfSignedCert {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const name = sequence(set(sequence(oid(COMMON_NAME), utf8('rxkrt-apiserver'))));
  const algorithm = sequence(oid(ECDSA_WITH_SHA256));
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f; // positive, and at most 16 octets
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(now.getTime() + 365 * 24 * 60 * 60 * 1000);
  const extensions = sequence(
    extension(BASIC_CONSTRAINTS, true, sequence(boolean(true))),
    // digitalSignature (bit 0) and keyCertSign (bit 5): 1000 0100, the last two bits unused.
    extension(KEY_USAGE, true, bitString(Buffer.from([0x84]), 2)),
    extension(EXT_KEY_USAGE, false, sequence(oid(SERVER_AUTH))),
    extension(SUBJECT_ALT_NAME, false, sequence(...hosts.map(altName))),
    extension(SUBJECT_KEY_ID, false, octetString(createHash('sha1').update(spki).digest())),
  );
  const tbs = sequence(
    tlv(0xa0, integer(Buffer.from([2]))), // version 3
    integer(serial),
    algorithm,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    spki,
    tlv(0xa3, extensions),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, algorithm, bitString(signature));
  return { certPem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

// A host as a subjectAltName entry: [7] iPAddress for an address, [2] dNSName for a name.
function altName(host: string): Buffer {
  const bare = host.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return tlv(0x87, Buffer.from(bare.split('.').map(Number)));
  if (family === 6) return tlv(0x87, ipv6Bytes(bare));
  return tlv(0x82, Buffer.from(bare, 'ascii'));
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (s: string | undefined): string[] => (s ? s.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
