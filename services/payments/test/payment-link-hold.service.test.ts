import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Rpc, type PaymentLinkView } from '@dzpay/contracts';
import { AppError, requestRpc } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusal, startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * Who holds a single-use link, and for how long: the same payer's form sent twice
 * resumes its payment, a payer whose window ended no longer holds it, and the table
 * refuses a link with no amount at all. The sweeper is kept out of the way (it runs once
 * an hour here), so only paying the link can settle a holder whose window ended.
 */

const WINDOW_MS = 1_500;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payment-link-hold', {
    PAYMENT_WINDOW_MS: String(WINDOW_MS),
    SWEEP_INTERVAL_MS: String(60 * 60 * 1000),
  });
});
afterAll(async () => {
  await h?.stop();
});

const ask = <D extends (typeof Rpc)[keyof typeof Rpc]>(definition: D, request: unknown) =>
  requestRpc(h.runtime.nats, h.infra.natsPrefix, definition, request as never, {
    timeoutMs: 30_000,
  });
const create = (): Promise<PaymentLinkView> =>
  ask(Rpc.paymentLinksCreate, {
    merchant: h.merchant,
    link: { label: 'Place de concert', amount: 150_000, singleUse: true },
  });
const tokenOf = (link: PaymentLinkView) => new URL(link.url).pathname.split('/').at(-1)!;
const nonce = () => randomBytes(16).toString('base64url');
const pay = (
  link: PaymentLinkView,
  attempt?: string,
): Promise<{ paymentId: string; checkoutToken: string }> =>
  ask(Rpc.paymentLinkPay, {
    token: tokenOf(link),
    merchant: h.merchant,
    language: 'fr',
    ...(attempt ? { attempt } : {}),
  });

describe('the same form sent again', () => {
  it('resumes its payment (a double click, a retry), never “someone is paying”', async () => {
    const link = await create();
    const form = nonce();
    // A double click: both sends at once.
    const [first, second] = await Promise.all([pay(link, form), pay(link, form)]);
    expect(second).toEqual(first);
    // A retry after the gateway gave up waiting: the same checkout again.
    expect(await pay(link, form)).toEqual(first);
    const rows =
      await h.db`select count(*)::int as n from payments where payment_link_id = ${link.id}`;
    expect(rows[0]!.n).toBe(1);
    // Another payer's form is still refused while this payer's window is open.
    expect(await refusal(pay(link, nonce()))).toBe('PAYMENT_LINK409_BEING_PAID');
    expect(await refusal(pay(link))).toBe('PAYMENT_LINK409_BEING_PAID');
  });
});

describe('a payer whose window ended', () => {
  it('no longer holds the link: paying settles it as the sweeper would, then opens', async () => {
    const link = await create();
    const stale = await pay(link, nonce());
    // The payer reached the card form (an order at the card network), then left.
    await h.toCardForm(stale.checkoutToken);
    await sleep(WINDOW_MS + 200);
    const view = await ask(Rpc.paymentLinkView, { token: tokenOf(link) });
    expect(view).toMatchObject({ state: 'active', busyUntil: null });

    const next = await pay(link, nonce());
    expect(next.paymentId).not.toBe(stale.paymentId);
    // Expired as the sweeper expires it: its card order cancelled first.
    expect((await h.get(stale.paymentId)).status).toBe('expired');
    expect((await h.get(next.paymentId)).reference).toBe(`link-${link.id}-2`);
  });

  it('still holds it while the card network cannot say it was not paid, with a retry time ahead', async () => {
    const link = await create();
    const stale = await pay(link, nonce());
    await h.toCardForm(stale.checkoutToken);
    await sleep(WINDOW_MS + 200);
    await h.control.setFaults([
      { operation: 'getOrderStatusExtended', effect: 'unavailable', times: 20 },
      { operation: 'reverse', effect: 'unavailable', times: 20 },
    ]);
    try {
      const refused = await pay(link, nonce()).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(AppError);
      const error = refused as AppError;
      expect(error.code).toBe('PAYMENT_LINK409_BEING_PAID');
      expect(Date.parse(error.details!.retryAt as string)).toBeGreaterThan(Date.now());
      expect((await h.get(stale.paymentId)).status).not.toBe('expired');
    } finally {
      await h.control.clearFaults();
    }
    // The network back: the next payer settles the stale holder and gets the link.
    const next = await pay(link, nonce());
    expect((await h.get(stale.paymentId)).status).toBe('expired');
    expect(next.paymentId).not.toBe(stale.paymentId);
  });
});

describe('the payment_links table', () => {
  it('refuses a link with neither an amount nor a maximum', async () => {
    const insert = (max: number | null) =>
      h.db`insert into payment_links (id, merchant_id, mode, token, label, amount, min_amount,
          max_amount, single_use, language)
        values (${randomUUID()}, ${h.merchant.merchantId}, 'test', ${`pl_${nonce()}`}, 'Don',
          null, 10000, ${max}, false, 'fr')`;
    await expect(insert(null)).rejects.toThrow(/check constraint/);
    await expect(insert(20_000)).resolves.toBeDefined();
  });
});
