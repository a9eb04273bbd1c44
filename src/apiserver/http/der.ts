// The few ASN.1 DER encodings an X.509 certificate needs: tag-length-value, integers, OIDs, strings and times.

/** One DER element: `tag`, its length, then `content`. */
export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

/** A SEQUENCE of the given elements. */
export function sequence(...items: Buffer[]): Buffer {
  return tlv(0x30, ...items);
}

/** A SET of the given elements (callers pass them already in DER order). */
export function set(...items: Buffer[]): Buffer {
  return tlv(0x31, ...items);
}

/**
 * A non-negative INTEGER from its big-endian bytes, in DER's minimal form: leading zero bytes dropped (OpenSSL
 * refuses them as "illegal padding"; a random serial starts with one in 1 of 256 certificates), and one zero
 * added back when the top bit is set.
 */
export function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  const needsPad = minimal.length === 0 || (minimal[0]! & 0x80) !== 0;
  return tlv(0x02, needsPad ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

/** An OBJECT IDENTIFIER from its dotted form (`1.2.840.10045.4.3.2`). */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128 = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A UTF8String. */
export function utf8(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, 'utf8'));
}

/** A BIT STRING of whole bytes, or with `unusedBits` trailing bits unused. */
export function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.from([unusedBits]), bytes);
}

/** An OCTET STRING. */
export function octetString(bytes: Buffer): Buffer {
  return tlv(0x04, bytes);
}

/** A BOOLEAN. */
export function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0]));
}

/** A time as X.509 wants it: UTCTime through 2049, GeneralizedTime after. */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii')) : tlv(0x18, Buffer.from(iso, 'ascii'));
}

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
