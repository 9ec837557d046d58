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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Sql } from '../src/db.ts';
import { writeOutbox } from '../src/outbox.ts';
import { createOutboxSchema } from './outbox-schema.ts';

let infra: IsolatedInfra;
let sql: Sql;

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
    const id = randomUUID();
    await context.with(trace.setSpan(ROOT_CONTEXT, span), () =>
      sql.begin((tx) =>
        writeOutbox(tx, { id, subject: 'things.happened', payload: { n: 1, at: null } }),
      ),
    );
    expect(await rowsOf([id])).toMatchObject([
      {
        id,
        subject: 'things.happened',
        payload: { n: 1, at: null },
        trace_carrier: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      },
    ]);

    // A rolled-back transaction leaves no event.
    const lost = randomUUID();
    await sql
      .begin(async (tx) => {
        await writeOutbox(tx, { id: lost, subject: 'things.undone', payload: {} });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await rowsOf([lost])).toEqual([]);
  });

  it('writes several events in one statement, and nothing for none', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    await sql.begin(async (tx) => {
      await writeOutbox(tx, ...ids.map((id, n) => ({ id, subject: `batch.${n}`, payload: { n } })));
      await writeOutbox(tx);
    });
    const rows = await rowsOf(ids);
    // Outside any span, each carrier is empty; one statement, one transaction start.
    expect(rows.map((row) => [row.subject, row.payload, row.trace_carrier])).toEqual([
      ['batch.0', { n: 0 }, {}],
      ['batch.1', { n: 1 }, {}],
      ['batch.2', { n: 2 }, {}],
    ]);
    expect(new Set(rows.map((row) => row.created_at.getTime())).size).toBe(1);
  });
});
