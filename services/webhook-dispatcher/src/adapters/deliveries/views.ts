import type { DeliveryView, MerchantScope } from '@dzpay/contracts';
import type { Sql, Tx } from '@dzpay/platform';
import type { WebhookType } from '../../domain/webhook-body.ts';
import { isUuid } from '../../domain/uuid.ts';

/** A deliveries row as the merchant API shows it (`select ${VIEW_COLUMNS}`). */
export interface ViewRow {
  id: string;
  event_id: string;
  event_type: WebhookType;
  payment_id: string | null;
  reference: string | null;
  state: DeliveryView['state'];
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  number: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string;
  error: string | null;
}

export const VIEW_COLUMNS =
  'id, event_id, event_type, payment_id, reference, state, attempts, next_attempt_at, created_at, updated_at';

/** Deliveries as the merchant API shows them, each with its attempts in order. */
export async function viewsOf(sql: Sql | Tx, rows: ViewRow[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const attempts = await sql<AttemptRow[]>`
    select delivery_id, number, started_at, status_code, latency_ms, response_excerpt, error
    from delivery_attempts
    where delivery_id in ${sql(rows.map((row) => row.id))}
    order by delivery_id, number`;
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    // Views are of a payment's deliveries (test events, without one, are never asked here).
    paymentId: row.payment_id ?? '',
    reference: row.reference ?? '',
    state: row.state,
    attempts: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .map((attempt) => ({
        number: attempt.number,
        startedAt: attempt.started_at.toISOString(),
        statusCode: attempt.status_code,
        latencyMs: attempt.latency_ms,
        responseExcerpt: attempt.response_excerpt,
        error: attempt.error,
      })),
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }));
}

/** A payment's deliveries as merchants list them. */
export function deliveryViews(sql: Sql) {
  return {
    /**
     * Every delivery of one payment with all its attempts, oldest first, within the
     * merchant's scope: another merchant's payment, or a paymentId that is no UUID, has none.
     */
    async ofPayment(scope: MerchantScope, paymentId: string): Promise<DeliveryView[]> {
      if (!isUuid(paymentId)) return [];
      const rows = await sql<ViewRow[]>`
        select ${sql.unsafe(VIEW_COLUMNS)} from deliveries
        where merchant_id = ${scope.merchantId} and mode = ${scope.mode}
          and payment_id = ${paymentId}
        order by created_at, id`;
      return viewsOf(sql, rows);
    },
  };
}

export type DeliveryViews = ReturnType<typeof deliveryViews>;
