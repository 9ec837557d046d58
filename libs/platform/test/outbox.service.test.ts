import { randomUUID } from 'node:crypto';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { paymentEvent } from '@dzpay/testkit/payment-events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Sql } from '../src/db.ts';
import { writeOutbox } from '../src/outbox.ts';
import { createOutboxSchema } from './outbox-schema.ts';

let infra: IsolatedInfra;
let sql: Sql;
const scope = { merchantId: randomUUID(), mode: 'test' as const };

/** Writes the active span as a traceparent, as the W3C propagator the runtime installs does. */
const traceparentOnly: TextMapPropagator = {
  inject(active, carrier, setter) {
    const span = trace.getSpanContext(active);
    if (span) setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-01`);
  },
  extract: (active) => active,
  fields: () => ['traceparent'],
};

beforeAll(async () => {
  infra = await isolatedInfra('outbox-writer');
  await createOutboxSchema(infra.databaseUrl, 'outbox_test');
  sql = connectPostgres(infra.databaseUrl, 'outbox_test', 2);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(traceparentOnly);
});
afterAll(async () => {
  propagation.disable();
  context.disable();
  await sql?.end();
  await infra?.cleanup();
});

const rowsOf = (ids: string[]) =>
  sql<
    { id: string; subject: string; payload: unknown; trace_carrier: unknown; created_at: Date }[]
  >`
    select id, subject, payload, trace_carrier, created_at from outbox
    where id in ${sql(ids)} order by subject`;

describe('writeOutbox', () => {
  it('writes an event in the caller’s transaction with the trace context active then', async () => {
    const span = trace.wrapSpanContext({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
    });
    const event = paymentEvent(scope, 'payment.succeeded', { referenceKind: 'qr', epoch: 1 });
    await context.with(trace.setSpan(ROOT_CONTEXT, span), () =>
      sql.begin((tx) => writeOutbox(tx, { id: event.id, payload: event })),
    );
    expect(await rowsOf([event.id])).toMatchObject([
      {
        id: event.id,
        // The event's own subject, whatever a caller says (an older one passes its own).
        subject: 'payments.events.agency.qr.decided.payment.succeeded',
        payload: event,
        trace_carrier: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      },
    ]);

    // A rolled-back transaction leaves no event.
    const lost = paymentEvent(scope, 'payment.failed');
    await sql
      .begin(async (tx) => {
        await writeOutbox(tx, { id: lost.id, payload: lost });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await rowsOf([lost.id])).toEqual([]);
  });

  it('writes several events in one statement, and nothing for none', async () => {
    const events = (['payment.created', 'payment.processing', 'payment.refunded'] as const).map(
      (type) => paymentEvent(scope, type, { channel: 'CHECKOUT', referenceKind: 'order' }),
    );
    await sql.begin(async (tx) => {
      await writeOutbox(tx, ...events.map((event) => ({ id: event.id, payload: event })));
      await writeOutbox(tx);
    });
    const rows = await rowsOf(events.map((event) => event.id));
    // Outside any span, each carrier is empty; one statement, one transaction start.
    expect(rows.map((row) => [row.subject, row.trace_carrier])).toEqual([
      ['payments.events.checkout.order.decided.payment.refunded', {}],
      ['payments.events.checkout.order.open.payment.created', {}],
      ['payments.events.checkout.order.open.payment.processing', {}],
    ]);
    expect(new Set(rows.map((row) => row.created_at.getTime())).size).toBe(1);
  });

  it('refuses what is no event of a stream, inside the transaction', async () => {
    const id = randomUUID();
    await expect(sql.begin((tx) => writeOutbox(tx, { id, payload: { n: 1 } }))).rejects.toThrow();
    expect(await rowsOf([id])).toEqual([]);
  });
});
