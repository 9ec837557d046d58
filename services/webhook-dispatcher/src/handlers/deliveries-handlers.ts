import { Rpc } from '@dzpay/contracts';
import {
  AppError,
  serveRpc,
  type Logger,
  type NatsConnection,
  type RpcServer,
} from '@dzpay/platform';
import type { DeliveriesListing } from '../adapters/deliveries/listing.ts';
import type { DeliveryReplays } from '../adapters/deliveries/replays.ts';
import type { DeliveryViews } from '../adapters/deliveries/views.ts';

/**
 * The merchant API's view of webhooks, always under the caller's merchant and mode:
 * `webhooks.deliveries.list` (a payment's deliveries with every attempt),
 * `webhooks.deliveries.all` (every delivery, newest first, filtered, a page at a time) and
 * `webhooks.deliveries.replay` (schedule a delivery again, whatever its state; the
 * scheduler sends it with the same event id and body). Resolves once all are served.
 */
export async function serveDeliveriesHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  views: DeliveryViews;
  listing: DeliveriesListing;
  replays: DeliveryReplays;
  /** A replayed delivery is due now: look for it at once rather than at the next tick. */
  replayed: () => void;
  logger: Logger;
}): Promise<RpcServer[]> {
  const { nats, prefix, views, listing, replays, logger } = deps;
  return Promise.all([
    serveRpc(
      nats,
      prefix,
      Rpc.deliveriesOfPayment,
      async ({ merchantId, mode, paymentId }) => ({
        deliveries: await views.ofPayment({ merchantId, mode }, paymentId),
      }),
      logger,
    ),
    serveRpc(
      nats,
      prefix,
      Rpc.webhookDeliveriesList,
      ({ merchantId, mode, ...query }) => listing.list({ merchantId, mode }, query),
      logger,
    ),
    serveRpc(
      nats,
      prefix,
      Rpc.deliveryReplay,
      async ({ merchantId, mode, deliveryId }) => {
        const view = await replays.replay({ merchantId, mode }, deliveryId);
        if (view === null) {
          throw new AppError('WEBHOOK404_DELIVERY_NOT_FOUND', 'no such webhook delivery', {
            details: { deliveryId },
          });
        }
        deps.replayed();
        return view;
      },
      logger,
    ),
  ]);
}
