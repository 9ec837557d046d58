import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Kvm } from '@nats-io/kv';
import {
  partnerDirectoryKey,
  Rpc,
  type MerchantTerms,
  type PartnerDirectoryEntry,
} from '@dzpay/contracts';
import {
  AppError,
  connectNats,
  partnerBucketName,
  partnerSecretOwner,
  requestRpc,
  sealSecret,
  type NatsConnection,
} from '@dzpay/platform';
import { countingServer, type CountingServer } from '@dzpay/testkit/loopback-connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * One sale per product as the partner sees it. The partners here are real HTTP servers
 * with the lookups partners really have: one that ignores letter case (a MySQL `_ci`
 * collation), one that normalises Unicode, one that echoes what it was asked, one that
 * answers for another product. dzpay keys the sale on the partner's answer, and asks
 * the partner in NFC, trimmed.
 */

let h: PaymentsHarness;
let nats: NatsConnection;
let server: CountingServer;
/** What each merchant's partner answers, by merchant id (the server's first path step). */
const partners = new Map<string, (asked: string) => Answer>();
/** Every reference a partner was asked for, decoded, by merchant id. */
const askedOf = new Map<string, string[]>();

interface Answer {
  status: number;
  body: unknown;
}

beforeAll(async () => {
  h = await startPaymentsHarness('payments-product-reference');
  nats = await connectNats(h.infra.natsUrl, 'product-reference-test');
  server = await countingServer('127.0.0.1', (request, response) => answer(request, response));
});
afterAll(async () => {
  if (nats) {
    const kv = await new Kvm(nats).open(partnerBucketName(h.infra.natsPrefix));
    await kv.destroy().catch(() => false);
    await nats.close();
  }
  await server?.close();
  await h?.stop();
});

function answer(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  const [, merchantId = '', raw = ''] = /^\/([^/]+)\/(.*)$/.exec(request.url ?? '') ?? [];
  const asked = decodeURIComponent(raw);
  askedOf.set(merchantId, [...(askedOf.get(merchantId) ?? []), asked]);
  const lookup = partners.get(merchantId);
  const { status, body } = lookup
    ? lookup(asked)
    : { status: 404, body: { error: 'NOT_FOUND', errorMessage: 'no such partner' } };
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const product = (reference: string): Answer => ({
  status: 200,
  body: { reference, amount: 1500.5, currency: 'DZD', label: `Produit ${reference}` },
});
const notFound: Answer = { status: 404, body: { error: 'NOT_FOUND', errorMessage: 'none' } };

/**
 * A partner whose catalog holds `references`, found by `key` (how its database compares
 * references); it answers the reference as stored, as `SELECT sku … WHERE sku = ?` does.
 */
function catalogLookup(references: string[], key: (reference: string) => string) {
  return (asked: string) => {
    const stored = references.find((reference) => key(reference) === key(asked));
    return stored === undefined ? notFound : product(stored);
  };
}

/** A new merchant whose partner answers with `lookup`, published as the gateway does. */
async function merchantWith(lookup: (asked: string) => Answer): Promise<MerchantTerms> {
  const merchant: MerchantTerms = { ...h.merchant, merchantId: randomUUID() };
  partners.set(merchant.merchantId, lookup);
  const key = Buffer.from(h.runtime.config.SECRETS_KEY, 'base64');
  const owner = partnerSecretOwner(merchant.merchantId, merchant.mode);
  const entry: PartnerDirectoryEntry = {
    merchantId: merchant.merchantId,
    mode: merchant.mode,
    apiUrl: `http://127.0.0.1:${server.port}/${merchant.merchantId}`,
    apiSecretSealed: sealSecret(randomBytes(16).toString('hex'), key, owner).toString('base64'),
    signingSecrets: [],
  };
  const kv = await new Kvm(nats).create(partnerBucketName(h.infra.natsPrefix));
  await kv.put(partnerDirectoryKey(merchant.merchantId, merchant.mode), JSON.stringify(entry));
  return merchant;
}

/** The payer presses pay on /pay/{merchant}/{reference}. */
const start = (merchant: MerchantTerms, reference: string) =>
  requestRpc(
    h.runtime.nats,
    h.infra.natsPrefix,
    Rpc.attemptStart,
    { merchant, reference, language: 'fr', source: { kind: 'product' } },
    { timeoutMs: 30_000 },
  );

/** The product page: the partner's product as the payer is shown it. */
const lookup = (merchant: MerchantTerms, reference: string) =>
  requestRpc(
    h.runtime.nats,
    h.infra.natsPrefix,
    Rpc.productLookup,
    { merchant: { merchantId: merchant.merchantId, mode: merchant.mode }, reference },
    { timeoutMs: 30_000 },
  );

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'opened',
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );

async function pay(checkoutToken: string, paymentId: string): Promise<string> {
  await h.payCard(await h.toCardForm(checkoutToken));
  return (await h.comeBack(paymentId)).status;
}

/** Every attempt of the merchant, oldest first, with the reference it was sold under. */
const attemptsOf = (merchant: MerchantTerms) =>
  h.db<{ id: string; status: string; reference: string }[]>`
    select id, status, reference from payments
    where merchant_id = ${merchant.merchantId} order by created_at`;

/** The references of the merchant's payment.succeeded events, what webhooks carry. */
async function successesOf(merchant: MerchantTerms): Promise<string[]> {
  const rows = await h.db<{ reference: string }[]>`
    select payload->'data'->>'reference' as reference from outbox
    where payload->>'type' = 'payment.succeeded'
      and payload->>'merchantId' = ${merchant.merchantId}`;
  return rows.map((row) => row.reference);
}

describe('a partner whose lookup ignores letter case', () => {
  const caseInsensitive = (references: string[]) =>
    catalogLookup(references, (reference) => reference.toLowerCase());

  it('sells prod-ABC once however it is spelled: locked while the first attempt runs, already paid once it succeeded', async () => {
    const merchant = await merchantWith(caseInsensitive(['prod-ABC']));
    const first = await start(merchant, 'prod-abc');
    // The payment is named as the partner names the product: webhooks, status, pages.
    expect(await attemptsOf(merchant)).toEqual([
      { id: first.paymentId, status: 'pending', reference: 'prod-ABC' },
    ]);

    expect(await outcome(start(merchant, 'prod-ABC'))).toBe('REFERENCE409_LOCKED');
    expect(await outcome(start(merchant, 'PROD-abc'))).toBe('REFERENCE409_LOCKED');

    expect(await pay(first.checkoutToken, first.paymentId)).toBe('success');
    expect(await outcome(start(merchant, 'prod-ABC'))).toBe('PARTNER409_ALREADY_PAID');
    expect(await outcome(start(merchant, 'Prod-Abc'))).toBe('PARTNER409_ALREADY_PAID');

    expect((await attemptsOf(merchant)).map((a) => [a.status, a.reference])).toEqual([
      ['success', 'prod-ABC'],
    ]);
    expect(await successesOf(merchant)).toEqual(['prod-ABC']);
  });

  it('lets payers of every spelling race for the product: exactly one opens the sale', async () => {
    const merchant = await merchantWith(caseInsensitive(['Ticket-7f']));
    const spellings = [
      'ticket-7f',
      'TICKET-7F',
      'Ticket-7f',
      'tIcKeT-7F',
      'ticket-7F',
      'TICKET-7f',
    ];
    const outcomes = await Promise.all(
      [...spellings, ...spellings].map((spelling) => outcome(start(merchant, spelling))),
    );
    expect(outcomes.filter((o) => o === 'opened')).toHaveLength(1);
    expect(new Set(outcomes.filter((o) => o !== 'opened'))).toEqual(
      new Set(['REFERENCE409_LOCKED']),
    );
    expect((await attemptsOf(merchant)).map((a) => a.reference)).toEqual(['Ticket-7f']);
  });

  it("keeps an exact partner's two products that differ only by case apart: dzpay folds no sale key itself", async () => {
    const merchant = await merchantWith(catalogLookup(['code-x', 'CODE-X'], (r) => r));
    const lower = await start(merchant, 'code-x');
    const upper = await start(merchant, 'CODE-X');
    expect(await pay(lower.checkoutToken, lower.paymentId)).toBe('success');
    expect(await pay(upper.checkoutToken, upper.paymentId)).toBe('success');
    expect((await successesOf(merchant)).sort()).toEqual(['CODE-X', 'code-x']);
  });
});

describe('a partner whose lookup normalises Unicode', () => {
  const NFC = 'Caf\u00e9-7';
  const NFD = 'Cafe\u0301-7';

  it('sells a reference typed decomposed (NFD) and precomposed (NFC) once', async () => {
    const merchant = await merchantWith(
      catalogLookup([NFC], (reference) => reference.normalize('NFC')),
    );
    const first = await start(merchant, NFD);
    expect(await outcome(start(merchant, NFC))).toBe('REFERENCE409_LOCKED');
    expect(await pay(first.checkoutToken, first.paymentId)).toBe('success');
    expect(await outcome(start(merchant, NFD))).toBe('PARTNER409_ALREADY_PAID');
    expect(await outcome(start(merchant, NFC))).toBe('PARTNER409_ALREADY_PAID');
    expect(await successesOf(merchant)).toEqual([NFC]);
  });

  it('asks the partner in NFC and trimmed, so a partner that echoes what it was asked sells once too', async () => {
    // Its lookup normalises, but its answer repeats the reference as it came in.
    const merchant = await merchantWith((asked) =>
      asked.normalize('NFC').trim() === NFC ? product(asked) : notFound,
    );
    const first = await start(merchant, ` ${NFD}\t`);
    expect(await outcome(start(merchant, NFC))).toBe('REFERENCE409_LOCKED');
    expect(await pay(first.checkoutToken, first.paymentId)).toBe('success');
    expect(await outcome(start(merchant, `${NFD} `))).toBe('PARTNER409_ALREADY_PAID');

    expect(new Set(askedOf.get(merchant.merchantId))).toEqual(new Set([NFC]));
    expect(await successesOf(merchant)).toEqual([NFC]);
  });

  it('asks nothing for a reference that is only whitespace', async () => {
    const merchant = await merchantWith(() => product('anything'));
    expect(await outcome(start(merchant, ' \u3000 '))).toBe('PARTNER404_PRODUCT_NOT_FOUND');
    expect(askedOf.get(merchant.merchantId)).toBeUndefined();
  });
});

describe('a partner that answers for another reference', () => {
  it('is refused as unavailable, on the product page and on pay, and nothing is sold', async () => {
    const merchant = await merchantWith(() => product('OTHER-1'));
    expect(await outcome(lookup(merchant, 'WANTED-1'))).toBe('PARTNER503_UNAVAILABLE');
    expect(await outcome(start(merchant, 'WANTED-1'))).toBe('PARTNER503_UNAVAILABLE');
    expect(await attemptsOf(merchant)).toEqual([]);
  });

  it('is refused as unavailable when its answer has no reference', async () => {
    const merchant = await merchantWith(() => ({
      status: 200,
      body: { amount: 1500.5, currency: 'DZD' },
    }));
    expect(await outcome(start(merchant, 'WANTED-2'))).toBe('PARTNER503_UNAVAILABLE');
    expect(await attemptsOf(merchant)).toEqual([]);
  });

  it('shows the product page under the reference the partner sells it by', async () => {
    const merchant = await merchantWith(
      catalogLookup(['prod-ABC'], (reference) => reference.toLowerCase()),
    );
    expect(await lookup(merchant, 'PROD-abc')).toMatchObject({ reference: 'prod-ABC' });
  });
});
