import { isIP } from 'node:net';

/** An IP address, or a CIDR range of them, as Node's BlockList takes it. */
export interface AddressRange {
  readonly ip: string;
  readonly family: 'ipv4' | 'ipv6';
  /** The prefix length of a range; undefined for a single address. */
  readonly bits: number | undefined;
}

/**
 * `10.0.0.0/8`, `fd00::/8` or a single address as an {@link AddressRange}; undefined for
 * anything else (an address that is not one, a prefix longer than the family has, `/` alone).
 */
export function parseAddressRange(entry: string): AddressRange | undefined {
  const [ip = '', bits, extra] = entry.split('/');
  const version = isIP(ip);
  if (version === 0 || extra !== undefined) return undefined;
  const family = version === 6 ? 'ipv6' : 'ipv4';
  if (bits === undefined) return { ip, family, bits: undefined };
  const length = Number(bits);
  if (!/^\d{1,3}$/.test(bits) || length > (version === 6 ? 128 : 32)) return undefined;
  return { ip, family, bits: length };
}
