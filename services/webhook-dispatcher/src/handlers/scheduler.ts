import { contextOf, inSpan, SpanKind, type Logger } from '@dzpay/platform';
import type { AttemptOutcomes } from '../adapters/deliveries/attempt-outcomes.ts';
import { endpointKey, type ClaimedDelivery } from '../adapters/deliveries/claimed-delivery.ts';
import type { DeliveryClaims } from '../adapters/deliveries/claims.ts';
import type { DeliveryMetrics } from '../adapters/delivery-metrics.ts';
import type { AttemptResult } from '../domain/attempt.ts';
import { nextStep } from '../domain/retry.ts';

export interface Scheduler {
  /** Looks for due deliveries now rather than at the next tick (a new one was enqueued). */
  wake(): void;
  /** Stops claiming, abandons attempts still in flight and hands them back, waits for them. */
  stop(): Promise<void>;
}

/** Attempts in flight at once on this replica, all endpoints together. */
const MAX_IN_FLIGHT = 512;

/** Pause before claiming again when woken during a claim. */
const CLAIM_GAP_MS = 5;

/**
 * Every `intervalMs` (and whenever woken), claims due deliveries and attempts each one
 * without waiting for the others, at most `perEndpoint` at a time per endpoint, so a slow
 * partner only ever holds its own slots. The schedule lives in Postgres: a restarted
 * dispatcher carries on from next_attempt_at.
 */
export function startScheduler(deps: {
  claims: DeliveryClaims;
  outcomes: AttemptOutcomes;
  attempt: (delivery: ClaimedDelivery, abandon: AbortSignal) => Promise<AttemptResult | null>;
  schedule: readonly number[];
  perEndpoint: number;
  intervalMs: number;
  /** How long a claim holds: longer than an attempt may take. */
  leaseMs: number;
  logger: Logger;
  metrics?: DeliveryMetrics;
  clock?: () => Date;
  random?: () => number;
}): Scheduler {
  const { claims, outcomes, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const random = deps.random ?? Math.random;
  const busy = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  const abandon = new AbortController();
  let stopping = false;
  let ticking = false;
  let again = false;

  function freeSlot(key: string): void {
    const left = (busy.get(key) ?? 1) - 1;
    if (left === 0) busy.delete(key);
    else busy.set(key, left);
    // A slot came free: that endpoint may have more waiting.
    wake();
  }

  async function run(delivery: ClaimedDelivery, key: string): Promise<void> {
    let result: AttemptResult | null;
    try {
      // Each attempt joins the trace of the payment outcome it reports.
      result = await inSpan(
        'webhook attempt',
        {
          kind: SpanKind.CLIENT,
          parent: contextOf(delivery.traceCarrier),
          attributes: { 'dzpay.delivery_id': delivery.id, 'dzpay.attempt': delivery.attempts + 1 },
        },
        () => deps.attempt(delivery, abandon.signal),
      );
    } finally {
      // The partner is done with this attempt: its slot is free while the outcome is
      // written (the claim keeps the delivery itself from being taken meanwhile).
      freeSlot(key);
    }
    if (result === null) {
      await claims.release(delivery);
      return;
    }
    const step = nextStep({
      verdict: result.verdict,
      // A replayed delivery runs the schedule again from its replay on.
      attempts: delivery.attempts + 1 - delivery.scheduleBase,
      schedule: deps.schedule,
      now: clock(),
      random,
    });
    const recorded = await outcomes.record(delivery, result, step);
    if (recorded) deps.metrics?.attempted(step.state, result.latencyMs);
    logger.debug(
      { deliveryId: delivery.id, attempt: delivery.attempts + 1, state: step.state, recorded },
      'webhook attempt',
    );
  }

  function launch(delivery: ClaimedDelivery): void {
    const key = endpointKey(delivery);
    busy.set(key, (busy.get(key) ?? 0) + 1);
    const running = run(delivery, key)
      .catch((err: unknown) => {
        // Unrecorded (the database away): the claim lapses and the attempt is made again.
        logger.error({ err, deliveryId: delivery.id }, 'webhook attempt not recorded');
      })
      .finally(() => {
        inFlight.delete(running);
        wake();
      });
    inFlight.add(running);
  }

  async function tick(): Promise<void> {
    if (stopping) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      const room = MAX_IN_FLIGHT - inFlight.size;
      if (room > 0) {
        const claimed = await claims.claimDue({
          limit: room,
          perEndpoint: deps.perEndpoint,
          busy: Object.fromEntries(busy),
          leaseMs: deps.leaseMs,
        });
        for (const delivery of claimed) launch(delivery);
      }
    } catch (err) {
      logger.error({ err }, 'claiming due webhooks failed');
    } finally {
      ticking = false;
    }
    if (again) {
      // Woken while claiming (slots freed, deliveries enqueued): claim once more, a moment
      // later, so a busy stream of wake-ups becomes a few larger claims, not one each.
      again = false;
      setTimeout(wake, CLAIM_GAP_MS).unref();
    }
  }

  function wake(): void {
    void tick();
  }

  const timer = setInterval(wake, deps.intervalMs);
  wake();

  return {
    wake,
    async stop() {
      stopping = true;
      clearInterval(timer);
      // In-flight attempts may take the whole timeout; a shutdown does not wait for that.
      // They are handed back unrecorded and made again after the restart, same event id.
      abandon.abort();
      while (ticking || inFlight.size > 0) {
        await Promise.all(inFlight);
        if (ticking) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}
