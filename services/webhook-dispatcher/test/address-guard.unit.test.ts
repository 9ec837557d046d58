import { describe, expect, it } from 'vitest';
import { isAllowedAddress } from '../src/domain/address-guard.ts';

describe('the live-mode address guard', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'fe80::1%eth0',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '[::1]',
    '64:ff9b::a00:1',
    'not-an-address',
    '',
  ])('refuses %s', (address) => {
    expect(isAllowedAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '169.253.255.255',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '[2606:4700:4700::1111]',
  ])('allows the public address %s', (address) => {
    expect(isAllowedAddress(address)).toBe(true);
  });
});
