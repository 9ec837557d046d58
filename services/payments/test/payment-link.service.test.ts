import { setTimeout as sleep } from 'node:timers/promises';
import { Rpc, type CreatePaymentLinkInput, type PaymentLinkView } from '@dzpay/contracts';
import { AppError, requestRpc } from '@dzpay/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusal, startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * Payment links in payments: made, read, paid by payers through ordinary hosted-checkout
 * payments that name them, single use held by the database. The window is short and the
 * service's sweeper runs often, so a payment left unpaid expires (and frees its link)
 * within a few seconds.
 */

const WINDOW_MS = 1_500;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payment-links', {
    PAYMENT_WINDOW_MS: String(WINDOW_MS),
    SWEEP_INTERVAL_MS: '200',
  });
});
afterAll(async () => {
  await h?.stop();
});

const ask = <D extends (typeof Rpc)[keyof typeof Rpc]>(definition: D, request: unknown) =>
  requestRpc(h.runtime.nats, h.infra.natsPrefix, definition, request as never, {
    timeoutMs: 30_000,
  });
const scope = () => ({ merchantId: h.merchant.merchantId, mode: h.merchant.mode });

const create = (link: Partial<CreatePaymentLinkInput> = {}): Promise<PaymentLinkView> =>
  ask(Rpc.paymentLinksCreate, {
    merchant: h.merchant,
    link: { label: 'Cours de piano', amount: 150_000, ...link },
  });
const tokenOf = (link: PaymentLinkView) => new URL(link.url).pathname.split('/').at(-1)!;
const pay = (link: PaymentLinkView, amount?: number) =>
  ask(Rpc.paymentLinkPay, {
    token: tokenOf(link),
    merchant: h.merchant,
    language: 'ar',
    ...(amount === undefined ? {} : { amount }),
  });
const read = (id: string) => ask(Rpc.paymentLinksGet, { ...scope(), id });

async function payByCard(checkoutToken: string, paymentId: string, pan?: string) {
  await h.payCard(await h.toCardForm(checkoutToken), pan);
  return h.comeBack(paymentId);
}

describe('a payment through a link', () => {
  it('is an ordinary checkout payment of the link’s merchant that names the link', async () => {
    const link = await create({ metadata: { course: 'piano' }, language: 'ar' });
    expect(link).toMatchObject({ state: 'active', singleUse: false, amount: 150_000 });
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:9\/link\/pl_[A-Za-z0-9_-]{22}$/);

    const first = await pay(link);
    const payment = await h.get(first.paymentId);
    expect(payment).toMatchObject({
      reference: `link-${link.id}-1`,
      paymentLinkId: link.id,
      metadata: { course: 'piano' },
      amount: 150_000,
      total: 155_000,
      language: 'ar',
      status: 'created',
    });
    expect((await payByCard(first.checkoutToken, first.paymentId)).status).toBe('success');

    // Reusable: a second payer pays again, under the next number.
    const second = await pay(link);
    expect((await h.get(second.paymentId)).reference).toBe(`link-${link.id}-2`);
    await payByCard(second.checkoutToken, second.paymentId);
    expect(await read(link.id)).toMatchObject({ paidCount: 2, paidAmount: 300_000 });

    const listed = await ask(Rpc.paymentsList, { ...scope(), limit: 10, paymentLinkId: link.id });
    expect(listed.payments.map((p: { id: string }) => p.id)).toEqual([
      second.paymentId,
      first.paymentId,
    ]);
    expect(
      listed.payments.every((p: { paymentLinkId?: string }) => p.paymentLinkId === link.id),
    ).toBe(true);
  });

  it('takes the payer’s amount within the link’s bounds', async () => {
    const link = await create({ amount: null, minAmount: 10_000, maxAmount: 50_000 });
    expect(await refusal(pay(link))).toBe('PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE');
    expect(await refusal(pay(link, 50_001))).toBe('PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE');
    const opened = await pay(link, 12_345);
    expect((await h.get(opened.paymentId)).amount).toBe(12_345);
  });
});

describe('a single-use link', () => {
  it('gives one of many payers at once a checkout, and accepts one success only', async () => {
    const link = await create({ singleUse: true });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () =>
        pay(link).then(
          (opened) => opened,
          (e: unknown) => (e instanceof AppError ? e.code : String(e)),
        ),
      ),
    );
    const opened = outcomes.filter((o) => typeof o !== 'string');
    expect(opened).toHaveLength(1);
    expect(new Set(outcomes.filter((o) => typeof o === 'string'))).toEqual(
      new Set(['PAYMENT_LINK409_BEING_PAID']),
    );
    const view = await ask(Rpc.paymentLinkView, { token: tokenOf(link) });
    expect(view.busyUntil).not.toBeNull();

    const [first] = opened as { paymentId: string; checkoutToken: string }[];
    expect((await payByCard(first!.checkoutToken, first!.paymentId)).status).toBe('success');
    expect(await refusal(pay(link))).toBe('PAYMENT_LINK409_ALREADY_PAID');
    expect(await read(link.id)).toMatchObject({ state: 'used', paidCount: 1 });
    const rows =
      await h.db`select count(*)::int as n from payments where payment_link_id = ${link.id}`;
    expect(rows[0]!.n).toBe(1);
  });

  it('is freed by a declined payment, and by one left to expire', async () => {
    const link = await create({ singleUse: true });
    const declined = await pay(link);
    expect(await refusal(pay(link))).toBe('PAYMENT_LINK409_BEING_PAID');
    expect(
      (await payByCard(declined.checkoutToken, declined.paymentId, '6280580000000017')).status,
    ).toBe('failed');
    const abandoned = await pay(link);
    expect(abandoned.paymentId).not.toBe(declined.paymentId);
    // Nobody pays it: the sweeper expires it after the window, and the link is free again.
    await expect
      .poll(async () => (await h.get(abandoned.paymentId)).status, { timeout: 10_000 })
      .toBe('expired');
    const third = await pay(link);
    expect((await h.get(third.paymentId)).reference).toBe(`link-${link.id}-3`);
  });
});

describe('a link that takes no payment', () => {
  it('refuses payers once expired', async () => {
    const link = await create({ expiresAt: new Date(Date.now() + 800).toISOString() });
    await sleep(1_000);
    expect(await refusal(pay(link))).toBe('PAYMENT_LINK410_EXPIRED');
    expect((await read(link.id)).state).toBe('expired');
  });

  it('refuses payers once deactivated; deactivating again answers the same link', async () => {
    const link = await create();
    const ended = await ask(Rpc.paymentLinksDeactivate, { ...scope(), id: link.id });
    expect(ended.state).toBe('deactivated');
    expect(await refusal(pay(link))).toBe('PAYMENT_LINK410_DEACTIVATED');
    const again = await ask(Rpc.paymentLinksDeactivate, { ...scope(), id: link.id });
    expect(again.deactivatedAt).toBe(ended.deactivatedAt);
  });

  it('is not found in another merchant’s or mode’s scope, nor paid through it', async () => {
    const link = await create();
    const other = { ...scope(), mode: 'live' as const };
    expect(await refusal(ask(Rpc.paymentLinksGet, { ...other, id: link.id }))).toBe(
      'PAYMENT_LINK404_NOT_FOUND',
    );
    expect(await refusal(ask(Rpc.paymentLinksDeactivate, { ...other, id: link.id }))).toBe(
      'PAYMENT_LINK404_NOT_FOUND',
    );
    expect(
      await refusal(
        ask(Rpc.paymentLinkPay, {
          token: tokenOf(link),
          merchant: { ...h.merchant, mode: 'live' },
          language: 'fr',
        }),
      ),
    ).toBe('PAYMENT_LINK404_NOT_FOUND');
    expect(await refusal(ask(Rpc.paymentLinksGet, { ...scope(), id: 'nope' }))).toBe(
      'PAYMENT_LINK404_NOT_FOUND',
    );
  });

  it('is not made with amounts outside the merchant’s range', async () => {
    expect(await refusal(create({ amount: 4_999 }))).toBe(
      'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
    );
  });
});

describe('the list of links', () => {
  it('pages newest first by cursor', async () => {
    const mine = { ...h.merchant, merchantId: crypto.randomUUID() };
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(
        (
          await ask(Rpc.paymentLinksCreate, {
            merchant: mine,
            link: { label: `L${i}`, amount: 9_000 },
          })
        ).id,
      );
    }
    const where = { merchantId: mine.merchantId, mode: mine.mode };
    const first = await ask(Rpc.paymentLinksList, { ...where, limit: 2 });
    expect(first.links.map((l: PaymentLinkView) => l.id)).toEqual([made[2], made[1]]);
    const second = await ask(Rpc.paymentLinksList, {
      ...where,
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(second.links.map((l: PaymentLinkView) => l.id)).toEqual([made[0]]);
    expect(second.nextCursor).toBeNull();
  });
});

describe('a single-use link pressed and left (a short press hold, then the full window)', () => {
  const HOLD_MS = 1_000;
  let held: PaymentsHarness;
  beforeAll(async () => {
    held = await startPaymentsHarness('payment-links-press-hold', {
      PAYMENT_WINDOW_MS: '60000',
      LINK_PRESS_HOLD_MS: String(HOLD_MS),
    });
  });
  afterAll(async () => {
    await held?.stop();
  });

  const askHeld = <D extends (typeof Rpc)[keyof typeof Rpc]>(definition: D, request: unknown) =>
    requestRpc(held.runtime.nats, held.infra.natsPrefix, definition, request as never, {
      timeoutMs: 30_000,
    });
  const createOnce = (): Promise<PaymentLinkView> =>
    askHeld(Rpc.paymentLinksCreate, {
      merchant: held.merchant,
      link: { label: 'Billet de concert', amount: 150_000, singleUse: true },
    });
  const press = (link: PaymentLinkView) =>
    askHeld(Rpc.paymentLinkPay, { token: tokenOf(link), merchant: held.merchant, language: 'fr' });
  const retryAtOf = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('PAYMENT_LINK409_BEING_PAID');
    return Date.parse((error as AppError).details!.retryAt as string);
  };
  const openHolders = async (linkId: string) =>
    (
      await held.db<{ n: number }[]>`
        select count(*)::int as n from payments
        where payment_link_id = ${linkId} and status in ('pending', 'processing', 'success')`
    )[0]!.n;

  it('one idle press blocks the next payer for the press hold only; the press then expires', async () => {
    const link = await createOnce();
    const idle = await press(link);
    const pressedAt = Date.now();
    const retryAt = await retryAtOf(press(link));
    // Told to come back when the press hold ends, not at the end of the 60 s window.
    expect(retryAt - pressedAt).toBeLessThanOrEqual(HOLD_MS + 500);
    await sleep(Math.max(0, retryAt - Date.now()) + 50);

    const next = await press(link);
    expect(next.paymentId).not.toBe(idle.paymentId);
    expect((await held.get(idle.paymentId)).status).toBe('expired');
    // The idle payer coming back finds their attempt given up: no card form, no charge.
    await expect(held.toCardForm(idle.checkoutToken)).rejects.toThrow();
    await held.payCard(await held.toCardForm(next.checkoutToken));
    expect((await held.comeBack(next.paymentId)).status).toBe('success');
    expect(await openHolders(link.id)).toBe(1);
  });

  it('a payer who reached the card form holds the link for their whole window', async () => {
    const link = await createOnce();
    const paying = await press(link);
    await held.toCardForm(paying.checkoutToken);
    await sleep(HOLD_MS + 200);
    const retryAt = await retryAtOf(press(link));
    expect(retryAt).toBe(Date.parse((await held.get(paying.paymentId)).expiresAt));
    expect(retryAt - Date.now()).toBeGreaterThan(50_000);
  });

  it('expiring an idle press reads it again under the settlement lease: an order placed since keeps it', async () => {
    const link = await createOnce();
    const paying = await press(link);
    const { settle, repository } = held.core();
    const readBefore = (await repository.findById(paying.paymentId))!;
    expect(readBefore.cardnetOrderId).toBeNull();
    await held.toCardForm(paying.checkoutToken);
    // The next payer's press, acting on what it read before the click placed the order.
    const after = await settle.expireUnplaced(readBefore, () => true);
    expect(after.status).toBe('processing');
    expect(after.cardnetOrderId).not.toBeNull();
    expect((await held.get(paying.paymentId)).status).not.toBe('expired');
  });

  it('a click on to the card form racing the next press: exactly one of them goes on', async () => {
    for (let round = 0; round < 4; round++) {
      const link = await createOnce();
      const first = await press(link);
      await sleep(HOLD_MS + 20);
      const [form, next] = await Promise.allSettled([
        held.toCardForm(first.checkoutToken),
        press(link),
      ]);
      const goesOn = [form.status, next.status].filter((status) => status === 'fulfilled');
      expect(goesOn, `round ${round}`).toHaveLength(1);
      expect(await openHolders(link.id)).toBe(1);
    }
  });
});
