import {
  SigningSecretRotatedResponse,
  WebhookEventResponse,
  WebhookEventsResponse,
  WebhookSettingsResponse,
  WebhookSettingsUpdatedResponse,
  WebhookTestResponse,
  type SigningSecretRotate,
  type WebhookEventKind,
  type WebhookType,
} from '@dzpay/contracts';
import type { z } from 'zod';
import type { ClientTransport } from './transport.ts';

/** Filters and paging of `listEvents`. */
export interface ListEventsQuery {
  limit?: number;
  cursor?: string;
  type?: WebhookType;
  paymentId?: string;
}

/** The back office's webhooks methods (issue 14): settings, signing secret, test, events. */
export function backOfficeWebhooksMethods(transport: ClientTransport) {
  const { call, segment } = transport;
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
    async listEvents(query: ListEventsQuery = {}) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined) params.set(key, String(value));
      }
      const search = params.size > 0 ? `?${params.toString()}` : '';
      return (await call('GET', `/api/v1/events${search}`, ok(WebhookEventsResponse))).data;
    },
    /** POST /api/v1/events/{id}/replay: that event delivered again, same id. */
    async replayEvent(id: string) {
      return (await call('POST', `/api/v1/events/${segment(id)}/replay`, ok(WebhookEventResponse)))
        .data;
    },
  };
}
