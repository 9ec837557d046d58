import { Rpc, type QrCodesListReply } from '@dzpay/contracts';
import { requestRpc } from '@dzpay/platform';
import type { AppError, NatsConnection, Sql } from '@dzpay/platform';
import type { IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qrRepository } from '../src/adapters/qr-repository.ts';
import { startQrHandlersTestbed, type QrHandlersTestbed } from './handlers-testbed.ts';

let testbed: QrHandlersTestbed;
let infra: IsolatedInfra;
let sql: Sql;
let nats: NatsConnection;
const now = new Date('2030-01-01T00:00:00.000Z');

const alice = { merchantId: '11111111-1111-4111-8111-111111111111', mode: 'test' as const };
const aliceLive = { ...alice, mode: 'live' as const };
const bob = { merchantId: '22222222-2222-4222-8222-222222222222', mode: 'test' as const };

const list = (request: Parameters<typeof requestRpc<typeof Rpc.qrCodesList>>[3]) =>
  requestRpc(nats, infra.natsPrefix, Rpc.qrCodesList, request);

/** Every page from the first, following nextCursor. */
async function allPages(scope: typeof alice, limit: number): Promise<QrCodesListReply[]> {
  const pages: QrCodesListReply[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ ...scope, limit, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

beforeAll(async () => {
  testbed = await startQrHandlersTestbed('qr-codes-list', () => now);
  ({ infra, sql, nats } = testbed);
  // Alice's codes: three created in the same microsecond (the keyset's tie-break on the
  // token is what keeps them apart), two before, one of the live mode; Bob's one.
  await sql`
    insert into codes (token, merchant_id, mode, created_at) values
      ('A-old', ${alice.merchantId}, 'test', '2029-01-01T00:00:00.000001Z'),
      ('A-mid', ${alice.merchantId}, 'test', '2029-06-01T00:00:00.000500Z'),
      ('A-tie-1', ${alice.merchantId}, 'test', '2029-12-01T00:00:00.123456Z'),
      ('A-tie-2', ${alice.merchantId}, 'test', '2029-12-01T00:00:00.123456Z'),
      ('A-tie:3', ${alice.merchantId}, 'test', '2029-12-01T00:00:00.123456Z'),
      ('A-sub-ms', ${alice.merchantId}, 'test', '2029-12-01T00:00:00.123457Z'),
      ('A-live', ${alice.merchantId}, 'live', '2029-12-02T00:00:00Z'),
      ('B-one', ${bob.merchantId}, 'test', '2029-12-03T00:00:00Z')`;
  const repository = qrRepository(sql);
  await repository.replaceConfig(alice, 'A-mid', {
    amounts: [150_000, 250_050],
    expiresAt: null,
    singleUse: true,
  });
  await repository.replaceConfig(alice, 'A-mid', {
    amounts: [250_050],
    expiresAt: '2031-01-01T00:00:00.000Z',
    singleUse: false,
  });
  await repository.replaceConfig(alice, 'A-old', {
    amounts: [5_000],
    expiresAt: '2029-06-01T00:00:00.000Z',
    singleUse: false,
  });
});
afterAll(() => testbed?.close());

describe('qr.codes.list', () => {
  it('lists the scope’s codes newest first with their configuration and its state', async () => {
    const page = await list({ ...alice, limit: 100 });
    expect(page.nextCursor).toBeNull();
    expect(page.codes.map((code) => code.token)).toEqual([
      'A-sub-ms',
      'A-tie:3',
      'A-tie-2',
      'A-tie-1',
      'A-mid',
      'A-old',
    ]);
    const mid = page.codes.find((code) => code.token === 'A-mid')!;
    expect(mid).toMatchObject({
      state: 'configured',
      createdAt: '2029-06-01T00:00:00.000Z',
      config: {
        amounts: [250_050],
        expiresAt: '2031-01-01T00:00:00.000Z',
        singleUse: false,
        version: 2,
      },
    });
    expect(page.codes.find((code) => code.token === 'A-old')).toMatchObject({
      state: 'expired',
      config: { amounts: [5_000], version: 1 },
    });
    expect(page.codes[0]).toMatchObject({ state: 'none', config: null });
  });

  it('pages by keyset: every code once, also those created in the same microsecond', async () => {
    for (const limit of [1, 2, 4]) {
      const pages = await allPages(alice, limit);
      const tokens = pages.flatMap((page) => page.codes.map((code) => code.token));
      expect(tokens).toEqual(['A-sub-ms', 'A-tie:3', 'A-tie-2', 'A-tie-1', 'A-mid', 'A-old']);
      expect(pages.at(-1)!.nextCursor).toBeNull();
      expect(pages.length).toBe(Math.ceil(6 / limit));
    }
  });

  it('a code created after the first page does not shift the next pages', async () => {
    const first = await list({ ...alice, limit: 2 });
    await sql`insert into codes (token, merchant_id, mode) values ('A-new', ${alice.merchantId}, 'test')`;
    const second = await list({ ...alice, limit: 2, cursor: first.nextCursor! });
    expect(second.codes.map((code) => code.token)).toEqual(['A-tie-2', 'A-tie-1']);
    await sql`delete from codes where token = 'A-new'`;
  });

  it('keeps merchants and modes apart', async () => {
    expect((await list({ ...aliceLive, limit: 10 })).codes.map((c) => c.token)).toEqual(['A-live']);
    expect((await list({ ...bob, limit: 10 })).codes.map((c) => c.token)).toEqual(['B-one']);
    const none = { merchantId: '33333333-3333-4333-8333-333333333333', mode: 'test' as const };
    expect(await list({ ...none, limit: 10 })).toEqual({ codes: [], nextCursor: null });
  });

  it('refuses a cursor it did not give out', async () => {
    for (const cursor of ['nope!', 'bm90LWEtY3Vyc29y', 'MTIz']) {
      const error = await list({ ...alice, limit: 10, cursor }).then(
        () => null,
        (caught: unknown) => caught as AppError,
      );
      expect(error).toMatchObject({
        code: 'VALIDATION400_BAD_REQUEST',
        details: { failures: [{ field: 'cursor' }] },
      });
    }
  });
});
