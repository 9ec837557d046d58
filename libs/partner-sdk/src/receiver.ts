import { WebhookEventTypes, type WebhookEvent, type WebhookTestEvent } from './event.ts';
import type { IncomingHeaders } from './headers.ts';
import {
  errorResponse,
  partnerError,
  type PartnerErrorBody,
  type PartnerResponse,
} from './product.ts';
import type { RawBody } from './signature.ts';
import { verifyWebhook, type SigningSecrets } from './verify.ts';

/** What both webhook receivers (the Fastify plugin and the Node handler) are given. */
export type WebhookReceiverOptions = SigningSecrets & {
  /**
   * Called once per verified request, awaited before dzpay gets its 200. dzpay waits 15 s
   * and retries the same event id on anything else, so store and return quickly, and
   * dedup on `event.id`.
   */
  onEvent: (event: WebhookEvent) => unknown;
  /**
   * Called for a verified test event (`webhook.test`); without it a test event is
   * answered 200 and goes no further, which is what the sender wants to see.
   */
  onTest?: (event: WebhookTestEvent) => unknown;
  /** How far the timestamp may be from now, either way. */
  toleranceSeconds?: number;
  /** Told when `onEvent` throws (dzpay is answered 503 and will retry). */
  onError?: (error: unknown, event: WebhookEvent) => void;
};

export type WebhookAnswer = PartnerResponse<{ success: true } | PartnerErrorBody>;

/** Verifies one webhook request, hands the event over, and says what to answer. */
export async function receiveWebhook(
  options: WebhookReceiverOptions,
  rawBody: RawBody,
  headers: IncomingHeaders,
): Promise<WebhookAnswer> {
  const verified = verifyWebhook({ ...options, rawBody, headers });
  if (!verified.ok) {
    return verified.reason === 'malformed_body'
      ? errorResponse(400, 'BAD_REQUEST', verified.message)
      : errorResponse(401, 'UNAUTHORIZED', verified.message);
  }
  const { event } = verified;
  if (event.type === WebhookEventTypes.test) {
    await options.onTest?.(event);
    return { status: 200, body: { success: true } };
  }
  try {
    await options.onEvent(event);
  } catch (error) {
    options.onError?.(error, event);
    return partnerError('SERVICE_UNAVAILABLE', 'the event could not be processed; send it again');
  }
  return { status: 200, body: { success: true } };
}
