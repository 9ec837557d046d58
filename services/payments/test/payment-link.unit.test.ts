import type { CreatePaymentLinkBody, MerchantTerms } from '@dzpay/contracts';
import { CreatePaymentLinkBody as Body, paymentLinkReference } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import {
  createRefusalOf,
  heldUntilOf,
  isBusyHolder,
  isIdlePress,
  isStaleHolder,
  linkAmountOf,
  linkRefusalOf,
  linkStateOf,
  type LinkHolder,
  type PaymentLinkRecord,
} from '../src/links/link-rules.ts';
import { paymentLinkPublicView } from '../src/links/link-view.ts';

const NOW = new Date('2026-11-21T10:00:00Z');
const fullLink: PaymentLinkRecord = {
  id: '1d8c4f0e-2f57-4d52-9b8a-6c2a3b1e9f00',
  merchantId: '197a5a98-64b4-442d-bd05-410519263304',
  mode: 'test',
  token: 'pl_AAAAAAAAAAAAAAAAAAAAAA',
  label: 'Facture',
  amount: 90_000,
  minAmount: null,
  maxAmount: null,
  singleUse: false,
  expiresAt: null,
  language: 'fr',
  metadata: null,
  opened: 1,
  deactivatedAt: null,
  createdAt: NOW,
  updatedAt: NOW,
};
const link = (over: Partial<Parameters<typeof linkRefusalOf>[0]> = {}) => ({
  id: '5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f',
  deactivatedAt: null,
  expiresAt: null,
  singleUse: false,
  ...over,
});
/** A holder whose payer reached the card form: it holds the link for its window. */
const holder = (
  status: LinkHolder['status'],
  expiresAt = new Date('2026-11-21T10:15:00Z'),
): LinkHolder => ({
  paymentId: 'a4a1f0c2-5b0e-4d1f-9a53-0a4c1f6c2b10',
  status,
  expiresAt,
  heldUntil: expiresAt,
});
const terms: MerchantTerms = {
  merchantId: '197a5a98-64b4-442d-bd05-410519263304',
  mode: 'test',
  name: 'Shop',
  feeDzd: 50,
  minAmount: 5_000,
  maxAmount: 1_000_000,
  hasWallet: true,
};
const body = (input: Record<string, unknown>): CreatePaymentLinkBody =>
  Body.parse({ label: 'Piano', ...input });

describe('the amount a payer pays through a link', () => {
  it('is the fixed amount, whatever the payer sends', () => {
    const fixed = { amount: 150_000, minAmount: null, maxAmount: null };
    expect(linkAmountOf(fixed, undefined)).toEqual({ ok: true, value: 150_000 });
    expect(linkAmountOf(fixed, 1)).toEqual({ ok: true, value: 150_000 });
  });

  it('is the payer’s own within the bounds, both included', () => {
    const open = { amount: null, minAmount: 10_000, maxAmount: 50_000 };
    expect(linkAmountOf(open, 10_000)).toEqual({ ok: true, value: 10_000 });
    expect(linkAmountOf(open, 50_000)).toEqual({ ok: true, value: 50_000 });
    for (const chosen of [undefined, 9_999, 50_001, 12_000.5]) {
      const read = linkAmountOf(open, chosen);
      expect(read.ok, String(chosen)).toBe(false);
      if (!read.ok) expect(read.error.code).toBe('PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE');
    }
  });
});

describe('whether a link takes a payment', () => {
  it('takes payments while active', () => {
    expect(linkRefusalOf(link(), null, NOW)).toBeNull();
    expect(linkStateOf(link(), null, NOW)).toBe('active');
  });

  it('expires at its expiry, not a millisecond later', () => {
    const expiring = link({ expiresAt: NOW });
    expect(linkStateOf(expiring, null, new Date(NOW.getTime() - 1))).toBe('active');
    expect(linkRefusalOf(expiring, null, NOW)?.code).toBe('PAYMENT_LINK410_EXPIRED');
  });

  it('says deactivated before anything else', () => {
    const ended = link({ deactivatedAt: NOW, expiresAt: NOW, singleUse: true });
    expect(linkRefusalOf(ended, holder('success'), NOW)?.code).toBe('PAYMENT_LINK410_DEACTIVATED');
  });

  it('a single-use link: paid once it succeeded or was refunded, busy while one pays', () => {
    const once = link({ singleUse: true });
    expect(linkRefusalOf(once, holder('success'), NOW)?.code).toBe('PAYMENT_LINK409_ALREADY_PAID');
    expect(linkStateOf(once, holder('refunded'), NOW)).toBe('used');
    const busy = linkRefusalOf(once, holder('processing'), NOW);
    expect(busy).toMatchObject({
      code: 'PAYMENT_LINK409_BEING_PAID',
      details: { retryAt: '2026-11-21T10:15:00.000Z' },
    });
    expect(linkStateOf(once, holder('pending'), NOW)).toBe('active');
  });

  it('a payer in flight past their window no longer holds it (paying settles them first)', () => {
    const once = link({ singleUse: true });
    for (const status of ['pending', 'processing'] as const) {
      const stale = holder(status, NOW);
      expect(isStaleHolder(stale, NOW)).toBe(true);
      expect(linkRefusalOf(once, stale, NOW)).toBeNull();
      expect(
        paymentLinkPublicView({ link: { ...fullLink, singleUse: true }, holder: stale }, NOW),
      ).toMatchObject({ state: 'active', busyUntil: null });
    }
    const open = holder('pending', new Date(NOW.getTime() + 1));
    expect(isStaleHolder(open, NOW)).toBe(false);
    expect(linkRefusalOf(once, open, NOW)?.code).toBe('PAYMENT_LINK409_BEING_PAID');
    // A paid holder is never stale: the link stays used.
    expect(isStaleHolder(holder('success', NOW), NOW)).toBe(false);
    expect(linkRefusalOf(once, holder('success', NOW), NOW)?.code).toBe(
      'PAYMENT_LINK409_ALREADY_PAID',
    );
  });

  it('a press that never reaches the card form holds the link for the press hold only', () => {
    const HOLD = 90_000;
    const createdAt = NOW;
    const expiresAt = new Date(NOW.getTime() + 15 * 60_000);
    const pressed = heldUntilOf({ createdAt, expiresAt, cardOrderPlaced: false }, HOLD);
    expect(pressed).toEqual(new Date(NOW.getTime() + HOLD));
    // Once the card order is placed, the payer holds it for the whole window.
    expect(heldUntilOf({ createdAt, expiresAt, cardOrderPlaced: true }, HOLD)).toEqual(expiresAt);
    // Never past the window, however long the hold.
    expect(heldUntilOf({ createdAt, expiresAt, cardOrderPlaced: false }, 3_600_000)).toEqual(
      expiresAt,
    );

    const once = link({ singleUse: true });
    const idle: LinkHolder = { ...holder('pending', expiresAt), heldUntil: pressed };
    const before = new Date(pressed.getTime() - 1);
    expect(isBusyHolder(idle, before)).toBe(true);
    expect(linkRefusalOf(once, idle, before)).toMatchObject({
      code: 'PAYMENT_LINK409_BEING_PAID',
      details: { retryAt: pressed.toISOString() },
    });
    expect(
      paymentLinkPublicView({ link: { ...fullLink, singleUse: true }, holder: idle }, before)
        .busyUntil,
    ).toBe(pressed.toISOString());
    // The hold over: the next payer may press, which expires the idle press first.
    expect(isStaleHolder(idle, pressed)).toBe(true);
    expect(isIdlePress(idle, pressed)).toBe(true);
    expect(linkRefusalOf(once, idle, pressed)).toBeNull();
    // A holder past its window is stale but no idle press: it is settled at the network.
    expect(isIdlePress(idle, expiresAt)).toBe(false);
    expect(isIdlePress(holder('pending', NOW), NOW)).toBe(false);
  });

  it('a reusable link ignores who else pays it', () => {
    expect(linkRefusalOf(link(), holder('processing'), NOW)).toBeNull();
    expect(linkRefusalOf(link(), holder('success'), NOW)).toBeNull();
  });
});

describe('a new link', () => {
  it('must ask amounts within the merchant’s range', () => {
    expect(createRefusalOf(body({ amount: 5_000 }), terms, NOW)).toBeNull();
    expect(createRefusalOf(body({ amount: 4_999 }), terms, NOW)?.code).toBe(
      'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
    );
    expect(
      createRefusalOf(body({ minAmount: 5_000, maxAmount: 1_000_001 }), terms, NOW),
    ).toMatchObject({
      code: 'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE',
      details: { amount: 1_000_001 },
    });
  });

  it('must expire in the future, fit 4 KB of metadata, and have a wallet to pay into', () => {
    expect(
      createRefusalOf(body({ amount: 9_000, expiresAt: NOW.toISOString() }), terms, NOW)?.code,
    ).toBe('VALIDATION400_BAD_REQUEST');
    const big = { note: 'x'.repeat(4100) };
    expect(createRefusalOf(body({ amount: 9_000, metadata: big }), terms, NOW)?.code).toBe(
      'VALIDATION422_UNPROCESSABLE_ENTITY',
    );
    expect(
      createRefusalOf(body({ amount: 9_000 }), { ...terms, hasWallet: false }, NOW)?.code,
    ).toBe('SETTLEMENT422_MERCHANT_WALLET_MISSING');
  });

  it('is a fixed amount or two bounds, never both, bounds in order', () => {
    const failures = (input: Record<string, unknown>) =>
      Body.safeParse({ label: 'Piano', ...input }).error?.issues.map((issue) => issue.message);
    expect(failures({})).toEqual(['give amount, or minAmount and maxAmount']);
    expect(failures({ amount: 1, minAmount: 1, maxAmount: 2 })).toEqual([
      'give amount, or minAmount and maxAmount, not both',
    ]);
    expect(failures({ minAmount: 10 })).toEqual(['maxAmount goes with minAmount']);
    expect(failures({ minAmount: 10, maxAmount: 9 })).toEqual([
      'maxAmount must not be below minAmount',
    ]);
    expect(failures({ label: '   ', amount: 10 })).toEqual(['label should not be empty']);
    expect(
      Body.parse({ label: ' Piano ', amount: 10, expiresAt: '2030-01-01T10:00:00+01:00' }),
    ).toMatchObject({ label: 'Piano', expiresAt: '2030-01-01T09:00:00.000Z' });
  });

  it('names its payments’ references after it', () => {
    expect(paymentLinkReference('5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f', 3)).toBe(
      'link-5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f-3',
    );
  });
});
