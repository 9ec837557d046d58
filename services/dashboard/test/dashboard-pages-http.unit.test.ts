import type { Language, PaymentListItem } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDataPages } from '../src/pages/index.ts';
import { PaymentsMessages } from '../src/pages/payments-messages.ts';
import { closePages, MERCHANT, pagesHarness, USER, type Handler } from './pages-harness.ts';

/**
 * The data pages over a stand-in of the dashboard's core (a fixed session, a bare
 * layout) and of NATS (answers by subject): what each page asks and what it shows.
 */

const PAYMENT_ID = '7b0c9a52-4f8e-4d7b-9a53-3f1d2c4b5a61';

const payment: PaymentListItem = {
  id: PAYMENT_ID,
  reference: 'INV-<42>',
  amount: 150_050,
  fees: 50,
  total: 155_050,
  currency: 'DZD',
  language: 'fr',
  expiresAt: '2026-11-20T10:15:00.000Z',
  status: 'success',
  successUrl: null,
  failureUrl: null,
  metadata: { order: '42' },
  orderId: 'ord-1',
  approvalCode: '123456',
  maskedPan: '628058******0009',
  failureReason: null,
  refundedAmount: 0,
  pendingRefundAmount: 0,
  paidAt: '2026-11-20T10:02:00.000Z',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:02:00.000Z',
  channel: 'CHECKOUT',
};

afterEach(closePages);

function harness(language: Language, answers: Record<string, Handler>) {
  return pagesHarness({
    language,
    answers,
    deps: {
      publicBaseUrl: 'https://pay.example.dz',
      accounts: {
        findMerchant: () =>
          Promise.resolve({
            id: MERCHANT,
            name: 'Librairie',
            receiptEmailsPerHour: 50,
            minAmount: 5_000,
            maxAmount: 10_000_000,
          }),
      },
      clock: () => new Date('2026-11-21T12:00:00.000Z'),
    },
    register: registerDataPages,
    escape: (text) => text,
  });
}

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

describe('the payments list', () => {
  it('asks payments.list with the filters and the scope, and shows the rows escaped', async () => {
    const h = await harness('en', {
      'payments.list': () => ({ payments: [payment], nextCursor: 'NEXT1' }),
    });
    const response = await h.app.inject(
      '/dashboard/payments?status=success&reference=INV-&match=prefix&createdTo=2026-11-30',
    );
    expect(response.statusCode).toBe(200);
    expect(h.asked).toEqual([
      {
        subject: 'payments.list',
        request: {
          merchantId: MERCHANT,
          mode: 'test',
          limit: 25,
          status: 'success',
          referencePrefix: 'INV-',
          createdTo: '2026-11-30T23:00:00.000Z',
        },
      },
    ]);
    expect(response.body).toContain(`href="/dashboard/payments/${PAYMENT_ID}">INV-&lt;42&gt;</a>`);
    expect(response.body).toContain('DZD\u00a01,500.50');
    expect(response.body).toContain('Paid');
    // The next page keeps the filters; the CSV link has the same ones.
    expect(response.body).toMatch(
      /rel="next" href="\/dashboard\/payments\?status=success&amp;reference=INV-&amp;match=prefix&amp;createdTo=2026-11-30&amp;cursor=NEXT1&amp;back=/,
    );
    expect(response.body).toContain(
      'href="/dashboard/payments/export?status=success&amp;reference=INV-&amp;match=prefix&amp;createdTo=2026-11-30"',
    );
  });

  it('a filter the API refuses: 400 naming the field in the page language, nothing asked', async () => {
    const h = await harness('fr', {});
    const response = await h.app.inject('/dashboard/payments?createdFrom=2026-99-01');
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Créé à partir du :');
    expect(h.asked).toEqual([]);
  });

  it('the CSV export streams every page with the same filters', async () => {
    const h = await harness('en', {
      'payments.list': (request) =>
        request.cursor
          ? {
              payments: [{ ...payment, id: PAYMENT_ID.replace('7b', '8b'), reference: '=SUM(A1)' }],
              nextCursor: null,
            }
          : { payments: [payment], nextCursor: 'C2' },
    });
    const response = await h.app.inject(
      '/dashboard/payments/export?channel=CHECKOUT&dialect=standard',
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = response.body.split('\r\n');
    expect(lines[0]).toMatch(
      /^id,created_at,paid_at,reference,channel,status,amount_centimes,amount_dzd/,
    );
    expect(lines[1]).toContain(
      ',INV-<42>,CHECKOUT,success,150050,1500.50,5000,50.00,155050,1550.50,DZD,',
    );
    expect(lines[2]).toContain(",'=SUM(A1),");
    expect(h.asked.map((a) => [a.request.channel, a.request.limit, a.request.cursor])).toEqual([
      ['CHECKOUT', 100, undefined],
      ['CHECKOUT', 100, 'C2'],
    ]);

    // Without dialect=standard: what an accountant's Excel in French or Arabic opens.
    const spreadsheet = await h.app.inject('/dashboard/payments/export?channel=CHECKOUT');
    expect(spreadsheet.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const rows = spreadsheet.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(rows[0]).toMatch(/^id;created_at;paid_at;reference;channel;status;amount_centimes/);
    expect(rows[1]).toContain(';INV-<42>;CHECKOUT;success;150050;1500,50;5000;50,00;');
  });
});

describe('a payment', () => {
  const answers = {
    'payments.get': (request: Record<string, unknown>) => {
      if (request.id !== PAYMENT_ID)
        throw new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found');
      return payment;
    },
    'webhooks.log.list': () => ({
      events: [
        {
          id: '11111111-1111-4111-8111-111111111111',
          type: 'payment.success',
          createdAt: '2026-11-20T10:02:01.000Z',
          paymentId: PAYMENT_ID,
          data: {},
          delivery: null,
        },
      ],
      nextCursor: null,
    }),
    'webhooks.deliveries.list': () => ({
      deliveries: [
        {
          id: '22222222-2222-4222-8222-222222222222',
          eventId: '11111111-1111-4111-8111-111111111111',
          eventType: 'payment.success',
          paymentId: PAYMENT_ID,
          reference: payment.reference,
          state: 'fail',
          attempts: [
            {
              number: 1,
              startedAt: '2026-11-20T10:02:02.000Z',
              statusCode: 503,
              latencyMs: 1234,
              responseExcerpt: null,
              error: null,
            },
          ],
          nextAttemptAt: null,
          createdAt: '2026-11-20T10:02:01.000Z',
          updatedAt: '2026-11-20T10:02:02.000Z',
        },
      ],
    }),
  };

  it('shows details, timeline, deliveries with attempts and the refund and receipt forms (Arabic, rtl)', async () => {
    const h = await harness('ar', answers);
    const response = await h.app.inject(`/dashboard/payments/${PAYMENT_ID}`);
    expect(response.statusCode).toBe(200);
    const html = response.body;
    expect(html).toContain('dir="rtl"');
    expect(html).toContain('الدفعة INV-&lt;42&gt;');
    expect(html).toContain('دفعة ناجحة (حدث ويب هوك)');
    expect(html).toContain('<td data-label="رمز HTTP" class="number">503</td>');
    expect(html).toContain(
      `action="/dashboard/payments/${PAYMENT_ID}/deliveries/22222222-2222-4222-8222-222222222222/replay"`,
    );
    expect(html).toContain(`action="/dashboard/payments/${PAYMENT_ID}/refund/confirm"`);
    expect(html).toContain(`action="/dashboard/payments/${PAYMENT_ID}/receipt"`);
    expect(html).not.toContain('/cancel"');
    expect(html.match(/name="_csrf"/g)).toHaveLength(3);
    expect(h.asked.find((a) => a.subject === 'webhooks.log.list')?.request).toMatchObject({
      paymentId: PAYMENT_ID,
      merchantId: MERCHANT,
    });
  });

  it('says an unpaid payment is to pay, and why a payment failed, in the page language', async () => {
    const unpaid = { ...payment, status: 'created', paidAt: null, orderId: null };
    const h = await harness('fr', { ...answers, 'payments.get': () => unpaid });
    const html = (await h.app.inject(`/dashboard/payments/${PAYMENT_ID}`)).body;
    expect(html).toContain('Total à payer');
    expect(html).not.toContain('Total payé par le client');
    expect(html).toContain('En attente de paiement');

    const reasons: [string, string][] = [
      ['cancelled', 'Annulé par le commerçant'],
      ['expired', 'Le délai de paiement a expiré avant le paiement'],
      ['declined (action code 208)', 'Refusé par le réseau de cartes : carte perdue (code 208)'],
      // The network's words in another language are said from the code they stand for.
      ['بطاقة مفقودة', 'Refusé par le réseau de cartes : carte perdue (code 208)'],
      // Words the table does not know are shown as they came.
      [
        'Refus de la banque émettrice',
        'Le réseau de cartes a répondu : <bdi>Refus de la banque émettrice</bdi>',
      ],
    ];
    for (const [failureReason, shown] of reasons) {
      const failed = { ...payment, status: 'failed', paidAt: null, failureReason };
      const page = await harness('fr', { ...answers, 'payments.get': () => failed });
      const body = (await page.app.inject(`/dashboard/payments/${PAYMENT_ID}`)).body;
      expect(body, failureReason).toContain(shown);
      await page.app.close();
    }
  });

  it("another merchant's payment (or a made-up id) is a 404 page", async () => {
    const h = await harness('en', answers);
    const response = await h.app.inject('/dashboard/payments/00000000-0000-4000-8000-000000000000');
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('No such payment.');
  });

  it('the events log down: the page still shows, saying that part is missing', async () => {
    const rest: Record<string, Handler> = { ...answers };
    delete rest['webhooks.log.list'];
    const h = await harness('en', rest);
    const response = await h.app.inject(`/dashboard/payments/${PAYMENT_ID}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('This part cannot be shown right now');
    expect(response.body).toContain('Payment created');
  });

  it('a partial refund in DZD is sent in centimes with an idempotency key, then redirects with a notice', async () => {
    const h = await harness('fr', {
      ...answers,
      'payments.refund': (request) => ({
        ...payment,
        refundedAmount: request.amount,
        refund: { id: PAYMENT_ID, amount: request.amount, status: 'succeeded' },
      }),
    });
    const response = await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund`,
      ...form({ _csrf: 'tok', amount: '500,25', idempotencyKey: 'k-1', confirmed: 'yes' }),
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/dashboard/payments/${PAYMENT_ID}`);
    const refund = h.asked.find((a) => a.subject === 'payments.refund')!.request;
    expect(refund).toMatchObject({
      merchantId: MERCHANT,
      mode: 'test',
      id: PAYMENT_ID,
      amount: 50_025,
    });
    expect(refund.idempotency).toMatchObject({ key: 'dashboard:k-1' });
    expect(h.flashes).toEqual([{ kind: 'ok', text: 'Remboursé : 500,25\u00a0DA.' }]);
  });

  it('a refund the card network has not confirmed yet shows as pending, not as done', async () => {
    const h = await harness('en', {
      ...answers,
      'payments.refund': () => ({
        ...payment,
        pendingRefundAmount: 50_000,
        refund: { id: PAYMENT_ID, amount: 50_000, status: 'pending' },
      }),
    });
    await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund`,
      ...form({ _csrf: 'tok', amount: '500', idempotencyKey: 'k-2', confirmed: 'yes' }),
    });
    expect(h.flashes).toHaveLength(1);
    expect(h.flashes[0]!.kind).toBe('ok');
    expect(h.flashes[0]!.text).toMatch(/^Refund of DZD\u00a0500\.00 asked: /);
  });

  it('an amount that reads two ways ("1,500") never reaches payments: it is asked again', async () => {
    const h = await harness('fr', answers);
    await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund`,
      ...form({ _csrf: 'tok', amount: '1,500', confirmed: 'yes' }),
    });
    expect(h.asked.filter((a) => a.subject === 'payments.refund')).toHaveLength(0);
    expect(h.flashes.map((f) => f.kind)).toEqual(['error']);
    expect(h.flashes[0]!.text).toMatch(/deux façons/);
  });

  it('refusals: an amount too large never reaches payments; the service refusal is shown translated', async () => {
    const h = await harness('en', {
      ...answers,
      'payments.refund': () => {
        throw new AppError(
          'PAYMENT_INSTANCE409_NOT_REFUNDABLE',
          'only a successful payment can be refunded',
        );
      },
    });
    await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund`,
      ...form({ amount: '99999', confirmed: 'yes' }),
    });
    await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund`,
      ...form({ amount: '1,005.5.0', confirmed: 'yes' }),
    });
    await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund`,
      ...form({ amount: '10', confirmed: 'yes' }),
    });
    expect(h.asked.filter((a) => a.subject === 'payments.refund')).toHaveLength(1);
    expect(h.flashes).toEqual([
      { kind: 'error', text: 'At most DZD\u00a01,550.50 can still be refunded.' },
      {
        kind: 'error',
        text: 'Enter an amount in DZD with at most two decimals, for example 1500.50.',
      },
      { kind: 'error', text: 'Only a successful payment can be refunded.' },
    ]);
  });

  it('a refund is never one click: the form leads to a confirmation, only that refunds', async () => {
    const h = await harness('fr', {
      ...answers,
      'payments.refund': (request) => ({
        ...payment,
        refund: { id: PAYMENT_ID, amount: request.amount, status: 'succeeded' },
      }),
    });
    const confirm = await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund/confirm`,
      ...form({ _csrf: 'tok', amount: '500,25', idempotencyKey: 'k-9' }),
    });
    expect(confirm.statusCode).toBe(200);
    const page = confirm.body;
    expect(page).toContain('Confirmer le remboursement');
    expect(page).toContain('Rembourser 500,25\u00a0DA');
    expect(page).toContain('Total payé par le client</dt><dd>1\u202f550,50\u00a0DA');
    expect(page).toContain('frais dzpay de 50,00\u00a0DA');
    expect(page).toContain('Reste à rembourser après celui-ci</dt><dd>1\u202f050,25\u00a0DA');
    expect(page).toContain('name="amount" value="500.25"');
    expect(page).toContain('name="idempotencyKey" value="k-9"');
    expect(page).toContain('name="confirmed" value="yes"');
    expect(h.asked.filter((a) => a.subject === 'payments.refund')).toHaveLength(0);

    // Sent straight to /refund (an old page, a forged form): refused, nothing refunded.
    await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund`,
      ...form({ _csrf: 'tok', amount: '500,25', idempotencyKey: 'k-9' }),
    });
    expect(h.asked.filter((a) => a.subject === 'payments.refund')).toHaveLength(0);
    expect(h.flashes).toEqual([{ kind: 'error', text: PaymentsMessages.fr.refundUnconfirmed }]);
    // A blank amount is asked again at the first step.
    const blank = await h.app.inject({
      method: 'POST',
      url: `/dashboard/payments/${PAYMENT_ID}/refund/confirm`,
      ...form({ _csrf: 'tok', amount: '' }),
    });
    expect(blank.statusCode).toBe(303);
    expect(h.flashes[1]!.text).toMatch(/^Saisissez le montant à rembourser/);
  });

  it('replay, cancel and receipt ask their operation with the scope', async () => {
    const h = await harness('en', {
      ...answers,
      'webhooks.deliveries.replay': () => answers['webhooks.deliveries.list']().deliveries[0],
      'payments.cancel': () => {
        throw new AppError('PAYMENT_INSTANCE409_NOT_CANCELLABLE', 'paid');
      },
      'receipts.email.send': () => ({ sent: true, language: 'ar' }),
    });
    const post = (path: string, fields: Record<string, string> = {}) =>
      h.app.inject({
        method: 'POST',
        url: `/dashboard/payments/${PAYMENT_ID}${path}`,
        ...form(fields),
      });
    await post('/deliveries/22222222-2222-4222-8222-222222222222/replay');
    await post('/cancel');
    await post('/receipt', { email: 'payer@example.dz', language: 'ar' });
    await post('/receipt', { email: 'not an email' });
    expect(h.asked.find((a) => a.subject === 'webhooks.deliveries.replay')?.request).toEqual({
      merchantId: MERCHANT,
      mode: 'test',
      deliveryId: '22222222-2222-4222-8222-222222222222',
    });
    expect(h.asked.find((a) => a.subject === 'receipts.email.send')?.request).toEqual({
      merchant: {
        merchantId: MERCHANT,
        mode: 'test',
        name: 'Librairie',
        emailsPerHour: 50,
        keyId: USER,
      },
      paymentId: PAYMENT_ID,
      email: 'payer@example.dz',
      language: 'ar',
    });
    expect(h.flashes.map((f) => f.text)).toEqual([
      'The webhook will be sent again.',
      'This payment can no longer be cancelled: only an unpaid checkout can.',
      'Receipt sent to payer@example.dz.',
      'Enter a valid email address.',
    ]);
  });
});

describe('QR codes', () => {
  const config = {
    amounts: [150_000, 250_050],
    expiresAt: null,
    singleUse: true,
    version: 3,
    updatedAt: '2026-11-20T10:00:00.000Z',
  };
  const answers = {
    'qr.codes.list': () => ({
      codes: [
        { token: 'QR-1', createdAt: '2026-11-19T10:00:00.000Z', state: 'configured', config },
      ],
      nextCursor: null,
    }),
    'qr.config.get': (request: Record<string, unknown>) => ({
      merchantId: request.token === 'QR-1' ? MERCHANT : '99999999-9999-4999-8999-999999999999',
      mode: 'test',
      token: request.token,
      state: 'configured',
      config,
    }),
    'qr.config.set': (request: Record<string, unknown>) => ({ token: request.token, version: 4 }),
  };

  it('lists the codes with their current amounts', async () => {
    const h = await harness('fr', answers);
    const response = await h.app.inject('/dashboard/qr-codes');
    expect(response.body).toContain('1\u202f500,00\u00a0DA · 2\u202f500,50\u00a0DA');
    expect(response.body).toContain('href="/dashboard/qr-codes/QR-1"');
    expect(h.asked[0]!.request).toEqual({ merchantId: MERCHANT, mode: 'test', limit: 20 });
  });

  it("sets amounts with the API's validation; another merchant's code is 404", async () => {
    const h = await harness('en', answers);
    const set = await h.app.inject({
      method: 'POST',
      url: '/dashboard/qr-codes/QR-1/set',
      ...form({ amounts: '1500\n99.5', singleUse: 'on' }),
    });
    expect(set.statusCode).toBe(303);
    expect(h.asked.find((a) => a.subject === 'qr.config.set')?.request).toEqual({
      merchantId: MERCHANT,
      mode: 'test',
      token: 'QR-1',
      amounts: [150_000, 9_950],
      expiresAt: null,
      singleUse: true,
    });
    await h.app.inject({
      method: 'POST',
      url: '/dashboard/qr-codes/QR-1/set',
      ...form({ amounts: '1' }),
    });
    expect(h.flashes.at(-1)?.kind).toBe('error');
    expect(h.flashes.at(-1)?.text).toContain('between');
    const foreign = await h.app.inject('/dashboard/qr-codes/QR-OTHER');
    expect(foreign.statusCode).toBe(404);
    const image = await h.app.inject('/dashboard/qr-codes/QR-OTHER/image?format=png');
    expect(image.statusCode).toBe(404);
  });

  it('serves the image as PNG or SVG and a print view', async () => {
    const h = await harness('en', answers);
    const png = await h.app.inject('/dashboard/qr-codes/QR-1/image?format=png&download=1');
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['content-disposition']).toBe('attachment; filename="qr-QR-1.png"');
    expect(png.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    const svg = await h.app.inject('/dashboard/qr-codes/QR-1/image');
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    const print = await h.app.inject('/dashboard/qr-codes/QR-1/print');
    expect(print.body).toContain(
      '<svg role="img" aria-label="QR code leading to https://pay.example.dz/qr/QR-1"',
    );
  });
});

describe('the daily report', () => {
  it('asks the range (defaults: the last 30 days in Algiers) and shows a table and a chart', async () => {
    const h = await harness('en', {
      'payments.report.daily': (request) => ({
        from: request.from,
        to: request.to,
        days: [
          {
            date: '2026-11-20',
            successCount: 2,
            successAmount: 310_000,
            refundCount: 0,
            refundAmount: 0,
            feeAmount: 10_000,
            net: 300_000,
          },
          {
            date: '2026-11-21',
            successCount: 1,
            successAmount: 155_050,
            refundCount: 1,
            refundAmount: 50_000,
            feeAmount: 5_000,
            net: 100_050,
          },
        ],
        totals: {
          successCount: 3,
          successAmount: 465_050,
          refundCount: 1,
          refundAmount: 50_000,
          feeAmount: 15_000,
          net: 400_050,
        },
      }),
    });
    const response = await h.app.inject('/dashboard/report');
    expect(h.asked[0]!.request).toEqual({
      merchantId: MERCHANT,
      mode: 'test',
      from: '2026-10-23',
      to: '2026-11-21',
    });
    expect(response.body).toContain('role="img"');
    expect(response.body).toContain('the best day is 20 Nov 2026 (DZD\u00a03,100.00)');
    expect(response.body).toContain('<td data-label="Net" class="number">DZD\u00a04,000.50</td>');
    const bad = await h.app.inject('/dashboard/report?from=2026-11-10&to=2026-11-01');
    expect(bad.statusCode).toBe(400);
    expect(h.asked).toHaveLength(1);

    // The same range as a file an accountant opens, linked from the page.
    expect(response.body).toContain(
      'href="/dashboard/report/export?from=2026-10-23&amp;to=2026-11-21" download',
    );
    const file = await h.app.inject('/dashboard/report/export?from=2026-11-20&to=2026-11-21');
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toBe(
      'attachment; filename="report-test-2026-11-20-2026-11-21.csv"',
    );
    expect(file.body.split('\r\n').slice(0, 4)).toEqual([
      '\uFEFFday;success_count;success_dzd;refund_count;refund_dzd;fee_dzd;net_dzd',
      '2026-11-20;2;3100,00;0;0,00;100,00;3000,00',
      '2026-11-21;1;1550,50;1;500,00;50,00;1000,50',
      'total;3;4650,50;1;500,00;150,00;4000,50',
    ]);
    expect(h.asked[1]!.request).toMatchObject({ from: '2026-11-20', to: '2026-11-21' });
    const refused = await h.app.inject('/dashboard/report/export?from=nope');
    expect(refused.statusCode).toBe(400);
  });
});
