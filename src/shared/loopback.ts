/**
 * Whether a host name or address is this machine's loopback (`localhost`, 127.0.0.0/8, `::1`,
 * and IPv4 loopback as an IPv6-mapped address).
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/^::ffff:/i, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
