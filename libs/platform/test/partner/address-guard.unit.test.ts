import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/partner/address-guard.ts';

// Written out from the IANA IPv4 and IPv6 Special-Purpose Address Registries (and the
// address-space registries for multicast, site-local, unique-local, link-local), not
// derived from the guard's own table: a block missing there fails here.
const refusedV4 = [
  ['0.0.0.0', 'this network'],
  ['0.255.255.255', 'this network, last'],
  ['10.0.0.0', 'RFC 1918'],
  ['10.1.2.3', 'RFC 1918'],
  ['10.255.255.255', 'RFC 1918, last'],
  ['100.64.0.0', 'shared address space'],
  ['100.127.255.255', 'shared address space, last'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.1', 'link local'],
  ['169.254.169.254', 'cloud metadata'],
  ['172.16.0.0', 'RFC 1918'],
  ['172.31.255.255', 'RFC 1918, last'],
  ['192.0.0.0', 'IETF protocol assignments'],
  ['192.0.0.8', 'IPv4 dummy address'],
  ['192.0.0.9', 'PCP anycast (whole /24 refused)'],
  ['192.0.0.170', 'NAT64/DNS64 discovery'],
  ['192.0.0.255', 'IETF protocol assignments, last'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.0.1', 'RFC 1918'],
  ['192.168.255.255', 'RFC 1918, last'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking, last'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast, last'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'limited broadcast'],
] as const;

const refusedV6 = [
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback, bracketed'],
  ['0:0:0:0:0:0:0:1', 'loopback, written out'],
  ['::a00:1', 'IPv4-compatible'],
  ['::8.8.8.8', 'IPv4-compatible, public inside'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped RFC 1918'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'IPv4-mapped metadata, written out'],
  ['::ffff:8.8.8.8', 'IPv4-mapped, public inside (the registry: not globally reachable)'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
  ['64:ff9b::a00:1', 'NAT64 of RFC 1918'],
  ['64:ff9b::169.254.169.254', 'NAT64 of metadata'],
  ['64:ff9b:1::1', 'local-use translation'],
  ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'local-use translation, last'],
  ['100::1', 'discard-only'],
  ['100::ffff:ffff:ffff:ffff', 'discard-only, last'],
  ['100:0:0:1::1', 'dummy prefix'],
  ['2001::1', 'Teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo, a real-looking one'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'IETF protocol assignments, last'],
  ['2001:db8::1', 'documentation'],
  ['2002::1', '6to4'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:c0a8:101::1', '6to4 of RFC 1918'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['3fff:fff:ffff::1', 'documentation (RFC 9637), end'],
  ['5f00::1', 'segment routing'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['febf:ffff::1', 'link-local, end'],
  ['fec0::', 'site-local'],
  ['fec0::1', 'site-local'],
  ['feff:ffff::1', 'site-local, end'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast, global scope'],
  ['1::1', 'reserved, outside global unicast'],
  ['4000::1', 'reserved, outside global unicast'],
  ['e000::1', 'reserved, outside global unicast'],
] as const;

const notAddresses = ['', 'localhost', 'not-an-address', '127.1', '2130706433', '0x7f000001'];

const publicAddresses = [
  ['1.1.1.1', ''],
  ['8.8.8.8', ''],
  ['9.255.255.255', 'just before 10/8'],
  ['11.0.0.0', 'just after 10/8'],
  ['100.63.255.255', 'just before 100.64/10'],
  ['100.128.0.0', 'just after 100.64/10'],
  ['126.255.255.255', 'just before 127/8'],
  ['128.0.0.0', 'just after 127/8'],
  ['169.253.255.255', 'just before 169.254/16'],
  ['169.255.0.0', 'just after 169.254/16'],
  ['172.15.255.255', 'just before 172.16/12'],
  ['172.32.0.0', 'just after 172.16/12'],
  ['192.0.1.0', 'between 192.0.0/24 and 192.0.2/24'],
  ['192.31.196.1', 'AS112-v4, globally reachable'],
  ['192.52.193.1', 'AMT, globally reachable'],
  ['192.167.255.255', 'just before 192.168/16'],
  ['192.169.0.0', 'just after 192.168/16'],
  ['192.175.48.1', 'AS112 direct delegation, globally reachable'],
  ['198.17.255.255', 'just before 198.18/15'],
  ['198.20.0.0', 'just after 198.18/15'],
  ['223.255.255.255', 'just before multicast'],
  ['2001:4860:4860::8888', ''],
  ['[2606:4700:4700::1111]', 'bracketed'],
  ['2001:200::1', 'just after 2001::/23'],
  ['2001:db9::1', 'just after 2001:db8::/32'],
  ['2003::1', 'just after 2002::/16'],
  ['2620:4f:8000::1', 'AS112 direct delegation, globally reachable'],
  ['3fff:1000::1', 'just after 3fff::/20'],
  ['64:ff9b::8.8.8.8', 'NAT64 of a public address'],
  ['64:ff9b::808:808', 'NAT64 of a public address, hex'],
] as const;

describe('the partner address guard', () => {
  it.each(refusedV4)('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(refusedV6)('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(notAddresses)('refuses %j, which is no plain IP address', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(publicAddresses)('allows the public address %s %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
