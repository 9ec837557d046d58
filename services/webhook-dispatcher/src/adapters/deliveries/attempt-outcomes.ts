import { batcher, type Sql } from '@dzpay/platform';
import type { AttemptResult } from '../../domain/attempt.ts';
import type { NextStep } from '../../domain/retry.ts';
import type { ClaimedDelivery } from './claimed-delivery.ts';
import { deliveryEventWriter } from './delivery-events.ts';

/** Attempts recorded in one transaction at most. */
const MAX_BATCH = 64;

/** What each attempt came to: its row, and where its delivery goes next. */
export function attemptOutcomes(sql: Sql, options: { clock?: () => Date } = {}) {
  const writeEvents = deliveryEventWriter(options.clock ?? (() => new Date()));

  /**
   * Records a batch of attempts and where each delivery goes next, with their WEBHOOKS
   * events, in one transaction. False for a delivery that moved on meanwhile (its claim
   * lapsed and another replica recorded this attempt number): nothing is written for it.
   */
  async function recordAll(
    items: readonly { delivery: ClaimedDelivery; result: AttemptResult; step: NextStep }[],
  ): Promise<boolean[]> {
    const rows = items.map(({ delivery, step }) => ({
      id: delivery.id,
      attempts: delivery.attempts,
      scheduleBase: delivery.scheduleBase,
      state: step.state,
      nextAttemptAt: step.state === 'pending' ? step.nextAttemptAt : null,
    }));
    return sql.begin(async (tx) => {
      const updated = await tx<{ id: string }[]>`
        update deliveries d
        set state = x.state, attempts = x.attempts + 1, next_attempt_at = x."nextAttemptAt",
            updated_at = now()
        from jsonb_to_recordset(${tx.json(rows)}) as x(id uuid, attempts int,
          "scheduleBase" int, state text, "nextAttemptAt" timestamptz)
        where d.id = x.id and d.state = 'pending' and d.attempts = x.attempts
          and d.schedule_base = x."scheduleBase"
        returning d.id`;
      const moved = new Set(updated.map((row) => row.id));
      const recorded = items.filter(({ delivery }) => moved.has(delivery.id));
      if (recorded.length > 0) {
        const attempts = recorded.map(({ delivery, result }) => ({
          deliveryId: delivery.id,
          number: delivery.attempts + 1,
          startedAt: result.startedAt,
          statusCode: result.statusCode,
          latencyMs: result.latencyMs,
          responseExcerpt: result.responseExcerpt,
          error: result.error,
        }));
        await tx`
          insert into delivery_attempts (delivery_id, number, started_at, status_code, latency_ms,
            response_excerpt, error)
          select "deliveryId", number, "startedAt", "statusCode", "latencyMs", "responseExcerpt",
            error
          from jsonb_to_recordset(${tx.json(attempts)}) as x("deliveryId" uuid, number int,
            "startedAt" timestamptz, "statusCode" int, "latencyMs" int, "responseExcerpt" text,
            error text)`;
      }
      await writeEvents(
        tx,
        recorded.map(({ delivery, step }) => ({
          delivery,
          state: step.state,
          attempts: delivery.attempts + 1,
        })),
      );
      return items.map(({ delivery }) => moved.has(delivery.id));
    });
  }

  // Concurrent calls share one transaction per batch: a burst of attempts commits in a
  // few transactions instead of one each.
  const recordOne = batcher(recordAll, MAX_BATCH);

  return {
    /**
     * Records an attempt and where the delivery goes next, with its WEBHOOKS event,
     * committed with the other attempts recorded meanwhile. False when the delivery moved
     * on meanwhile (the claim lapsed and another replica recorded this attempt number):
     * nothing is written then.
     */
    record(delivery: ClaimedDelivery, result: AttemptResult, step: NextStep): Promise<boolean> {
      return recordOne({ delivery, result, step });
    },
  };
}

export type AttemptOutcomes = ReturnType<typeof attemptOutcomes>;
