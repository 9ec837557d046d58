import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RpcDefinition } from '@dzpay/contracts';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../src/errors.ts';
import { createLogger } from '../src/logger.ts';
import { bindMetrics, platformMetrics } from '../src/metrics.ts';
import { connectNats, prefixed, type NatsConnection } from '../src/nats.ts';
import { requestRpc, serveRpc } from '../src/rpc.ts';

// Replicas of a service share a subject through a queue group; when the one that took a
// request dies, an idempotent request is asked again and another replica answers.

const Ask = z.object({ n: z.int() });
const Answer = z.object({ n: z.int(), by: z.string() });
const read = (subject: string): RpcDefinition<typeof Ask, typeof Answer> => ({
  subject,
  request: Ask,
  reply: Answer,
  idempotent: true,
});
const write = (subject: string) => ({ ...read(subject), idempotent: false });

let infra: IsolatedInfra;
let server: NatsConnection;
let client: NatsConnection;
const metrics = platformMetrics(new Registry());
const logger = createLogger('rpc-retry-test', 'silent');
const TRY_MS = 500;
// What a loaded test machine may add to a try's wait.
const SLACK_MS = 400;

beforeAll(async () => {
  infra = await isolatedInfra('platform-rpc-retry');
  server = await connectNats(infra.natsUrl, 'rpc-retry-server');
  client = await connectNats(infra.natsUrl, 'rpc-retry-client');
  bindMetrics(client, metrics);
});
afterAll(async () => {
  await server?.close();
  await client?.close();
  await infra?.cleanup();
});

/** A replica that answers every request, counting them. */
async function healthyReplica(definition: RpcDefinition<typeof Ask, typeof Answer>) {
  let taken = 0;
  const rpc = await serveRpc(
    server,
    infra.natsPrefix,
    definition,
    (ask) => {
      taken++;
      return Promise.resolve({ n: ask.n, by: 'healthy' });
    },
    logger,
  );
  return { rpc, taken: () => taken };
}

/**
 * A replica in the same queue group on a connection of its own that takes requests and
 * never answers; once it took one, it dies with what it holds (`dieAfterMs`) or lives on.
 */
async function silentReplica(subject: string, dieAfterMs?: number) {
  const nc = await connectNats(infra.natsUrl, 'rpc-retry-silent');
  const full = prefixed(infra.natsPrefix, subject);
  let taken = 0;
  nc.subscribe(full, {
    queue: full,
    callback: () => {
      taken++;
      if (taken === 1 && dieAfterMs !== undefined) {
        setTimeout(() => void nc.close(), dieAfterMs);
      }
    },
  });
  await nc.flush();
  return { taken: () => taken, close: () => (nc.isClosed() ? Promise.resolve() : nc.close()) };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T | AppError }> {
  const started = Date.now();
  const result = await work().catch((error: unknown) => error as AppError);
  return { ms: Date.now() - started, result };
}

describe('an idempotent request whose replica died', () => {
  it('is answered by another replica when the one that took it is SIGKILLed', async () => {
    const definition = read('retry.killed');
    const healthy = await healthyReplica(definition);
    const subject = prefixed(infra.natsPrefix, definition.subject);
    // A real process in the queue group, killed (SIGKILL) by itself once it took a request.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { connect } from '@nats-io/transport-node';
         const nc = await connect({ servers: process.env.NATS_URL.split(',') });
         nc.subscribe(process.env.SUBJECT, {
           queue: process.env.SUBJECT,
           callback: () => process.kill(process.pid, 'SIGKILL'),
         });
         await nc.flush();
         process.stdout.write('ready\\n');`,
      ],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { ...process.env, NATS_URL: infra.natsUrl, SUBJECT: subject },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    await once(child.stdout, 'data');

    const waits: number[] = [];
    // Half the requests go to the child while it lives: it dies within a few.
    for (let n = 0; child.exitCode === null && child.signalCode === null && n < 40; n++) {
      const { ms, result } = await timed(() =>
        requestRpc(client, infra.natsPrefix, definition, { n }, { tryTimeoutMs: TRY_MS }),
      );
      expect(result).toEqual({ n, by: 'healthy' });
      waits.push(ms);
    }
    // Never picked in 40 tries (1 in 2^40): the check below on the waits fails.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    // The request the child took cost one try's wait, not the 5 s timeout.
    expect(Math.max(...waits)).toBeGreaterThanOrEqual(TRY_MS - 10);
    expect(Math.max(...waits)).toBeLessThan(TRY_MS + SLACK_MS);
    await healthy.rpc.stop();
  });

  it('is answered by another replica, never 503, when many were in flight', async () => {
    const definition = read('retry.inflight');
    const healthy = await healthyReplica(definition);
    const dying = await silentReplica(definition.subject, 20);
    const asks = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        timed(() =>
          requestRpc(client, infra.natsPrefix, definition, { n }, { tryTimeoutMs: TRY_MS }),
        ),
      ),
    );
    expect(dying.taken()).toBeGreaterThan(0);
    asks.forEach(({ result }, n) => expect(result).toEqual({ n, by: 'healthy' }));
    expect(Math.max(...asks.map(({ ms }) => ms))).toBeLessThan(TRY_MS + SLACK_MS);
    expect(healthy.taken()).toBe(20);
    await dying.close();
    await healthy.rpc.stop();
  });

  it('is answered once a replica subscribes after no-responders', async () => {
    const definition = read('retry.late-subscriber');
    const before = await retriesCounted(definition.subject, 'no-responders');
    const late = sleep(300).then(() => healthyReplica(definition));
    const { ms, result } = await timed(() =>
      requestRpc(client, infra.natsPrefix, definition, { n: 1 }),
    );
    expect(result).toEqual({ n: 1, by: 'healthy' });
    expect(ms).toBeLessThan(1_000);
    expect((await retriesCounted(definition.subject, 'no-responders')) - before).toBe(2);
    await (await late).rpc.stop();
  });

  it('sends four tries at most, and fails at the deadline when no replica answers', async () => {
    const definition = read('retry.silent');
    const silent = await silentReplica(definition.subject);
    const { ms, result } = await timed(() =>
      requestRpc(
        client,
        infra.natsPrefix,
        definition,
        { n: 1 },
        { timeoutMs: 1_500, tryTimeoutMs: 200 },
      ),
    );
    expect(result).toMatchObject({
      code: 'SERVICE503_UNAVAILABLE',
      details: { service: 'retry', reason: 'timeout' },
    });
    expect(silent.taken()).toBe(4);
    // Every try waits until the deadline: a silent service fails no sooner than before.
    expect(ms).toBeGreaterThanOrEqual(1_490);
    expect(await retriesCounted(definition.subject, 'timeout')).toBe(3);
    await silent.close();
  });

  it("takes a slow replica's answer to an earlier try when it comes first", async () => {
    const definition = read('retry.slow-answer');
    let taken = 0;
    const rpc = await serveRpc(
      server,
      infra.natsPrefix,
      definition,
      async (ask) => {
        taken++;
        const by = taken === 1 ? 'first' : 'second';
        await sleep(taken === 1 ? 250 : 1_000);
        return { n: ask.n, by };
      },
      logger,
    );
    const reply = await requestRpc(
      client,
      infra.natsPrefix,
      definition,
      { n: 1 },
      { tryTimeoutMs: 200 },
    );
    // Slower than the patience, yet answered: the second try was sent, the first won.
    expect(reply).toEqual({ n: 1, by: 'first' });
    expect(taken).toBe(2);
    await rpc.stop();
  });

  it('returns an error the service chose at once, without asking again', async () => {
    const definition = read('retry.chosen-error');
    let taken = 0;
    const errors = [
      new AppError('QR_CODE404_NOT_FOUND', 'QR code not found'),
      new AppError('SERVICE503_UNAVAILABLE', 'service temporarily unavailable, retry later'),
    ];
    const rpc = await serveRpc(
      server,
      infra.natsPrefix,
      definition,
      () => Promise.reject(errors[taken++] ?? new Error('asked too often')),
      logger,
    );
    for (const chosen of errors) {
      const { ms, result } = await timed(() =>
        requestRpc(client, infra.natsPrefix, definition, { n: 1 }, { tryTimeoutMs: TRY_MS }),
      );
      expect(result).toMatchObject({ code: chosen.code });
      expect(ms).toBeLessThan(TRY_MS);
    }
    expect(taken).toBe(2);
    await rpc.stop();
  });
});

describe('a request that is not idempotent', () => {
  it('still fails after the whole timeout when its replica died, though another lives', async () => {
    const definition = write('retry.write');
    const healthy = await healthyReplica(definition);
    const dying = await silentReplica(definition.subject, 20);
    let failure: { ms: number; result: unknown } | undefined;
    for (let n = 0; !failure && n < 40; n++) {
      const ask = await timed(() =>
        requestRpc(
          client,
          infra.natsPrefix,
          definition,
          { n },
          { timeoutMs: 1_500, tryTimeoutMs: 200 },
        ),
      );
      if (ask.result instanceof AppError) failure = ask;
      else expect(ask.result).toEqual({ n, by: 'healthy' });
    }
    expect(failure?.result).toMatchObject({
      code: 'SERVICE503_UNAVAILABLE',
      details: { reason: 'timeout' },
    });
    expect(failure?.ms).toBeGreaterThanOrEqual(1_490);
    expect(dying.taken()).toBe(1);
    expect(await retriesCounted(definition.subject, 'timeout')).toBe(0);
    await dying.close();
    await healthy.rpc.stop();
  });

  it('fails at once on no-responders', async () => {
    const { ms, result } = await timed(() =>
      requestRpc(client, infra.natsPrefix, write('retry.nobody'), { n: 1 }),
    );
    expect(result).toMatchObject({
      code: 'SERVICE503_UNAVAILABLE',
      details: { reason: 'no-responders' },
    });
    expect(ms).toBeLessThan(100);
  });
});

async function retriesCounted(subject: string, reason: string): Promise<number> {
  const { values } = await metrics.natsRequestRetries.get();
  return values.find((v) => v.labels.subject === subject && v.labels.reason === reason)?.value ?? 0;
}
