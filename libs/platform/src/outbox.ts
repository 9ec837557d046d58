import type postgres from 'postgres';
import { subjectOfEvent } from '@dzpay/contracts';
import type { Tx } from './db.ts';
import { traceCarrier } from './tracing.ts';

/** An event for the outbox: `id` becomes its Nats-Msg-Id. */
export interface OutboxEvent {
  id: string;
  /** A payment or webhook delivery event: its subject comes from it (subjectOfEvent). */
  payload: postgres.JSONValue;
}

/**
 * Writes events to the outbox inside the caller's transaction, so each exists exactly
 * when the state change it tells of does; the relay publishes them, each on the subject
 * libs/contracts gives the event (the row keeps it, for whoever reads the table). Each row keeps the
 * trace context active now, so the publish, and what consumers do with the event, join
 * the trace that wrote it. One statement however many events there are; none writes
 * nothing.
 */
export async function writeOutbox(tx: Tx, ...events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => ({
    id: event.id,
    subject: subjectOfEvent(event.payload),
    payload: event.payload,
    traceCarrier: traceCarrier(),
  }));
  await tx`insert into outbox (id, subject, payload, trace_carrier)
           select id, subject, payload, "traceCarrier"
           from jsonb_to_recordset(${tx.json(rows)})
             as x(id uuid, subject text, payload jsonb, "traceCarrier" jsonb)`;
}
