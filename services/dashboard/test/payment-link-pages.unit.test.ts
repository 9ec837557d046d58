import type { AuditEventInput } from '@dzpay/accounts';
import type { Language, PaymentLinkView } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import { afterEach, describe, expect, it } from 'vitest';
import { registerPaymentLinkPages } from '../src/pages/payment-link-pages.ts';
import { closePages, MERCHANT, pagesHarness, USER, type Handler } from './pages-harness.ts';

/**
 * The payment link pages over a stand-in of the dashboard's core (a fixed session, a
 * bare layout, a role that may or may not manage links) and of NATS (answers by subject).
 */

const LINK_ID = '5f0c7a8e-3d2b-4c1a-9e8f-7a6b5c4d3e2f';

const link: PaymentLinkView = {
  id: LINK_ID,
  url: 'https://pay.example.dz/link/pl_AAAAAAAAAAAAAAAAAAAAAA',
  label: 'Cours <piano>',
  amount: 150_050,
  minAmount: null,
  maxAmount: null,
  currency: 'DZD',
  singleUse: true,
  expiresAt: null,
  language: 'fr',
  metadata: { course: 'piano' },
  state: 'active',
  paidCount: 0,
  paidAmount: 0,
  deactivatedAt: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
};

afterEach(closePages);

async function harness(
  language: Language,
  answers: Record<string, Handler>,
  options: { manages?: boolean } = {},
) {
  const audits: AuditEventInput[] = [];
  const h = await pagesHarness({
    language,
    answers,
    deps: {
      publicBaseUrl: 'https://pay.example.dz',
      accounts: {
        findMerchant: () =>
          Promise.resolve({
            id: MERCHANT,
            name: 'Librairie',
            feeDzd: 50,
            minAmount: 5_000,
            maxAmount: 10_000_000,
            walletId: 'W-1',
          }),
        recordAudit: (event: AuditEventInput) => {
          audits.push(event);
          return Promise.resolve();
        },
      },
    },
    register: registerPaymentLinkPages,
    allows: (method) => method === 'GET' || (options.manages ?? true),
  });
  return { ...h, audits };
}

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams({ _csrf: 'tok', ...fields }).toString(),
});

describe('the payment links list', () => {
  it('asks payments.links.list in the session’s scope and shows each link escaped', async () => {
    const h = await harness('fr', {
      'payments.links.list': () => ({ links: [link], nextCursor: null }),
    });
    const response = await h.app.inject('/dashboard/payment-links');
    expect(response.statusCode).toBe(200);
    expect(h.asked).toEqual([
      {
        subject: 'payments.links.list',
        request: { merchantId: MERCHANT, mode: 'test', limit: 20 },
      },
    ]);
    expect(response.body).toContain('Cours &lt;piano&gt;');
    expect(response.body).toContain('data-label="Montant"');
    expect(response.body).toMatch(/1\s500,50/);
    expect(response.body).toContain('href="/dashboard/payment-links/new"');
  });

  it('offers no “new link” to a role that may not make one', async () => {
    const h = await harness(
      'fr',
      { 'payments.links.list': () => ({ links: [link], nextCursor: null }) },
      { manages: false },
    );
    const response = await h.app.inject('/dashboard/payment-links');
    expect(response.body).not.toContain('/dashboard/payment-links/new');
  });
});

describe('making a link', () => {
  it('reads amounts as the merchant writes them and the expiry in Algeria time', async () => {
    const h = await harness('fr', { 'payments.links.create': () => link });
    const response = await h.app.inject({
      method: 'POST',
      url: '/dashboard/payment-links',
      ...form({
        label: 'Don',
        kind: 'open',
        minAmount: '1 000',
        maxAmount: '1.500,50',
        singleUse: 'on',
        expiresAt: '2030-12-31T23:30',
        language: 'ar',
        metadata: '{"campagne": "hiver"}',
      }),
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/dashboard/payment-links/${LINK_ID}`);
    expect(h.asked[0]).toMatchObject({
      subject: 'payments.links.create',
      request: {
        merchant: { merchantId: MERCHANT, mode: 'test', feeDzd: 50, hasWallet: true },
        link: {
          label: 'Don',
          minAmount: 100_000,
          maxAmount: 150_050,
          singleUse: true,
          expiresAt: '2030-12-31T22:30:00.000Z',
          language: 'ar',
          metadata: { campagne: 'hiver' },
        },
      },
    });
    expect(h.audits).toMatchObject([
      {
        merchantId: MERCHANT,
        mode: 'test',
        actor: { kind: 'user', id: USER, label: 'owner@example.dz' },
        action: 'payment_link.create',
        target: LINK_ID,
      },
    ]);
    expect(h.flashes.map((f) => f.kind)).toEqual(['ok']);
    expect(h.flashes[0]!.text).toContain('prêt');
  });

  it('refuses what cannot be read, in the page’s language, and asks nothing', async () => {
    const h = await harness('fr', {});
    const response = await h.app.inject({
      method: 'POST',
      url: '/dashboard/payment-links',
      ...form({ label: '', kind: 'fixed', amount: '1,500', metadata: '[1]' }),
    });
    expect(response.statusCode).toBe(400);
    expect(h.asked).toEqual([]);
    expect(response.body).toContain('Donnez un libellé au lien.');
    expect(response.body).toContain('se lit de deux façons');
    expect(response.body).toContain('doivent être un objet JSON');
    // What was typed is shown back.
    expect(response.body).toContain('value="1,500"');
  });

  it('says the merchant’s range when payments refuses an amount (Arabic)', async () => {
    const h = await harness('ar', {
      'payments.links.create': () => {
        throw new AppError('PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE', 'out of range', {
          details: { amount: 100, min: 5_000, max: 10_000_000 },
        });
      },
    });
    const response = await h.app.inject({
      method: 'POST',
      url: '/dashboard/payment-links',
      ...form({ label: 'x', kind: 'fixed', amount: '1' }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('يجب أن تكون المبالغ بين');
    expect(h.audits).toEqual([]);
  });
});

describe('one link', () => {
  it('shows its address, QR image and payments (asked by link)', async () => {
    const h = await harness('en', {
      'payments.links.get': () => link,
      'payments.list': () => ({ payments: [], nextCursor: null }),
    });
    const response = await h.app.inject(`/dashboard/payment-links/${LINK_ID}`);
    expect(response.statusCode).toBe(200);
    expect(h.asked[1]).toEqual({
      subject: 'payments.list',
      request: { merchantId: MERCHANT, mode: 'test', limit: 10, paymentLinkId: LINK_ID },
    });
    expect(response.body).toContain(link.url);
    expect(response.body).toContain(`src="/dashboard/payment-links/${LINK_ID}/image?format=svg"`);
    expect(response.body).toContain('No payment through this link yet.');
    expect(response.body).toContain(`href="/dashboard/payment-links/${LINK_ID}/deactivate"`);
  });

  it('answers 404 for a link that is not the merchant’s', async () => {
    const h = await harness('en', {
      'payments.links.get': () => {
        throw new AppError('PAYMENT_LINK404_NOT_FOUND', 'payment link not found');
      },
    });
    const response = await h.app.inject(`/dashboard/payment-links/${LINK_ID}`);
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('This payment link does not exist in this mode.');
  });

  it('draws its QR code from the link’s own URL', async () => {
    const h = await harness('en', { 'payments.links.get': () => link });
    const response = await h.app.inject(`/dashboard/payment-links/${LINK_ID}/image?format=svg`);
    expect(response.headers['content-type']).toContain('image/svg+xml');
    expect(response.body).toContain('<svg');
  });

  it('is deactivated only through its confirmation form, and the log says who', async () => {
    const h = await harness('fr', {
      'payments.links.get': () => link,
      'payments.links.deactivate': () => ({ ...link, state: 'deactivated' }),
    });
    const confirm = await h.app.inject(`/dashboard/payment-links/${LINK_ID}/deactivate`);
    expect(confirm.body).toContain(`action="/dashboard/payment-links/${LINK_ID}/deactivate"`);
    expect(confirm.body).toContain('C’est définitif');
    expect(h.asked.map((a) => a.subject)).toEqual(['payments.links.get']);

    const done = await h.app.inject({
      method: 'POST',
      url: `/dashboard/payment-links/${LINK_ID}/deactivate`,
      ...form({}),
    });
    expect(done.statusCode).toBe(303);
    expect(h.asked.at(-1)).toEqual({
      subject: 'payments.links.deactivate',
      request: { merchantId: MERCHANT, mode: 'test', id: LINK_ID },
    });
    expect(h.audits.map((a) => a.action)).toEqual(['payment_link.deactivate']);
    expect(h.flashes).toEqual([{ kind: 'ok', text: 'Le lien de paiement est désactivé.' }]);
  });
});
