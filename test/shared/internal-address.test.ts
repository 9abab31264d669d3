import { describe, expect, it } from 'vitest';
import { internalAddressKind } from '../../src/shared/internal-address.js';

/** Which addresses a webhook may not reach unless its definition allows internal addresses. */
describe('internal addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'link-local'],
    // Benchmarking networks: no public host lives there; some VPNs and proxies use them inside.
    ['198.18.0.1', 'private'],
    ['198.19.255.254', 'private'],
    // NAT64 (64:ff9b::/96) reaches the IPv4 address in its last 32 bits: judged as that address.
    ['64:ff9b::7f00:1', 'loopback'],
    ['[64:ff9b::a9fe:a9fe]', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::c612:1', 'private'],
  ])('%s is %s', (address, kind) => {
    expect(internalAddressKind(address)).toBe(kind);
  });

  it.each(['198.17.255.255', '198.20.0.1', '8.8.8.8', '64:ff9b::808:808', '2001:db8::1'])(
    '%s is not internal',
    (address) => {
      expect(internalAddressKind(address)).toBeUndefined();
    },
  );
});
