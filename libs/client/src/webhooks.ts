import {
  DeliveriesResponse,
  DeliveryResponse,
  Rpc,
  SigningSecretRotatedResponse,
  WebhookEventResponse,
  WebhookEventsResponse,
  WebhookSettingsResponse,
  WebhookSettingsUpdatedResponse,
  WebhookTestResponse,
  type DeliveryView,
  type SigningSecretRotate,
  type WebhookEventKind,
  type WebhookType,
} from '@dzpay/contracts';
import { z } from 'zod';
import type { ClientTransport } from './transport.ts';

/** Filters and paging of `listEvents`. */
interface ListEventsQuery {
  limit?: number;
  cursor?: string;
  type?: WebhookType;
  paymentId?: string;
}

/** Filters and paging of `listWebhookDeliveries` (days in Algiers, both included). */
type ListDeliveriesQuery = Omit<
  z.infer<typeof Rpc.webhookDeliveriesList.request>,
  'merchantId' | 'mode'
>;

/** 200 of GET /api/v1/webhooks/deliveries: a page of the dispatcher's answer. */
const DeliveriesPageResponse = z.object({
  statusCode: z.literal(200),
  message: z.string(),
  data: Rpc.webhookDeliveriesList.reply,
});

/**
 * A merchant's webhooks: where they go and which kinds, the secret that signs them, a
 * test send, the events they tell of, and each delivery of a payment's outcome.
 */
export function webhooksMethods(transport: ClientTransport) {
  const { call, segment, query } = transport;
  const ok = <S extends z.ZodType>(schema: S) => ({ status: 200, schema });
  return {
    /** GET /api/v1/webhooks/settings: where webhooks go and which kinds (never a secret). */
    async getWebhookSettings() {
      return (await call('GET', '/api/v1/webhooks/settings', ok(WebhookSettingsResponse))).data;
    },
    /** PUT /api/v1/webhooks/settings: the first call answers the new signing secret, once. */
    async setWebhookSettings(settings: { url?: string | null; events?: WebhookEventKind[] }) {
      return (
        await call('PUT', '/api/v1/webhooks/settings', ok(WebhookSettingsUpdatedResponse), settings)
      ).data;
    },
    /** POST /api/v1/webhooks/signing-secret/rotate: a new secret, shown once. */
    async rotateSigningSecret(options: z.input<typeof SigningSecretRotate> = {}) {
      return (
        await call(
          'POST',
          '/api/v1/webhooks/signing-secret/rotate',
          ok(SigningSecretRotatedResponse),
          options,
        )
      ).data;
    },
    /** POST /api/v1/webhooks/test: a signed `webhook.test` event sent now; its attempt. */
    async sendTestWebhook() {
      return (await call('POST', '/api/v1/webhooks/test', ok(WebhookTestResponse), {})).data;
    },
    /** GET /api/v1/events: the merchant's events, newest first, one page. */
    async listEvents(filters: ListEventsQuery = {}) {
      return (await call('GET', `/api/v1/events${query(filters)}`, ok(WebhookEventsResponse))).data;
    },
    /** POST /api/v1/events/{id}/replay: that event delivered again, same id. */
    async replayEvent(id: string) {
      return (await call('POST', `/api/v1/events/${segment(id)}/replay`, ok(WebhookEventResponse)))
        .data;
    },
    /** GET /api/v1/payments/{id}/webhooks: the payment's deliveries, oldest first. */
    async paymentWebhooks(id: string): Promise<DeliveryView[]> {
      const answer = await call('GET', `/api/v1/payments/${segment(id)}/webhooks`, {
        status: 200,
        schema: DeliveriesResponse,
      });
      return answer.data.deliveries;
    },
    /**
     * GET /api/v1/webhooks/deliveries: every delivery, newest first, with its attempts;
     * filtered by outcome (delivered, failing, given_up), type, payment and days.
     */
    async listWebhookDeliveries(filters: ListDeliveriesQuery = {}) {
      return (
        await call(
          'GET',
          `/api/v1/webhooks/deliveries${query(filters)}`,
          ok(DeliveriesPageResponse),
        )
      ).data;
    },
    /** POST /api/v1/webhooks/deliveries/{id}/replay. */
    async replayDelivery(id: string): Promise<DeliveryView> {
      const answer = await call('POST', `/api/v1/webhooks/deliveries/${segment(id)}/replay`, {
        status: 200,
        schema: DeliveryResponse,
      });
      return answer.data;
    },
  };
}
