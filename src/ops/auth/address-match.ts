import { BlockList, isIP } from 'node:net';
import { parseAddressRange } from '../../shared/address-range.js';

/** Whether `address` (a peer's IP) is one of `entries` (IPs or CIDR ranges). */
export function addressMatcher(
  entries: readonly string[],
): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    // The settings schema refused anything else, naming the setting and the entry.
    const range = parseAddressRange(entry);
    if (range === undefined) throw new TypeError(`not an IP address or CIDR range: ${entry}`);
    if (range.bits === undefined) list.addAddress(range.ip, range.family);
    else list.addSubnet(range.ip, range.bits, range.family);
  }
  return (address) => {
    if (address === undefined) return false;
    // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
    const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
    const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
    return isIP(plain) !== 0 && list.check(plain, family);
  };
}
