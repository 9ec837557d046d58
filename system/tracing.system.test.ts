import { randomBytes } from 'node:crypto';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { paymentEventsSubject, PaymentEventTypes } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { CARDS } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

// Every service of the stack runs in this process, so one in-memory exporter sees the
// spans of all of them: one trace per request, joined across NATS by message headers and
// across the outbox by the stored trace context, down to the partner's webhook.

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: Stack;
let partner: PartnerServer;
let spans: ReadableSpan[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);

  partner = await startPartnerServer({ signingSecret: SIGNING_SECRET });
  stack = await startStack(
    'tracing',
    { SECRETS_KEY },
    { withPayments: true, withWebhooks: { SECRETS_KEY } },
  );
  const shop = await stack.merchant('Traced shop', { walletId: 'W-T' });
  await connectPartner(
    stack,
    shop.id,
    { url: partner.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  exporter.reset();
  await payProductReference(stack, shop.id, 'BOOK-7', CARDS.approved);
  for (let waited = 0; partner.webhooks.length === 0 && waited < 15_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  spans = exporter.getFinishedSpans();
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

const named = (name: string) => spans.filter((span) => span.name === name);
const one = (name: string) => {
  const found = named(name);
  expect(found, `spans named ${name}: ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
};
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
/** Whether `span` descends from `ancestor` through recorded parents. */
function descends(span: ReadableSpan, ancestor: ReadableSpan): boolean {
  for (let at: ReadableSpan | undefined = span; at;) {
    if (parentOf(at) === idOf(ancestor)) return true;
    at = spans.find((candidate) => idOf(candidate) === parentOf(at!));
  }
  return false;
}

describe('one trace per request, across NATS, Postgres, Redis, the outbox and the webhook', () => {
  it('the product payment request: HTTP, then NATS to payments, its Redis lock and Postgres writes', () => {
    const http = one('POST /pay/:merchantId/:reference');
    expect(http.parentSpanContext).toBeUndefined();
    const request = one('nats request payments.attempts.start');
    expect(parentOf(request)).toBe(idOf(http));
    const served = one('nats serve payments.attempts.start');
    expect(parentOf(served)).toBe(idOf(request));
    expect(traceOf(served)).toBe(traceOf(http));
    const lock = one('redis SET reference lock');
    expect(descends(lock, served)).toBe(true);
    const inserts = spans.filter(
      (span) => span.name === 'pg insert' && traceOf(span) === traceOf(http),
    );
    expect(inserts.length).toBeGreaterThan(0);
    for (const insert of inserts) expect(descends(insert, served)).toBe(true);
    // Parameters never reach a trace.
    expect(JSON.stringify(inserts.map((s) => s.attributes))).not.toContain('BOOK-7');
  });

  it('the payment outcome: written with the return request, published, enqueued, delivered in its trace', () => {
    const returned = one('GET /checkout/return/:paymentId');
    const succeeded = paymentEventsSubject({
      channel: 'AGENCY',
      referenceKind: 'product',
      type: PaymentEventTypes.succeeded,
    });
    const published = named(`outbox publish ${succeeded}`);
    expect(published).toHaveLength(1);
    const publish = published[0]!;
    expect(traceOf(publish)).toBe(traceOf(returned));
    expect(descends(publish, returned)).toBe(true);
    const enqueue = spans.find(
      (span) => span.name === 'webhook enqueue' && traceOf(span) === traceOf(publish),
    );
    expect(enqueue, 'webhook enqueue in the outcome trace').toBeDefined();
    expect(parentOf(enqueue!)).toBe(idOf(publish));
    const attempt = one('webhook attempt');
    expect(parentOf(attempt)).toBe(idOf(enqueue!));
    expect(attempt.attributes['dzpay.attempt']).toBe(1);
  });
});
