import { randomUUID } from 'node:crypto';
import { connectPostgres, migrate, type Sql } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onStatusChanges } from '@dzpay/platform';
import { attemptsCache, type AttemptsCache } from '../src/adapters/attempts-cache.ts';
import { statusRepository, type StatusRepository } from '../src/adapters/status-repository.ts';
import type { AttemptUpdate } from '../src/domain/attempt-event.ts';

// Two status replicas over one database, each with its cache: what one projects, the
// other must stop answering from memory as soon as Postgres notifies the commit. The
// caches' time limit is ten minutes, so only a notification can make these pass. The
// projecting replica `a` does not listen here, so that its answers right after a write
// prove its own commit hook (in production every replica listens too).

let infra: IsolatedInfra;
const connections: Sql[] = [];

interface Replica {
  cache: AttemptsCache;
  repository: StatusRepository;
}

async function replica(listens: boolean): Promise<Replica> {
  const sql = connectPostgres(infra.databaseUrl, 'status', 2);
  connections.push(sql);
  const reader = statusRepository(sql);
  const cache = attemptsCache((scope, reference) => reader.attemptsOf(scope, reference), {
    ttlMs: 600_000,
    maxEntries: 100,
  });
  if (listens) await onStatusChanges(sql, cache);
  return { cache, repository: statusRepository(sql, { onCommitted: (c) => cache.forget(c) }) };
}

const scope = { merchantId: randomUUID(), mode: 'test' as const };
const update = (reference: string, overrides: Partial<AttemptUpdate> = {}): AttemptUpdate => ({
  paymentId: randomUUID(),
  ...scope,
  reference,
  referenceKind: 'product',
  locksReference: true,
  status: 'pending',
  amount: 100_00,
  currency: 'DZD',
  orderId: null,
  paidAt: null,
  lockExpiresAt: new Date('2030-01-01T00:15:00.000Z'),
  lockHasExpiry: true,
  createdAt: new Date('2030-01-01T00:00:00.000Z'),
  updatedAt: new Date('2030-01-01T00:00:00.000Z'),
  paymentVersion: null,
  ...overrides,
});

let seq = 0;
const apply = (on: Replica, change: AttemptUpdate) =>
  on.repository.apply('payments', ++seq, { eventId: randomUUID(), update: change });

/** Polls until `check` passes (a notification crosses a connection), at most 5 s. */
async function eventually(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

let a: Replica;
let b: Replica;

beforeAll(async () => {
  infra = await isolatedInfra('status-cache');
  const sql = connectPostgres(infra.databaseUrl, 'status', 1);
  await migrate(sql, 'status', new URL('../migrations/', import.meta.url));
  await sql.end();
  [a, b] = [await replica(false), await replica(true)];
});
afterAll(async () => {
  await Promise.all(connections.map((sql) => sql.end()));
  await infra?.cleanup();
});

describe('status caches of two replicas', () => {
  it('the replica that projected an event answers it at once, the other once notified', async () => {
    const first = update('REF-A');
    await apply(a, first);
    // Both remember the pending attempt.
    for (const { cache } of [a, b]) {
      expect((await cache.attemptsOf(scope, 'REF-A')).map((x) => x.status)).toEqual(['pending']);
    }
    await apply(a, { ...first, status: 'success', paidAt: new Date() });
    // Before the event would be acknowledged: no wait on the replica that applied it.
    expect((await a.cache.attemptsOf(scope, 'REF-A')).map((x) => x.status)).toEqual(['success']);
    await eventually(async () => {
      expect((await b.cache.attemptsOf(scope, 'REF-A')).map((x) => x.status)).toEqual(['success']);
    });
  });

  it('a new attempt on a reference replaces what a replica remembered of it', async () => {
    await apply(a, update('REF-B', { status: 'failed' }));
    expect(await b.cache.attemptsOf(scope, 'REF-B')).toHaveLength(1);
    await apply(a, update('REF-B'));
    expect(await a.cache.attemptsOf(scope, 'REF-B')).toHaveLength(2);
    await eventually(async () => expect(await b.cache.attemptsOf(scope, 'REF-B')).toHaveLength(2));
  });

  it('a webhook delivery state reaches both replicas', async () => {
    const attempt = update('REF-C', { status: 'success', paidAt: new Date() });
    await apply(a, attempt);
    for (const { cache } of [a, b]) {
      expect((await cache.attemptsOf(scope, 'REF-C'))[0]?.webhookDelivery).toBeNull();
    }
    const delivered = { paymentId: attempt.paymentId, state: 'success' as const };
    await a.repository.applyDelivery('webhooks', ++seq, {
      eventId: randomUUID(),
      delivery: delivered,
    });
    expect((await a.cache.attemptsOf(scope, 'REF-C'))[0]?.webhookDelivery).toBe('success');
    await eventually(async () =>
      expect((await b.cache.attemptsOf(scope, 'REF-C'))[0]?.webhookDelivery).toBe('success'),
    );
  });

  it('a change nobody applied through a repository is still forgotten (the trigger)', async () => {
    await apply(a, update('REF-D'));
    expect((await b.cache.attemptsOf(scope, 'REF-D'))[0]?.status).toBe('pending');
    const [sql] = connections;
    await sql!`update attempts set status = 'failed' where reference = 'REF-D'`;
    await eventually(async () =>
      expect((await b.cache.attemptsOf(scope, 'REF-D'))[0]?.status).toBe('failed'),
    );
  });
});
