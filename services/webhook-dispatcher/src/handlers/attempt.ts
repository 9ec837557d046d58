import { signWebhook, standardWebhookSignature } from '@dzpay/partner-sdk';
import type { ClaimedDelivery } from '../adapters/deliveries-repository.ts';
import {
  AbandonedError,
  TargetRefusedError,
  type PartnerClient,
} from '../adapters/partner-client.ts';
import type { PartnerDirectory } from '../adapters/partner-directory.ts';
import {
  excerpt,
  judgeAnswer,
  NO_ENDPOINT,
  storable,
  TARGET_REFUSED,
  type AttemptResult,
} from '../domain/attempt.ts';

export interface AttemptDeps {
  directory: PartnerDirectory;
  client: PartnerClient;
  timeoutMs: number;
  clock: () => Date;
}

/**
 * Makes one attempt of a delivery: looks the partner up, signs the stored body with a
 * fresh timestamp (with the SDK's own functions, so dispatcher and SDK cannot disagree),
 * POSTs it and judges the answer. Resolves to null when the attempt was abandoned for a
 * shutdown (not the partner's fault, so not recorded); every other outcome is a result.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  delivery: ClaimedDelivery,
  abandon: AbortSignal,
): Promise<AttemptResult | null> {
  const startedAt = deps.clock();
  const elapsed = () => Math.max(0, deps.clock().getTime() - startedAt.getTime());
  const failed = (error: string, kind: 'retry' | 'stop' = 'retry'): AttemptResult => ({
    startedAt,
    latencyMs: elapsed(),
    statusCode: null,
    responseExcerpt: '',
    error,
    verdict: kind === 'stop' ? { kind: 'stop' } : { kind: 'retry', retryAfterMs: null },
  });

  let partner;
  try {
    partner = await deps.directory.lookup(delivery.merchantId, delivery.mode);
  } catch (error) {
    return failed(`partner directory unavailable: ${messageOf(error)}`);
  }
  if (partner === null) return failed(NO_ENDPOINT);

  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const standard = partner.standardSecrets
    .map((secret) => standardWebhookSignature(delivery.eventId, timestamp, delivery.body, secret))
    .join(' ');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${partner.apiSecret}`,
    'x-timestamp': String(timestamp),
    'x-signature': signWebhook(delivery.body, timestamp, partner.signingSecret),
    'x-event-id': delivery.eventId,
    'x-event-type': delivery.eventType,
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(timestamp),
    ...(standard === '' ? {} : { 'webhook-signature': standard }),
  };

  try {
    const answer = await deps.client.post({
      url: `${partner.apiUrl.replace(/\/+$/, '')}/webhooks/platform`,
      headers,
      body: delivery.body,
      timeoutMs: deps.timeoutMs,
      guard: delivery.mode === 'live',
      abandon,
    });
    const { verdict, error } = judgeAnswer(answer, deps.clock());
    return {
      startedAt,
      latencyMs: elapsed(),
      statusCode: answer.status,
      responseExcerpt: excerpt(answer.body),
      error,
      verdict,
    };
  } catch (error) {
    if (error instanceof AbandonedError) return null;
    if (error instanceof TargetRefusedError) return failed(TARGET_REFUSED, 'stop');
    return failed(messageOf(error));
  }
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const message =
    typeof code === 'string' && !error.message.includes(code)
      ? `${code}: ${error.message}`
      : error.message;
  return storable(message).slice(0, 500);
}
