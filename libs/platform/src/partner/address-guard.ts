import { isIP } from 'node:net';

/** One block of addresses a partner request may not reach, with where it comes from. */
interface RefusedBlock {
  network: string;
  prefix: number;
  what: string;
}

/**
 * The IANA IPv4 Special-Purpose Address Registry, every entry that is not globally
 * reachable (and the deprecated 6to4 relay anycast), plus multicast from the IPv4
 * Multicast Address Space Registry. Whole /24s are taken where the registry carves
 * out a globally reachable anycast address (192.0.0.9, 192.0.0.10): no partner's API
 * lives there.
 */
const REFUSED_IPV4: readonly RefusedBlock[] = [
  { network: '0.0.0.0', prefix: 8, what: '"this network" (RFC 791)' },
  { network: '10.0.0.0', prefix: 8, what: 'private use (RFC 1918)' },
  { network: '100.64.0.0', prefix: 10, what: 'shared address space, carrier-grade NAT (RFC 6598)' },
  { network: '127.0.0.0', prefix: 8, what: 'loopback (RFC 1122)' },
  { network: '169.254.0.0', prefix: 16, what: 'link local, cloud metadata (RFC 3927)' },
  { network: '172.16.0.0', prefix: 12, what: 'private use (RFC 1918)' },
  {
    network: '192.0.0.0',
    prefix: 24,
    what: 'IETF protocol assignments: DS-Lite, dummy, NAT64 discovery (RFC 6890, 7335, 7600, 8880)',
  },
  { network: '192.0.2.0', prefix: 24, what: 'documentation, TEST-NET-1 (RFC 5737)' },
  { network: '192.88.99.0', prefix: 24, what: '6to4 relay anycast, deprecated (RFC 7526)' },
  { network: '192.168.0.0', prefix: 16, what: 'private use (RFC 1918)' },
  { network: '198.18.0.0', prefix: 15, what: 'benchmarking (RFC 2544)' },
  { network: '198.51.100.0', prefix: 24, what: 'documentation, TEST-NET-2 (RFC 5737)' },
  { network: '203.0.113.0', prefix: 24, what: 'documentation, TEST-NET-3 (RFC 5737)' },
  { network: '224.0.0.0', prefix: 4, what: 'multicast (RFC 5771)' },
  {
    network: '240.0.0.0',
    prefix: 4,
    what: 'reserved, with the limited broadcast 255.255.255.255 (RFC 1112, 919)',
  },
];

/**
 * The IANA IPv6 Special-Purpose Address Registry, every entry that is not globally
 * reachable or that embeds an IPv4 address of any kind (6to4, Teredo, IPv4-mapped),
 * plus the blocks of the IPv6 Address Space Registry that are no unicast on the
 * internet (site-local, unique-local, link-local, multicast). Past this list only
 * global unicast (2000::/3) is reached, and the well-known NAT64 prefix 64:ff9b::/96
 * is judged by the IPv4 address it carries.
 */
const REFUSED_IPV6: readonly RefusedBlock[] = [
  { network: '::', prefix: 128, what: 'unspecified (RFC 4291)' },
  { network: '::1', prefix: 128, what: 'loopback (RFC 4291)' },
  { network: '::', prefix: 96, what: 'IPv4-compatible, deprecated (RFC 4291)' },
  { network: '::ffff:0:0', prefix: 96, what: 'IPv4-mapped (RFC 4291)' },
  { network: '64:ff9b:1::', prefix: 48, what: 'local-use IPv4/IPv6 translation (RFC 8215)' },
  { network: '100::', prefix: 64, what: 'discard-only (RFC 6666)' },
  { network: '100:0:0:1::', prefix: 64, what: 'dummy prefix (RFC 9780)' },
  {
    network: '2001::',
    prefix: 23,
    what: 'IETF protocol assignments, with Teredo 2001::/32 and benchmarking (RFC 2928, 4380, 5180)',
  },
  { network: '2001:db8::', prefix: 32, what: 'documentation (RFC 3849)' },
  { network: '2002::', prefix: 16, what: '6to4 (RFC 3056)' },
  { network: '3fff::', prefix: 20, what: 'documentation (RFC 9637)' },
  { network: '5f00::', prefix: 16, what: 'segment routing SIDs (RFC 9602)' },
  { network: 'fc00::', prefix: 7, what: 'unique-local (RFC 4193)' },
  { network: 'fe80::', prefix: 10, what: 'link-local (RFC 4291)' },
  { network: 'fec0::', prefix: 10, what: 'site-local, deprecated (RFC 3879)' },
  { network: 'ff00::', prefix: 8, what: 'multicast (RFC 4291)' },
];

const NAT64 = { network: '64:ff9b::', prefix: 96 } as const;
const GLOBAL_UNICAST = { network: '2000::', prefix: 3 } as const;

/**
 * Whether a partner request may connect to this IP address (SSRF guard): not this host,
 * not the networks behind it, not cloud metadata, not any block the registries above
 * say is not globally reachable. Anything that is not a plain IP address (a zone id, a
 * name, a shorthand such as 127.1) is refused.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // A zone id (fe80::1%eth0) only ever names a link-local address.
  if (bare.includes('%')) return false;
  switch (isIP(bare)) {
    case 4:
      return isPublicV4(ipv4Value(bare));
    case 6: {
      const value = ipv6Value(bare);
      if (inBlock6(value, NAT64)) return isPublicV4(Number(value & 0xffffffffn));
      return inBlock6(value, GLOBAL_UNICAST) && !REFUSED6.some((block) => inBlock6(value, block));
    }
    default:
      return false;
  }
}

const REFUSED4 = REFUSED_IPV4.map((block) => ({
  value: ipv4Value(block.network),
  prefix: block.prefix,
}));
const REFUSED6 = REFUSED_IPV6.map((block) => ({ network: block.network, prefix: block.prefix }));

function isPublicV4(value: number): boolean {
  return !REFUSED4.some(({ value: network, prefix }) => sameV4Prefix(value, network, prefix));
}

function sameV4Prefix(a: number, b: number, prefix: number): boolean {
  if (prefix === 0) return true;
  const shift = 32 - prefix;
  return a >>> shift === b >>> shift;
}

function inBlock6(value: bigint, block: { network: string; prefix: number }): boolean {
  const shift = BigInt(128 - block.prefix);
  return value >> shift === ipv6Value(block.network) >> shift;
}

/** A dotted quad (already checked by isIP) as an unsigned 32-bit number. */
function ipv4Value(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

/** An IPv6 address (already checked by isIP), `::` and a trailing dotted quad included, as 128 bits. */
function ipv6Value(address: string): bigint {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Value(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [
    ...headGroups,
    ...Array<string>(tail === undefined ? 0 : missing).fill('0'),
    ...tailGroups,
  ];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}
