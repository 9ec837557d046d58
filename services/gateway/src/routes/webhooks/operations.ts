import {
  DeliveriesResponse,
  DeliveryResponse,
  Rpc,
  SigningSecretRotate,
  SigningSecretRotatedResponse,
  WebhookDeliveriesQuery,
  WebhookEventResponse,
  WebhookEventsQuery,
  WebhookEventsResponse,
  WebhookSettingsResponse,
  WebhookSettingsUpdate,
  WebhookSettingsUpdatedResponse,
  WebhookTestResponse,
} from '@dzpay/contracts';
import {
  API_KEY_RESPONSES,
  internal,
  rateLimited,
  unauthorized,
  unavailable,
} from '../shared/common-responses.ts';
import { examples } from '../shared/openapi-examples.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';
import { z } from 'zod';

const common = {
  ...API_KEY_RESPONSES,
} as const;
const invalid = {
  description: 'a field is invalid (named in the message)',
  shape: 'validation-list',
} as const;
const dispatcherDown = {
  description: 'webhook-dispatcher did not answer in time; safe to retry',
  errors: ['SERVICE503_UNAVAILABLE'],
} as const;
const noEndpoint = {
  description: 'no webhook endpoint (no URL and no partner API) for this key’s merchant and mode',
  errors: ['WEBHOOK409_ENDPOINT_MISSING'],
} as const;

const settings = {
  url: 'https://shop.example/hooks/dzpay',
  events: ['payment.success', 'payment.fail', 'payment.refunded'],
  signingSecretCreatedAt: '2025-03-14T09:00:00.000Z',
};
const event = {
  id: '0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10',
  type: 'payment.refunded',
  createdAt: '2025-03-15T10:00:00.000Z',
  paymentId: '5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71',
  data: {
    paymentId: '5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71',
    reference: 'ORDER-42',
    channel: 'CHECKOUT',
    amount: 500,
    refundedAmount: 500,
    currency: 'DZD',
    status: 'success',
    orderId: '7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e',
    paidAt: '2025-03-14T09:26:52.000Z',
    metadata: null,
    failureReason: null,
  },
  delivery: {
    id: '2a4b6c8d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
    status: 'success',
    attempts: 1,
    lastStatusCode: 200,
  },
};

/** 200 of GET /api/v1/webhooks/deliveries: one page of the dispatcher's answer. */
const DeliveriesPageResponse = z.object({
  statusCode: z.literal(200),
  message: z.string(),
  data: Rpc.webhookDeliveriesList.reply,
});

/** The webhooks operations of the merchant API, as the OpenAPI document describes them. */
export const WEBHOOKS_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/payments/{id}/webhooks',
    operationId: 'listPaymentWebhooks',
    tag: 'Webhooks',
    summary: "A payment's webhook deliveries and every attempt",
    apiKey: true,
    params: { id: 'the payment id (UUID)' },
    responses: {
      200: {
        description: 'the deliveries, oldest first (none for an unknown payment)',
        json: DeliveriesResponse,
        example: {
          statusCode: 200,
          message: 'Webhook deliveries',
          data: { deliveries: [examples.delivery] },
        },
      },
      401: unauthorized,
      429: rateLimited,
      500: internal,
      503: unavailable('webhook-dispatcher'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'Every webhook delivery of this merchant and mode, newest first, with its attempts',
    description:
      'Each delivery of a webhook (payment outcomes, refunds, test events: a test event has paymentId and reference null) with every attempt: its HTTP status code (null when no answer came), when it started, its latency and its error. outcome: delivered (acknowledged), failing (not acknowledged yet, still retried on its schedule; nextAttemptAt says when), given_up (the schedule ran out: replay it with POST /api/v1/webhooks/deliveries/{id}/replay). from and to are calendar days in Algiers (UTC+01:00), both included, of when the delivery was made. Keyset pagination: pass nextCursor as cursor.',
    apiKey: true,
    query: {
      limit: '1 to 100, 20 by default',
      cursor: 'nextCursor of the previous page',
      outcome: 'delivered, failing or given_up',
      type: 'payment.success, payment.fail, payment.refunded or webhook.test',
      paymentId: 'only the deliveries of this payment (UUID)',
      from: 'first day, YYYY-MM-DD in Algiers (included)',
      to: 'last day, YYYY-MM-DD in Algiers (included); not before from',
    },
    querySchema: WebhookDeliveriesQuery,
    responses: {
      200: {
        description: 'one page',
        json: DeliveriesPageResponse,
        example: {
          statusCode: 200,
          message: 'Webhook deliveries',
          data: {
            deliveries: [
              examples.delivery,
              {
                ...examples.delivery,
                id: '3c5e7a9b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
                eventId: '0f1e2d3c-4b5a-4697-8877-665544332211',
                eventType: 'webhook.test',
                paymentId: null,
                reference: null,
                state: 'fail',
                attempts: [
                  {
                    number: 1,
                    startedAt: '2026-11-21T09:00:00.100Z',
                    statusCode: null,
                    latencyMs: 5000,
                    responseExcerpt: '',
                    error: 'timeout after 5000 ms',
                  },
                ],
                createdAt: '2026-11-21T09:00:00.000Z',
                updatedAt: '2026-11-21T09:00:05.200Z',
              },
            ],
            nextCursor: null,
          },
        },
      },
      400: invalid,
      ...common,
      503: dispatcherDown,
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/deliveries/{id}/replay',
    operationId: 'replayWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Send a webhook again, same event id, a fresh retry schedule',
    apiKey: true,
    params: { id: 'the delivery id (UUID)' },
    responses: {
      200: {
        description: 'scheduled again',
        json: DeliveryResponse,
        example: {
          statusCode: 200,
          message: 'Webhook delivery scheduled again',
          data: { ...examples.delivery, state: 'pending' },
        },
      },
      401: unauthorized,
      404: {
        description: "no such delivery for the key's merchant and mode",
        errors: ['WEBHOOK404_DELIVERY_NOT_FOUND'],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('webhook-dispatcher'),
    },
  },
  // The payer's pages: HTML in ar/fr/en (`?lang=`), no key. Errors are pages too.
  {
    method: 'get',
    path: '/api/v1/webhooks/settings',
    operationId: 'getWebhookSettings',
    tag: 'Webhook settings',
    summary: 'Where webhooks go and which kinds; never a secret',
    description:
      'url is the chosen URL, else {API_URL}/webhooks/platform of the partner API, else null. events default to payment.success and payment.fail.',
    apiKey: true,
    responses: {
      200: {
        description: 'the settings',
        json: WebhookSettingsResponse,
        example: { statusCode: 200, message: 'Webhook settings', data: settings },
      },
      ...common,
    },
  },
  {
    method: 'put',
    path: '/api/v1/webhooks/settings',
    operationId: 'setWebhookSettings',
    tag: 'Webhook settings',
    summary: 'Set the webhook URL and kinds; the first call makes the signing secret',
    description:
      'url: an absolute http(s) URL without query, fragment or user; null goes back to the default. events: a non-empty subset of payment.success, payment.fail, payment.refunded. Absent fields are kept. When the endpoint had no signing secret, one is made and answered in signingSecret, this once. The dispatcher follows within a second.',
    apiKey: true,
    body: {
      schema: WebhookSettingsUpdate,
      example: { url: settings.url, events: settings.events },
      required: true,
    },
    responses: {
      200: {
        description: 'saved',
        json: WebhookSettingsUpdatedResponse,
        example: {
          statusCode: 200,
          message: 'Webhook settings saved; the signing secret is shown this once',
          data: { ...settings, signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        },
      },
      400: invalid,
      ...common,
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/signing-secret/rotate',
    operationId: 'rotateSigningSecret',
    tag: 'Webhook settings',
    summary: 'A new signing secret; the previous one still signs for the grace period',
    description:
      'graceHours: 0 to 168, 24 by default. During the grace, webhook-signature carries one entry per valid secret; X-Signature uses the new one.',
    apiKey: true,
    body: { schema: SigningSecretRotate, example: { graceHours: 24 } },
    responses: {
      200: {
        description: 'rotated; the new secret is shown this once',
        json: SigningSecretRotatedResponse,
        example: {
          statusCode: 200,
          message: 'Signing secret rotated; the new one is shown this once',
          data: {
            signingSecret: 'whsec_Jx2m0c7HqP1d8b2ZqkVt4y6uW3rN5sA9',
            signingSecretCreatedAt: '2025-03-15T10:00:00.000Z',
            previousSecretValidUntil: '2025-03-16T10:00:00.000Z',
          },
        },
      },
      400: invalid,
      409: noEndpoint,
      ...common,
    },
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/test',
    operationId: 'sendTestWebhook',
    tag: 'Webhook settings',
    summary: 'Send a signed webhook.test event now and answer its attempt',
    description:
      'One attempt, no retries; its outcome is in the events list. ok is true when the endpoint answered 2xx with {"success": true}.',
    apiKey: true,
    responses: {
      200: {
        description: 'the attempt was made (ok says whether it was acknowledged)',
        json: WebhookTestResponse,
        example: {
          statusCode: 200,
          message: 'Test event delivered',
          data: {
            eventId: '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f',
            url: settings.url,
            ok: true,
            statusCode: 200,
            latencyMs: 84,
            error: null,
          },
        },
      },
      409: noEndpoint,
      ...common,
      503: dispatcherDown,
    },
  },
  {
    method: 'get',
    path: '/api/v1/events',
    operationId: 'listEvents',
    tag: 'Events',
    summary: 'The events taken in for this merchant and mode, newest first',
    description:
      'Every payment event that maps to a webhook type (also kinds the endpoint does not take: those have delivery null) and test events. Keyset pagination: pass nextCursor as cursor.',
    apiKey: true,
    query: {
      limit: '1 to 100, 20 by default',
      cursor: 'nextCursor of the previous page',
      type: 'payment.success, payment.fail, payment.refunded or webhook.test',
      paymentId: 'only the events of this payment (UUID)',
    },
    querySchema: WebhookEventsQuery,
    responses: {
      200: {
        description: 'one page',
        json: WebhookEventsResponse,
        example: {
          statusCode: 200,
          message: 'Events',
          data: { events: [event], nextCursor: null },
        },
      },
      400: invalid,
      ...common,
      503: dispatcherDown,
    },
  },
  {
    method: 'post',
    path: '/api/v1/events/{id}/replay',
    operationId: 'replayEvent',
    tag: 'Events',
    summary: 'Deliver an event again: same event id, a fresh retry schedule',
    description:
      'An event never delivered (its kind was not wanted when it came) is delivered now if the endpoint takes its kind now; otherwise 409.',
    apiKey: true,
    params: { id: 'the event id (UUID)' },
    responses: {
      200: {
        description: 'scheduled',
        json: WebhookEventResponse,
        example: {
          statusCode: 200,
          message: 'Event scheduled for delivery again',
          data: { ...event, delivery: { ...event.delivery, status: 'pending' } },
        },
      },
      404: {
        description: "no such event for the key's merchant and mode",
        errors: ['WEBHOOK404_EVENT_NOT_FOUND'],
      },
      409: {
        description: 'the endpoint does not take this kind of event (or there is no endpoint)',
        errors: ['WEBHOOK409_ENDPOINT_MISSING'],
      },
      ...common,
      503: dispatcherDown,
    },
  },
];
