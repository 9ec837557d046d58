import { BlockList, isIP } from 'node:net';

/**
 * Addresses a live-mode webhook may never reach (SSRF): this host, the private networks
 * behind it, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * multicast and the reserved ranges. BlockList matches IPv4-mapped IPv6 forms
 * (::ffff:10.0.0.1, ::ffff:a00:1) against the IPv4 rules too.
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  // NAT64 and the deprecated IPv4-compatible form embed an IPv4 address we cannot vet here.
  ['64:ff9b::', 96],
  ['::', 96],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

/** Whether a live-mode webhook may connect to this IP address; anything unparsable is refused. */
export function isAllowedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // A zone id (fe80::1%eth0) only ever names a link-local address.
  if (bare.includes('%')) return false;
  const family = isIP(bare);
  if (family === 0) return false;
  return !refused.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
