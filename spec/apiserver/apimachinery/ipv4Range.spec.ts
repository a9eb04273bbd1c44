import { describe, expect, it } from '@jest/globals';
import { allocatable, allocationOrder, formatIpv4, parseIpv4, parseIpv4Cidr } from '../../../src/apiserver/apimachinery/ipv4Range.js';

describe('parseIpv4Cidr', () => {
  it('should parse a CIDR into its network address and size', () => {
    const r = parseIpv4Cidr('10.96.0.0/12');
    expect(r).toEqual({ cidr: '10.96.0.0/12', network: parseIpv4('10.96.0.0'), size: 2 ** 20 });
  });

  it.each([
    ['10.96.0.0', 'is not an IPv4 CIDR'],
    ['10.96.0.0/31', 'is not an IPv4 CIDR'],
    ['10.96.0.256/24', 'is not an IPv4 CIDR'],
    ['fd00::/108', 'is not an IPv4 CIDR'],
    ['10.96.0.1/24', 'has host bits set: the network address is 10.96.0.0'],
  ])('should refuse %s naming the text', (text, why) => {
    expect(() => parseIpv4Cidr(text)).toThrow(new RangeError(`service IP range ${JSON.stringify(text)} ${why}`).message);
  });
});

describe('parseIpv4 and formatIpv4', () => {
  it('should round-trip addresses and refuse malformed ones', () => {
    for (const ip of ['0.0.0.0', '10.96.0.1', '255.255.255.255', '192.168.1.10']) expect(formatIpv4(parseIpv4(ip)!)).toBe(ip);
    for (const bad of ['1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.999', 'a.b.c.d', '']) expect(parseIpv4(bad)).toBeUndefined();
  });
});

describe('allocationOrder', () => {
  it('should exclude the network and broadcast addresses', () => {
    const r = parseIpv4Cidr('192.168.0.0/29');
    expect(allocatable(r, parseIpv4('192.168.0.0')!)).toBe(false);
    expect(allocatable(r, parseIpv4('192.168.0.7')!)).toBe(false);
    expect(allocatable(r, parseIpv4('192.168.0.1')!)).toBe(true);
    expect([...allocationOrder(r)].map(formatIpv4)).toEqual([
      '192.168.0.1',
      '192.168.0.2',
      '192.168.0.3',
      '192.168.0.4',
      '192.168.0.5',
      '192.168.0.6',
    ]);
  });

  it('should hand out addresses above the band kept for requested IPs first, then the band', () => {
    const r = parseIpv4Cidr('10.0.0.0/24'); // 256 addresses: a band of 16
    const order = [...allocationOrder(r)].map(formatIpv4);
    expect(order).toHaveLength(254);
    expect(order[0]).toBe('10.0.0.17');
    expect(order.at(-16)).toBe('10.0.0.1');
    expect(new Set(order).size).toBe(254);
    const big = allocationOrder(parseIpv4Cidr('10.96.0.0/12')).next().value!;
    expect(formatIpv4(big)).toBe('10.96.1.1'); // a band of 256
  });
});
