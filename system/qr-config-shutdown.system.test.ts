import { StandardError } from '@dzpay/contracts';
import { spawnService, type ServiceProcess } from '@dzpay/testkit';
import { entryOf } from '@dzpay/stack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

const QR_CONFIG_MAIN = entryOf('qr-config');
const REQUESTS = 400;
const CONCURRENCY = 16;

let stack: Stack;
let qrConfig: ServiceProcess | undefined;

beforeAll(async () => {
  stack = await startStack(
    'qr-shutdown',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { withQrConfig: false },
  );
  qrConfig = await spawnService(QR_CONFIG_MAIN, stack.infra.env);
});
afterAll(async () => {
  qrConfig?.kill('SIGKILL');
  await stack?.stop();
});

describe('qr-config stopped with SIGTERM under load', () => {
  it('loses no acknowledged configuration, and the gateway answers 503 while it is down', async () => {
    const merchant = await stack.merchant();
    const tokens = await Promise.all(
      Array.from({ length: REQUESTS }, () => stack.qrCode(merchant.id)),
    );
    const outcomes: { status: number; body: unknown; ms: number }[] = [];
    let next = 0;
    let done = 0;
    let exited: Promise<{ code: number | null }> | undefined;

    async function worker() {
      while (next < REQUESTS) {
        const i = next++;
        const started = Date.now();
        const response = await stack.post(
          '/set-qr-config',
          { token: tokens[i], amounts: [i + 50], singleUse: false },
          { 'x-api-key': merchant.testKey },
        );
        const text = await response.text();
        outcomes[i] = {
          status: response.status,
          body: text ? JSON.parse(text) : null,
          ms: Date.now() - started,
        };
        if (++done === REQUESTS / 4) {
          qrConfig!.kill('SIGTERM');
          exited = qrConfig!.exited();
        }
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    // A graceful stop: in-flight requests answered, then exit 0.
    expect(await exited).toMatchObject({ code: 0 });

    const statuses = new Set(outcomes.map((o) => o.status));
    expect([...statuses].every((s) => s === 200 || s === 503)).toBe(true);
    const unavailable = outcomes.filter((o) => o.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const { body, ms } of unavailable) {
      expect(StandardError.parse(body).errorCode).toBe('SERVICE503_UNAVAILABLE');
      expect(ms).toBeLessThan(2_500); // answered, not hung
    }

    // Back up: every acknowledged configuration is there, and nothing else was mangled.
    qrConfig = await spawnService(QR_CONFIG_MAIN, stack.infra.env);
    const stored = await Promise.all(tokens.map((token) => stack.readQr(token)));
    let acknowledged = 0;
    stored.forEach((reply, i) => {
      if (outcomes[i]!.status === 200) {
        acknowledged++;
        expect(reply.config?.amounts).toEqual([(i + 50) * 100]);
      } else if (reply.config) {
        expect(reply.config.amounts).toEqual([(i + 50) * 100]);
      }
    });
    expect(acknowledged).toBeGreaterThanOrEqual(REQUESTS / 4);
  });

  it('answers 503 in the standard envelope, fast, while qr-config is down', async () => {
    qrConfig!.kill('SIGTERM');
    await qrConfig!.exited();
    const merchant = await stack.merchant();
    const started = Date.now();
    const response = await stack.post(
      '/un-set-qr-config',
      { token: 'QR-ANY' },
      { 'x-api-key': merchant.testKey },
    );
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(response.status).toBe(503);
    const body = StandardError.parse(await response.json());
    expect(body).toMatchObject({ statusCode: 503, errorCode: 'SERVICE503_UNAVAILABLE' });
  });
});
