import { randomUUID } from 'node:crypto';
import { Rpc, type MerchantScope } from '@dzpay/contracts';
import {
  AppError,
  serveRpc,
  type Logger,
  type NatsConnection,
  type PartnerDirectory,
  type RpcServer,
} from '@dzpay/platform';
import type { AttemptOutcomes } from '../adapters/deliveries/attempt-outcomes.ts';
import type { ClaimedDelivery } from '../adapters/deliveries/claimed-delivery.ts';
import type { DeliveryClaims } from '../adapters/deliveries/claims.ts';
import type { DeliveryReplays } from '../adapters/deliveries/replays.ts';
import type { TestDeliveries } from '../adapters/deliveries/test-deliveries.ts';
import type { EventsRepository } from '../adapters/events-repository.ts';
import { testWebhookOf, wants } from '../domain/webhook-body.ts';
import type { AttemptResult } from '../domain/attempt.ts';
import { webhookUrlOf } from './attempt.ts';

/**
 * The merchant API's events, always under the caller's merchant and mode:
 * `webhooks.log.list` (the events taken in, newest first), `webhooks.log.replay` (an
 * event delivered again, same id) and `webhooks.test.send` (a `webhook.test` event
 * sent now, its one attempt answered). Resolves once all three are served.
 */
export async function serveEventsHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  replays: DeliveryReplays;
  testDeliveries: TestDeliveries;
  claims: DeliveryClaims;
  outcomes: AttemptOutcomes;
  events: EventsRepository;
  directory: PartnerDirectory;
  /** One attempt of a delivery, as the scheduler makes it (null: abandoned, shutdown). */
  attempt: (delivery: ClaimedDelivery) => Promise<AttemptResult | null>;
  /** How long the test event's claim holds: longer than an attempt may take. */
  leaseMs: number;
  /** A replayed event is due now: look for it at once rather than at the next tick. */
  replayed: () => void;
  clock: () => Date;
  logger: Logger;
}): Promise<RpcServer[]> {
  const { nats, prefix, events, replays, testDeliveries, directory, logger } = deps;

  const notFound = (eventId: string) =>
    new AppError('WEBHOOK404_EVENT_NOT_FOUND', 'no such event', { details: { eventId } });

  async function replay(scope: MerchantScope, eventId: string) {
    const event = await events.find(scope, eventId);
    if (event === null) throw notFound(eventId);
    if (event.delivery !== null) {
      await replays.replay(scope, event.delivery.id);
    } else {
      // Never delivered: its kind was not wanted when it came. Sent now only if the
      // endpoint wants it now; the merchant changes the kinds first otherwise.
      const target = await directory.webhookTarget(scope.merchantId, scope.mode);
      if (!wants(target?.events, event.type)) {
        throw new AppError(
          'WEBHOOK409_ENDPOINT_MISSING',
          `the webhook endpoint does not take ${event.type} events: add it to events in PUT /api/v1/webhooks/settings, then replay`,
          { details: { eventId, type: event.type, reason: 'kind not wanted' } },
        );
      }
      await replays.deliverEvent(scope, eventId);
    }
    deps.replayed();
    return (await events.find(scope, eventId))!;
  }

  async function sendTest(scope: MerchantScope & { minVersion?: number }) {
    const target = await directory.webhookTarget(scope.merchantId, scope.mode, {
      ...(scope.minVersion !== undefined ? { minVersion: scope.minVersion } : {}),
    });
    const url = target ? safeUrl(target) : null;
    if (target === null || url === null || target.signingSecret === null) {
      throw new AppError(
        'WEBHOOK409_ENDPOINT_MISSING',
        'no webhook endpoint: set a URL with PUT /api/v1/webhooks/settings first',
      );
    }
    const now = deps.clock();
    const eventId = randomUUID();
    const delivery = await testDeliveries.create(
      { merchantId: scope.merchantId, mode: scope.mode },
      eventId,
      testWebhookOf(eventId, now),
      now,
      deps.leaseMs,
    );
    const result = await deps.attempt(delivery);
    if (result === null) {
      await deps.claims.release(delivery);
      throw new AppError('SERVICE503_UNAVAILABLE', 'the dispatcher is stopping; retry shortly');
    }
    // A test event is tried once: its outcome is final, whatever the partner answered.
    const ok = result.verdict.kind === 'delivered';
    await deps.outcomes.record(delivery, result, { state: ok ? 'success' : 'fail' });
    return {
      eventId,
      url: url.href,
      ok,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: result.error,
    };
  }

  return Promise.all([
    serveRpc(
      nats,
      prefix,
      Rpc.webhookEventsList,
      ({ merchantId, mode, ...query }) => events.list({ merchantId, mode }, query),
      logger,
    ),
    serveRpc(
      nats,
      prefix,
      Rpc.webhookEventReplay,
      ({ merchantId, mode, eventId }) => replay({ merchantId, mode }, eventId),
      logger,
    ),
    serveRpc(nats, prefix, Rpc.webhookTestSend, (request) => sendTest(request), logger),
  ]);
}

function safeUrl(target: Parameters<typeof webhookUrlOf>[0]): URL | null {
  try {
    return webhookUrlOf(target);
  } catch {
    return null;
  }
}
