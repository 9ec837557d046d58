import { randomBytes } from 'node:crypto';
import { RegisteredPayment } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { CARDS, payByHttp } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

/**
 * Nothing secret is kept in clear: after every flow that handles one (API keys, checkout
 * tokens, an idempotent registration, partner API and signing secrets, card numbers), no
 * row of any dzpay table holds it, in text or as the hex of its bytes. Hashed and sealed
 * columns pass by construction: neither contains the secret.
 */

const SECRETS_KEY = randomBytes(32).toString('base64');
const API_SECRET = `psk_${randomBytes(24).toString('base64url')}`;
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: Stack;
let partner: PartnerServer;
let shop: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  partner = await startPartnerServer({ signingSecret: SIGNING_SECRET });
  stack = await startStack(
    'secrets-at-rest',
    { SECRETS_KEY, RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true, withStatus: true, withWebhooks: { SECRETS_KEY } },
  );
  shop = await stack.merchant('Librairie du Parc', { walletId: 'W-S' });
  await connectPartner(
    stack,
    shop.id,
    { url: partner.url, apiSecret: API_SECRET, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
});
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

async function register(idempotencyKey: string): Promise<RegisteredPayment> {
  const response = await stack.post(
    '/api/v1/payments',
    { amount: 150_000, currency: 'DZD', reference: `AT-REST-${idempotencyKey}` },
    { 'x-api-key': shop.testKey, 'idempotency-key': idempotencyKey },
  );
  expect(response.status).toBe(201);
  return RegisteredPayment.parse(((await response.json()) as { data: unknown }).data);
}

/** Every row of every table in dzpay's schemas, as Postgres prints it. */
async function everyRow(): Promise<{ table: string; text: string }[]> {
  const sql = stack.gateway.runtime.sql;
  const tables = await sql<{ schema: string; name: string }[]>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE'
      and table_schema not in ('pg_catalog', 'information_schema')`;
  const rows: { table: string; text: string }[] = [];
  for (const { schema, name } of tables) {
    const found = await sql<{ text: string }[]>`
      select t::text as text from ${sql(schema)}.${sql(name)} t`;
    for (const row of found) rows.push({ table: `${schema}.${name}`, text: row.text });
  }
  return rows;
}

describe('secrets at rest', () => {
  it('no table holds a checkout token, API key, partner secret or card number in clear', async () => {
    const first = await register('at-rest-1');
    // The replay answers the same link: the token is kept, sealed.
    expect((await register('at-rest-1')).checkoutUrl).toBe(first.checkoutUrl);
    await payByHttp(first.checkoutUrl, CARDS.approved);
    const paid = await stack.get(`/api/v1/payments/${first.id}`, { 'x-api-key': shop.testKey });
    expect(((await paid.json()) as { data: { status: string } }).data.status).toBe('success');
    const refund = await stack.post(
      `/api/v1/payments/${first.id}/refund`,
      { amount: 50_000 },
      { 'x-api-key': shop.testKey, 'idempotency-key': 'at-rest-refund' },
    );
    expect(refund.status).toBe(200);
    const unpaid = await register('at-rest-2');

    await payProductReference(stack, shop.id, 'BOOK-AT-REST', CARDS.approved);
    await expect
      .poll(() => partner.webhooks.some((event) => event.data.reference === 'BOOK-AT-REST'), {
        timeout: 10_000,
      })
      .toBe(true);
    // The partner was asked with its API secret: it went through dzpay, so it is in play.
    const bearer = `Bearer ${API_SECRET}`;
    expect(partner.requests.some((request) => request.headers.authorization === bearer)).toBe(true);

    const tokenOf = (payment: RegisteredPayment) =>
      new URL(payment.checkoutUrl).pathname.split('/').pop()!;
    const secrets: Record<string, string> = {
      'checkout token (paid)': tokenOf(first),
      'checkout token (unpaid)': tokenOf(unpaid),
      'test API key': shop.testKey,
      'live API key': shop.liveKey,
      'partner API secret': API_SECRET,
      'webhook signing secret': SIGNING_SECRET,
      'card number': CARDS.approved.pan,
    };
    const rows = await everyRow();
    expect(rows.length).toBeGreaterThan(20);
    const leaks: string[] = [];
    for (const [what, secret] of Object.entries(secrets)) {
      const hex = Buffer.from(secret, 'utf8').toString('hex');
      for (const { table, text } of rows) {
        if (text.includes(secret) || text.includes(hex)) leaks.push(`${what} in ${table}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
