import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { SANDBOX, SERVICES } from '@dzpay/stack';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchPnpmStart } from './support/pnpm-start.ts';

let infra: IsolatedInfra;
let dir: string;

beforeAll(async () => {
  infra = await isolatedInfra('pnpm-start');
  dir = await mkdtemp(join(tmpdir(), 'dzpay-start-'));
});
afterAll(async () => {
  await infra?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('pnpm start', () => {
  it('runs every service, then stops them all and exits on the first Ctrl-C', async () => {
    const start = await launchPnpmStart(infra, dir);
    const { http, sandbox, ops } = start.ports;
    const natsPort = start.ports.nats;
    const natsDir = start.natsDir;
    try {
      await start.ready();
      expect(start.output()).toContain('demo test key');
      // One public port, as the Ingress gives one: the gateway's API and the dashboard's
      // pages; each says it is ready on its ops port.
      const docs = await fetch(`http://127.0.0.1:${http}/docs/json`).catch(() => null);
      expect(docs?.status, start.output()).toBe(200);
      const signIn = await fetch(`http://127.0.0.1:${http}/dashboard/login`).catch(() => null);
      expect(signIn?.status, start.output()).toBe(200);
      expect(await signIn?.text()).toContain('_csrf');
      expect((await fetch(`http://127.0.0.1:${ops[6]}/readyz`)).status, start.output()).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${ops[0]}/readyz`).catch(() => null);
      expect(ready?.status, start.output()).toBe(200);
      // The services (and the CLI that seeded the demo) logged in to a NATS that refuses
      // anyone without a user; the passwords are readable by their owner only.
      const natsUrl = `nats://127.0.0.1:${natsPort}`;
      await expect(connect({ servers: natsUrl, reconnect: false })).rejects.toThrow(
        /authorization/i,
      );
      // Nothing listens beyond this machine: the front door, the sandbox (which refunds on
      // request) and the ops ports (/metrics for anyone) are on loopback only.
      for (const port of [http, sandbox, ...ops.slice(0, 7)]) {
        expect(await listeningAddresses(Number(port)), `port ${port}`).toEqual(['127.0.0.1']);
      }
      // The passwords' folder is its owner's alone.
      expect((await stat(natsDir)).mode & 0o077).toBe(0);
      const users = JSON.parse(await readFile(join(natsDir, 'users.json'), 'utf8')) as object;
      expect(Object.keys(users).sort()).toEqual([...SERVICES, 'admin', 'cli'].sort());
      expect((await stat(join(natsDir, 'users.json'))).mode & 0o077).toBe(0);
      const cliEnv = await readFile(join(natsDir, 'cli.env'), 'utf8');
      expect(cliEnv).toContain(`NATS_URL=${natsUrl}`);
      // The admin CLI seals with the services' key (no SECRETS_KEY was given: the one made
      // once and kept, owner-only, for the next start).
      const secretsKey = (await readFile(join(natsDir, 'secrets.key'), 'utf8')).trim();
      expect(Buffer.from(secretsKey, 'base64')).toHaveLength(32);
      expect(cliEnv).toContain(`SECRETS_KEY=${secretsKey}\n`);
      expect((await stat(join(natsDir, 'secrets.key'))).mode & 0o077).toBe(0);

      const sentAt = Date.now();
      start.interrupt();
      const { code, at } = await Promise.race([
        start.exited,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`still running 30 s after Ctrl-C:\n${start.output()}`)),
            30_000,
          ),
        ),
      ]);
      expect(code, start.output()).toBe(0);
      expect(at - sentAt).toBeLessThan(30_000);
      for (const service of [SANDBOX, ...SERVICES])
        expect(start.output()).toContain(`${service} exited`);
      // Its NATS went with it (after the services had drained through it).
      await expect(
        connect({ servers: `nats://127.0.0.1:${natsPort}`, reconnect: false, timeout: 1_000 }),
      ).rejects.toThrow();
    } finally {
      start.kill();
    }
  }, 120_000);
});

/** The local addresses a TCP port is listened on, from the kernel's tables (IPv4 and IPv6). */
async function listeningAddresses(port: number): Promise<string[]> {
  const found = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [hex = '', portHex = ''] = local.split(':');
      if (parseInt(portHex, 16) !== port) continue;
      found.add(addressOf(hex));
    }
  }
  return [...found].sort();
}

/** /proc/net/tcp's hex address: IPv4 in host byte order (little-endian here), or IPv6. */
function addressOf(hex: string): string {
  if (hex.length === 8) {
    return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  }
  if (/^0{32}$/.test(hex)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  return hex;
}
