import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '../src/processes.ts';

// Ports handed to harnesses are never ones the kernel could hand to an outgoing
// connection between the pick and the listen (the EADDRINUSE flake of CI runs).
describe('freePort', () => {
  it('answers distinct ports below the ephemeral range', async () => {
    const ephemeralStart = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(15_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
  });
});
