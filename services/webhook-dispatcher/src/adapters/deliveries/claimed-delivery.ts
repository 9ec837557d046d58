import type { Mode } from '@dzpay/contracts';
import type { WebhookType } from '../../domain/webhook-body.ts';

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  merchantId: string;
  mode: Mode;
  /** Null for a test event, which tells of no payment. */
  paymentId: string | null;
  reference: string | null;
  channel: 'CHECKOUT' | 'AGENCY' | null;
  eventType: WebhookType;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The attempt count when the delivery was last replayed (0 if never): its schedule counts from there. */
  scheduleBase: number;
  /** The trace context of the payment outcome this delivery reports. */
  traceCarrier: Record<string, string>;
}

/** A deliveries row as a claim returns it (`returning ${CLAIMED_COLUMNS}`). */
export interface DeliveryRow {
  id: string;
  event_id: string;
  merchant_id: string;
  mode: Mode;
  payment_id: string | null;
  reference: string | null;
  channel: 'CHECKOUT' | 'AGENCY' | null;
  event_type: WebhookType;
  body: string;
  attempts: number;
  schedule_base: number;
  trace_carrier: Record<string, string> | null;
}

export const CLAIMED_COLUMNS =
  'id, event_id, merchant_id, mode, payment_id, reference, channel, event_type, body, attempts, schedule_base, trace_carrier';

export function toClaimedDelivery(row: DeliveryRow): ClaimedDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    merchantId: row.merchant_id,
    mode: row.mode,
    paymentId: row.payment_id,
    reference: row.reference,
    channel: row.channel,
    eventType: row.event_type,
    body: row.body,
    attempts: row.attempts,
    scheduleBase: row.schedule_base,
    traceCarrier: row.trace_carrier ?? {},
  };
}

/** The key of an endpoint, for per-endpoint limits: one merchant in one mode. */
export const endpointKey = (delivery: { merchantId: string; mode: Mode }) =>
  `${delivery.merchantId}.${delivery.mode}`;
