import { randomUUID } from 'node:crypto';
import { connectPostgres, migrate, type Sql } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusRepository, type StatusRepository } from '../src/adapters/status-repository.ts';
import type { AttemptUpdate } from '../src/domain/attempt-event.ts';

let infra: IsolatedInfra;
let sql: Sql;
let repository: StatusRepository;

const scope = { merchantId: randomUUID(), mode: 'test' as const };
const update = (overrides: Partial<AttemptUpdate>): AttemptUpdate => ({
  paymentId: '00000000-0000-4000-8000-000000000001',
  ...scope,
  reference: 'REF-1',
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

beforeAll(async () => {
  infra = await isolatedInfra('status-repository');
  sql = connectPostgres(infra.databaseUrl, 'status', 2);
  await migrate(sql, 'status', new URL('../migrations/', import.meta.url));
  repository = statusRepository(sql);
});
afterAll(async () => {
  await sql?.end();
  await infra?.cleanup();
});

describe('status repository', () => {
  it('never lets an older stream sequence overwrite a newer one', async () => {
    const succeeded = update({ status: 'success', paidAt: new Date('2030-01-01T00:05:00.000Z') });
    const redelivered = update({ status: 'processing' });
    expect(await repository.apply('c', 7, { eventId: randomUUID(), update: succeeded })).toBe(
      'applied',
    );
    expect(await repository.apply('c', 5, { eventId: randomUUID(), update: redelivered })).toBe(
      'applied',
    );
    const [attempt] = await repository.attemptsOf(scope, 'REF-1');
    expect(attempt).toMatchObject({ status: 'success', webhookDelivery: null });
  });

  it('applies an event id once', async () => {
    const eventId = randomUUID();
    const change = { eventId, update: update({ paymentId: randomUUID(), reference: 'REF-2' }) };
    expect(await repository.apply('c', 8, change)).toBe('applied');
    expect(await repository.apply('c', 9, change)).toBe('duplicate');
  });

  it('keeps the highest sequence seen, counting messages that build no attempt', async () => {
    expect(await repository.positionOf('other')).toBe(0);
    expect(await repository.apply('other', 12, null)).toBe('ignored');
    expect(await repository.apply('other', 3, null)).toBe('ignored');
    expect(await repository.positionOf('other')).toBe(12);
  });

  const delivery = (paymentId: string, state: 'pending' | 'success' | 'fail') => ({
    eventId: randomUUID(),
    delivery: { paymentId, state },
  });
  const deliveryOf = async (reference: string) =>
    (await repository.attemptsOf(scope, reference))[0]?.webhookDelivery;

  it('never lets an older WEBHOOKS sequence overwrite a newer delivery state', async () => {
    const paymentId = randomUUID();
    await repository.apply('c', 20, {
      eventId: randomUUID(),
      update: update({ paymentId, reference: 'REF-W1' }),
    });
    expect(await repository.applyDelivery('w', 4, delivery(paymentId, 'success'))).toBe('applied');
    expect(await repository.applyDelivery('w', 3, delivery(paymentId, 'pending'))).toBe('applied');
    expect(await deliveryOf('REF-W1')).toBe('success');
    const fail = delivery(paymentId, 'fail');
    expect(await repository.applyDelivery('w', 5, fail)).toBe('applied');
    expect(await repository.applyDelivery('w', 6, fail)).toBe('duplicate');
    expect(await deliveryOf('REF-W1')).toBe('fail');
  });

  it('keeps the newest delivery state that arrived before its attempt', async () => {
    const paymentId = randomUUID();
    await repository.applyDelivery('w', 8, delivery(paymentId, 'fail'));
    await repository.applyDelivery('w', 7, delivery(paymentId, 'pending'));
    expect(await repository.attemptsOf(scope, 'REF-W2')).toEqual([]);
    await repository.apply('c', 21, {
      eventId: randomUUID(),
      update: update({ paymentId, reference: 'REF-W2' }),
    });
    expect(await deliveryOf('REF-W2')).toBe('fail');
    // Once on the attempt, it is no longer parked, and later events land on the row.
    expect(
      await sql`select 1 from pending_webhook_deliveries where payment_id = ${paymentId}`,
    ).toHaveLength(0);
    await repository.applyDelivery('w', 9, delivery(paymentId, 'success'));
    expect(await deliveryOf('REF-W2')).toBe('success');
  });

  it("keeps each merchant's and mode's attempts apart", async () => {
    expect(await repository.attemptsOf({ ...scope, mode: 'live' }, 'REF-1')).toEqual([]);
    expect(
      await repository.attemptsOf({ merchantId: randomUUID(), mode: 'test' }, 'REF-1'),
    ).toEqual([]);
  });
});
