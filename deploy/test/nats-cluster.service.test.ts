import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { clusterFiles, LOCAL_CLUSTER } from '@dzpay/stack/nats-cluster-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileUrl, readText } from './support/repository.ts';

// deploy/nats/cluster/ is the generator's, and deploy/local-cluster.sh brings it up on
// Debian's nats-server as docs/nats-security.md says: three nodes routed to each other
// under the route user, JetStream replicated on three, dzpay's users and admin logging in.

const script = fileUrl('deploy/local-cluster.sh').pathname;
const urls = [4301, 4302, 4303].map((port) => `nats://127.0.0.1:${port}`);
let dir: string;
let passwords: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dzpay-local-cluster-'));
  const printed = execFileSync('bash', [script, 'start'], {
    env: { ...process.env, NATS_CLUSTER_DIR: dir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(printed).toContain(`NATS_URL=${urls.join(',')}`);
  const env = await readFile(join(dir, 'passwords.env'), 'utf8');
  passwords = Object.fromEntries(
    env
      .trim()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  );
}, 90_000);

afterAll(async () => {
  if (!dir) return;
  execFileSync('bash', [script, 'stop'], { env: { ...process.env, NATS_CLUSTER_DIR: dir } });
  await rm(dir, { recursive: true, force: true });
});

describe('deploy: the NATS cluster by hand', () => {
  it('is the generator’s configuration, committed', () => {
    for (const [name, text] of clusterFiles(LOCAL_CLUSTER)) {
      expect(readText(`deploy/nats/cluster/${name}`), name).toBe(text);
    }
  });

  it('forms on Debian’s nats-server: every node routed to the two others', async () => {
    for (const port of [8301, 8302, 8303]) {
      const routes = (await (await fetch(`http://127.0.0.1:${port}/routez`)).json()) as {
        num_routes: number;
      };
      expect(routes.num_routes, `node on ${port}`).toBe(2);
    }
  });

  it('keeps a stream on three replicas for admin, and lets each dzpay user log in', async () => {
    const admin = await connect({
      servers: urls,
      user: 'admin',
      pass: passwords.NATS_ADMIN_PASSWORD!,
    });
    try {
      const jsm = await jetstreamManager(admin);
      // The meta leader may still be being elected when /healthz first answers.
      const add = () => jsm.streams.add({ name: 'PROBE', subjects: ['probe.>'], num_replicas: 3 });
      const info = await add().catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        return add();
      });
      expect(info.config.num_replicas).toBe(3);
      await jsm.streams.delete('PROBE');
    } finally {
      await admin.close();
    }
    for (const user of ['gateway', 'payments', 'status', 'webhook-dispatcher', 'cli']) {
      const variable = `NATS_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`;
      const nc = await connect({ servers: urls, user, pass: passwords[variable]! });
      await nc.close();
    }
  });
});
