import { randomUUID } from 'node:crypto';
import { createDatabase } from '@dzpay/testkit/databases';
import { startNetLab, type NetLab } from '@dzpay/testkit/netlab';
import { startPostgresPair, type PostgresPair } from '@dzpay/testkit/postgres-pair';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

// dzpay on a primary and a synchronous standby (docs/failover.md): the link
// between them is cut, then the primary's machine is lost while registrations wait. Whatever a merchant was
// told was registered must be there on the promoted standby. A write acknowledged before
// the standby had it (asynchronous replication, or `synchronous_commit = local` on a
// connection) is lost with the primary, and this test fails.

let lab: NetLab;
let pair: PostgresPair;
let stack: Stack;

beforeAll(async () => {
  // Each server on a host of its own, so the link between them can be cut.
  lab = await startNetLab();
  pair = await startPostgresPair({ network: lab });
  await createDatabase(pair.primaryUrl('postgres'), 'dzpay_failover');
  stack = await startStack(
    'pg-failover',
    { SERVICE_TIMEOUT_MS: '1500', PAYMENTS_TIMEOUT_MS: '1500' },
    { withPayments: true, databaseUrl: pair.url('dzpay_failover') },
  );
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await pair?.stop();
  await lab?.stop();
});

interface Attempt {
  key: string;
  reference: string;
  status: number;
  id?: string;
}

async function register(apiKey: string, key: string, reference: string): Promise<Attempt> {
  const response = await fetch(`${stack.gateway.url}/api/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': key },
    body: JSON.stringify({ amount: 150_000, currency: 'DZD', reference }),
    signal: AbortSignal.timeout(4_000),
  }).catch(() => null);
  if (!response) return { key, reference, status: 0 };
  const body = (await response.json().catch(() => null)) as { data?: { id?: string } } | null;
  return {
    key,
    reference,
    status: response.status,
    ...(body?.data?.id ? { id: body.data.id } : {}),
  };
}

describe('the Postgres primary lost while commits wait on the standby', () => {
  it('keeps every acknowledged registration, and answers the unacknowledged ones once on retry', async () => {
    const merchant = await stack.merchant('Failover shop');
    const before = await register(merchant.testKey, randomUUID(), `PF-BEFORE-${randomUUID()}`);
    expect(before.status).toBe(201);

    await pair.stallReplication();
    const during = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        register(merchant.testKey, randomUUID(), `PF-DURING-${i}-${randomUUID()}`),
      ),
    );
    const timings = await pair.failover();
    process.stdout.write(
      `postgres failover: promoted after ${timings.promotedAfterMs} ms, writes again after ${timings.writableAfterMs} ms\n`,
    );

    // Every acknowledged write is on the new primary.
    for (const acknowledged of [before, ...during].filter((a) => a.status === 201)) {
      const read = await stack.get(`/api/v1/payments/${acknowledged.id}`, {
        'x-api-key': merchant.testKey,
      });
      expect(read.status, `payment ${acknowledged.id} acknowledged before the failover`).toBe(200);
    }
    // Synchronous: a commit waits for the standby, so nothing was acknowledged while it slept.
    expect(during.filter((a) => a.status === 201)).toEqual([]);
    // A merchant's retry with the same key registers each one once (or finds it).
    const retried = await Promise.all(
      during.map((a) => register(merchant.testKey, a.key, a.reference)),
    );
    expect(retried.map((a) => a.status)).toEqual(during.map(() => 201));
    const again = await Promise.all(
      during.map((a) => register(merchant.testKey, a.key, a.reference)),
    );
    expect(again.map((a) => a.id)).toEqual(retried.map((a) => a.id));
  }, 120_000);
});
