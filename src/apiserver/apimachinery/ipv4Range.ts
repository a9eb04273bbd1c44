// IPv4 CIDR ranges: parsing, membership and the address order a service IP allocator walks.

/** An IPv4 CIDR range such as `10.96.0.0/12`. Addresses are unsigned 32-bit numbers. */
export interface Ipv4Range {
  /** The range as written in canonical form (`10.96.0.0/12`). */
  readonly cidr: string;
  /** The network address. */
  readonly network: number;
  /** How many addresses the range spans, network and broadcast included. */
  readonly size: number;
}

/**
 * Parses `a.b.c.d/n` (n from 0 to 30: smaller ranges leave no address to allocate once the network and broadcast
 * addresses are set aside). Host bits must be zero, as kube-apiserver insists for `--service-cluster-ip-range`.
 *
 * @throws RangeError naming the text and what is wrong with it.
 */
export function parseIpv4Cidr(text: string): Ipv4Range {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(text);
  const address = m ? parseIpv4(m[1]!) : undefined;
  const prefix = m ? Number(m[2]) : NaN;
  if (address === undefined || !(prefix >= 0 && prefix <= 30)) {
    throw new RangeError(`service IP range ${JSON.stringify(text)} is not an IPv4 CIDR with a prefix of 0 to 30 (e.g. 10.96.0.0/12)`);
  }
  const size = 2 ** (32 - prefix);
  if (address % size !== 0) {
    throw new RangeError(
      `service IP range ${JSON.stringify(text)} has host bits set: the network address is ${formatIpv4(address - (address % size))}`,
    );
  }
  return { cidr: `${formatIpv4(address)}/${prefix}`, network: address, size };
}

/** A dotted-quad IPv4 address as a number, or `undefined` when `text` is not one (no leading zeros, as Go parses). */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** A number as a dotted-quad IPv4 address. */
export function formatIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** Whether `ip` may be allocated from `range`: inside it, and neither its network nor its broadcast address. */
export function allocatable(range: Ipv4Range, ip: number): boolean {
  return ip > range.network && ip < range.network + range.size - 1;
}

/**
 * The allocatable addresses in the order a dynamic allocation tries them. kube-apiserver keeps the lowest addresses
 * (`min(max(16, size/16), 256)` of them) for IPs that clients ask for by number and hands out the rest first; it picks
 * at random, this server in order, so allocations are reproducible.
 */
export function* allocationOrder(range: Ipv4Range): Generator<number> {
  const first = range.network + 1;
  const last = range.network + range.size - 2;
  const staticBand = Math.min(Math.max(16, Math.floor(range.size / 16)), 256);
  const upper = Math.min(first + staticBand, last + 1);
  for (let ip = upper; ip <= last; ip++) yield ip;
  for (let ip = first; ip < upper; ip++) yield ip;
}
