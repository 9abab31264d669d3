import { BlockList, isIP } from 'node:net';

/** What kind of non-public address a host is, in words a message can use. */
export type InternalAddressKind = 'loopback' | 'link-local' | 'private' | 'unspecified';

/**
 * Ranges a webhook must not reach unless its definition says so: a crafted or mistyped address
 * there reaches this machine, the cloud's metadata service (169.254.169.254) or the internal
 * network (server-side request forgery). IPv4-mapped IPv6 addresses are checked as IPv4.
 */
const RANGES: readonly (readonly [InternalAddressKind, string, number, 'ipv4' | 'ipv6'])[] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  // Benchmarking networks: no public host is there, and VPNs and proxies use them inside.
  ['private', '198.18.0.0', 15, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'], // unique local
  ['link-local', 'fe80::', 10, 'ipv6'],
];

/**
 * The well-known NAT64 prefix: 64:ff9b::a.b.c.d reaches the IPv4 address a.b.c.d through the
 * network's translator, so it is judged as that address. Not refused whole: on an IPv6-only
 * network with DNS64, every public name resolves into it.
 */
const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');

const LISTS = new Map<InternalAddressKind, BlockList>();
for (const [kind, network, prefix, family] of RANGES) {
  const list = LISTS.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  LISTS.set(kind, list);
}

/**
 * The kind of internal address `host` is (an IP literal, bracketed or not, or a `localhost`
 * name), or undefined for a public address or a name that only DNS can place.
 */
export function internalAddressKind(host: string): InternalAddressKind | undefined {
  const bare = host.replace(/^\[|\]$/g, '');
  if (/^localhost$/i.test(bare) || /\.localhost$/i.test(bare)) return 'loopback';
  const family = isIP(bare);
  if (family === 0) return undefined;
  if (family === 6 && NAT64.check(bare, 'ipv6')) return internalAddressKind(lastIpv4(bare));
  for (const [kind, list] of LISTS) {
    if (list.check(bare, family === 4 ? 'ipv4' : 'ipv6')) return kind;
  }
  return undefined;
}

/** The IPv4 address in the last 32 bits of an IPv6 address (written any valid way). */
function lastIpv4(address: string): string {
  const plain = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(plain);
  if (dotted !== null) return dotted.slice(1).join('.');
  // The last two hex groups; an empty one is part of a `::` run of zeros.
  const groups = plain.split(':');
  const [high, low] = [groups.at(-2), groups.at(-1)].map((group) =>
    group === undefined || group === '' ? 0 : Number.parseInt(group, 16),
  ) as [number, number];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
