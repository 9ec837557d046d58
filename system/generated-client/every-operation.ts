// A merchant's program on a client generated from dzpay's OpenAPI document alone, as a
// developer writes one: `openapi-typescript` makes ./openapi.ts (the test generates it
// next to a copy of this file), `openapi-fetch` calls. It is compiled with `tsc --strict`
// and run against a stack by system/generated-client.system.test.ts; it prints, per
// operation, the status dzpay answered, for the test to check against the document.
import createClient from 'openapi-fetch';
import type { paths } from './openapi.ts';

const world = JSON.parse(process.env.DZPAY_WORLD ?? '{}') as {
  baseUrl: string;
  key: string;
  qrToken: string;
  paidPaymentId: string;
  deliveryId: string;
  reference: string;
};

const client = createClient<paths>({
  baseUrl: world.baseUrl,
  headers: { 'x-api-key': world.key },
});

const answered: { operationId: string; status: number }[] = [];
const seen = (operationId: string, response: Response) => {
  answered.push({ operationId, status: response.status });
};

// QR codes and their amounts.
const qrCodes = await client.GET('/api/v1/qr-codes', { params: { query: { limit: 5 } } });
seen('listQrCodes', qrCodes.response);
const set = await client.POST('/set-qr-config', {
  body: { token: world.qrToken, amounts: [1500, 2500.5], singleUse: false },
});
seen('setQrConfig', set.response);
const image = await client.GET('/api/v1/qr-codes/{token}/image', {
  params: { path: { token: world.qrToken }, query: { format: 'png', size: 256 } },
  parseAs: 'arrayBuffer',
});
seen('qrCodeImage', image.response);
const unset = await client.POST('/un-set-qr-config', { body: { token: world.qrToken } });
seen('unsetQrConfig', unset.response);

// Hosted-checkout payments.
const registered = await client.POST('/api/v1/payments', {
  body: {
    amount: 250_000,
    currency: 'DZD',
    reference: `GEN-${Date.now()}`,
    successUrl: 'https://shop.example.dz/merci?cart=42',
    language: 'fr',
    metadata: { cartId: 'C-42', items: 3, gift: false, tags: ['livre'] },
  },
  headers: { 'Idempotency-Key': `gen-${Date.now()}` },
});
seen('registerPayment', registered.response);
const created = registered.data?.data;
if (!created) throw new Error(`registerPayment: ${JSON.stringify(registered.error)}`);
const one = await client.GET('/api/v1/payments/{id}', { params: { path: { id: created.id } } });
seen('getPayment', one.response);
const list = await client.GET('/api/v1/payments', {
  params: { query: { limit: 5, status: 'created', channel: 'CHECKOUT' } },
});
seen('listPayments', list.response);
if ((list.data?.data.payments.length ?? 0) > 5) throw new Error('limit 5 gave more than 5');
const exported = await client.GET('/api/v1/payments/export', {
  params: { query: { format: 'csv', dialect: 'spreadsheet', status: 'success' } },
  parseAs: 'text',
});
seen('exportPayments', exported.response);
const cancelled = await client.POST('/api/v1/payments/{id}/cancel', {
  params: { path: { id: created.id } },
});
seen('cancelPayment', cancelled.response);
const refunded = await client.POST('/api/v1/payments/{id}/refund', {
  params: { path: { id: world.paidPaymentId } },
  body: { amount: 10_000 },
});
seen('refundPayment', refunded.response);
const receipt = await client.POST('/api/v1/payments/{id}/receipt/email', {
  params: { path: { id: world.paidPaymentId } },
  body: { email: 'amina@example.dz', language: 'ar' },
});
seen('emailReceipt', receipt.response);
const status = await client.GET('/partner/payments/v1/{reference}/status', {
  params: { path: { reference: world.reference } },
});
seen('getReferenceStatus', status.response);

// Webhooks: settings, deliveries, events.
const settings = await client.GET('/api/v1/webhooks/settings');
seen('getWebhookSettings', settings.response);
const changed = await client.PUT('/api/v1/webhooks/settings', {
  body: { events: ['payment.success', 'payment.fail', 'payment.refunded'] },
});
seen('setWebhookSettings', changed.response);
const rotated = await client.POST('/api/v1/webhooks/signing-secret/rotate', {
  body: { graceHours: 24 },
});
seen('rotateSigningSecret', rotated.response);
const tested = await client.POST('/api/v1/webhooks/test');
seen('sendTestWebhook', tested.response);
const paymentWebhooks = await client.GET('/api/v1/payments/{id}/webhooks', {
  params: { path: { id: world.paidPaymentId } },
});
seen('listPaymentWebhooks', paymentWebhooks.response);
const deliveries = await client.GET('/api/v1/webhooks/deliveries', {
  params: { query: { limit: 10, outcome: 'delivered', type: 'payment.success' } },
});
seen('listWebhookDeliveries', deliveries.response);
const replayed = await client.POST('/api/v1/webhooks/deliveries/{id}/replay', {
  params: { path: { id: world.deliveryId } },
});
seen('replayWebhookDelivery', replayed.response);
const events = await client.GET('/api/v1/events', { params: { query: { limit: 3 } } });
seen('listEvents', events.response);
const eventId = events.data?.data.events[0]?.id;
if (!eventId) throw new Error('listEvents: no event');
const replayedEvent = await client.POST('/api/v1/events/{id}/replay', {
  params: { path: { id: eventId } },
});
seen('replayEvent', replayedEvent.response);

// Reports, balance, payouts, statements, the audit log.
const today = new Date().toISOString().slice(0, 10);
const report = await client.GET('/api/v1/reports/daily', {
  params: { query: { from: today, to: today } },
});
seen('dailyReport', report.response);
const reportFile = await client.GET('/api/v1/reports/daily/export', {
  params: { query: { from: today, to: today, format: 'xlsx' } },
  parseAs: 'arrayBuffer',
});
seen('exportDailyReport', reportFile.response);
const balance = await client.GET('/api/v1/balance', { params: { query: { to: today } } });
seen('getBalance', balance.response);
const payouts = await client.GET('/api/v1/payouts', { params: { query: { limit: 2 } } });
seen('listPayouts', payouts.response);
const statement = await client.GET('/api/v1/statements/{month}', {
  params: { path: { month: today.slice(0, 7) }, query: { format: 'pdf', language: 'fr' } },
  parseAs: 'arrayBuffer',
});
seen('downloadStatement', statement.response);
const audit = await client.GET('/api/v1/audit-events', {
  params: { query: { limit: 10, action: 'payment.refund' } },
});
seen('listAuditEvents', audit.response);

// Payment links.
const link = await client.POST('/api/v1/payment-links', {
  body: { label: 'Cours de piano', amount: 450_000, metadata: { course: 'piano' } },
});
seen('createPaymentLink', link.response);
const linkId = link.data?.data.id;
if (!linkId) throw new Error(`createPaymentLink: ${JSON.stringify(link.error)}`);
const links = await client.GET('/api/v1/payment-links', { params: { query: { limit: 1 } } });
seen('listPaymentLinks', links.response);
const gotLink = await client.GET('/api/v1/payment-links/{id}', {
  params: { path: { id: linkId } },
});
seen('getPaymentLink', gotLink.response);
const linkImage = await client.GET('/api/v1/payment-links/{id}/image', {
  params: { path: { id: linkId }, query: { format: 'svg' } },
  parseAs: 'text',
});
seen('paymentLinkImage', linkImage.response);
const deactivated = await client.POST('/api/v1/payment-links/{id}/deactivate', {
  params: { path: { id: linkId } },
});
seen('deactivatePaymentLink', deactivated.response);

process.stdout.write(JSON.stringify(answered));
