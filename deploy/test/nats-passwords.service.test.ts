import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { NATS_USERS, passwordVariable } from '@dzpay/stack/nats-permissions';
import { freePort } from '@dzpay/testkit';
import { describe, expect, it } from 'vitest';
import { deployReadme, readText } from './support/repository.ts';

// The NATS passwords an SRE generates by following deploy/README.md, given to Debian's
// nats-server through its environment as deploy/nats/authorization.conf reads them: the
// server must start, and every user log in.

/** The expression deploy/README.md generates each password with, as written there. */
function documentedPasswordExpression(): string {
  const line = deployReadme()
    .split('\n')
    .find((text) => text.includes('--from-literal=NATS_${user}_PASSWORD='));
  const expression = line?.match(/_PASSWORD=(.+)"\s*$/)?.[1];
  if (!expression) throw new Error('deploy/README.md: no NATS password generation line');
  return expression;
}

/** Starts nats-server on the committed users with `passwords`: ready, or why it stopped. */
async function startWith(passwords: Record<string, string>): Promise<{
  outcome: 'ready' | 'refused';
  output: string;
  url: string;
  stop: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'dzpay-nats-passwords-'));
  const port = await freePort();
  const config = join(dir, 'nats.conf');
  await writeFile(
    config,
    [`listen: "127.0.0.1:${port}"`, readText('deploy/nats/authorization.conf')].join('\n'),
  );
  const server = spawn('nats-server', ['-c', config], {
    env: { PATH: process.env.PATH ?? '', ...passwords },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const outcome = await new Promise<'ready' | 'refused'>((resolve) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Server is ready')) resolve('ready');
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.once('exit', () => resolve('refused'));
  });
  return {
    outcome,
    output,
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGKILL');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe('deploy: NATS passwords as deploy/README.md generates them', () => {
  it('start Debian’s nats-server on deploy/nats/authorization.conf, and every user logs in', async () => {
    const expression = documentedPasswordExpression();
    // Many rounds: a bare hex password failed about one start in six.
    for (let round = 0; round < 5; round++) {
      const passwords = Object.fromEntries(
        NATS_USERS.map((user) => [
          passwordVariable(user),
          execFileSync('bash', ['-c', `echo "${expression}"`], { encoding: 'utf8' }).trim(),
        ]),
      );
      // What nats-server can never read as a number: a letter first.
      for (const password of Object.values(passwords)) expect(password).toMatch(/^[A-Za-z]/);
      const server = await startWith(passwords);
      try {
        expect(server.outcome, server.output).toBe('ready');
        for (const user of NATS_USERS) {
          const nc = await connect({
            servers: server.url,
            user,
            pass: passwords[passwordVariable(user)]!,
            reconnect: false,
          });
          await nc.close();
        }
      } finally {
        await server.stop();
      }
    }
  });

  it('would not with a bare hex password that reads as a number (why the letter comes first)', async () => {
    const passwords = Object.fromEntries(
      NATS_USERS.map((user) => [passwordVariable(user), `p${'0'.repeat(8)}`]),
    );
    passwords[passwordVariable('gateway')] = '3e5a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e';
    const server = await startWith(passwords);
    try {
      expect(server.outcome).toBe('refused');
      expect(server.output).toContain('could not be parsed');
    } finally {
      await server.stop();
    }
  });
});
