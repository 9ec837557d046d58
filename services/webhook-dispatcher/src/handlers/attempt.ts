import { signWebhook, standardWebhookSignature } from '@dzpay/partner-sdk';
import {
  partnerUrl,
  TargetRefusedError,
  type PartnerDirectory,
  type PartnerHttpClient,
  type WebhookTarget,
} from '@dzpay/platform';
import type { ClaimedDelivery } from '../adapters/deliveries/claimed-delivery.ts';
import {
  excerpt,
  judgeAnswer,
  NO_ENDPOINT,
  storable,
  TARGET_REFUSED,
  type AttemptResult,
  type PartnerAnswer,
} from '../domain/attempt.ts';

export interface AttemptDeps {
  directory: PartnerDirectory;
  /** The guarded partner client: every target checked, in both modes. */
  client: PartnerHttpClient;
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
    partner = await deps.directory.webhookTarget(delivery.merchantId, delivery.mode);
  } catch (error) {
    return failed(`partner directory unavailable: ${messageOf(error)}`);
  }
  // An endpoint without a signing secret cannot sign: no webhook goes there yet.
  if (partner === null || partner.signingSecret === null) return failed(NO_ENDPOINT);
  const { signingSecret } = partner;
  let url: URL | null;
  try {
    url = webhookUrlOf(partner);
  } catch (error) {
    return failed(`webhook URL unusable: ${messageOf(error)}`, 'stop');
  }
  if (url === null) return failed(NO_ENDPOINT);

  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const standard = partner.standardSecrets
    .map((secret) => standardWebhookSignature(delivery.eventId, timestamp, delivery.body, secret))
    .join(' ');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...bearerHeader(partner, url),
    'x-timestamp': String(timestamp),
    'x-signature': signWebhook(delivery.body, timestamp, signingSecret),
    'x-event-id': delivery.eventId,
    'x-event-type': delivery.eventType,
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(timestamp),
    ...(standard === '' ? {} : { 'webhook-signature': standard }),
  };

  try {
    const reply = await deps.client.request({
      method: 'POST',
      url,
      headers,
      body: delivery.body,
      timeoutMs: deps.timeoutMs,
      signal: abandon,
    });
    const retryAfter = reply.headers['retry-after'];
    const answer: PartnerAnswer = {
      status: reply.status,
      body: reply.body.toString('utf8'),
      retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    };
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
    // Abandoned for a shutdown: not the partner's doing, so not recorded.
    if (abandon.aborted) return null;
    if (error instanceof TargetRefusedError) return failed(TARGET_REFUSED, 'stop');
    return failed(messageOf(error));
  }
}

/**
 * Where a merchant's webhooks go: the URL it chose, else `{API_URL}/webhooks/platform`;
 * null when it has neither. Throws on a URL that is no http(s) URL.
 */
export function webhookUrlOf(target: Pick<WebhookTarget, 'apiUrl' | 'webhookUrl'>): URL | null {
  if (target.webhookUrl !== null) {
    const url = new URL(target.webhookUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`webhook URL must be http(s), not ${url.protocol}`);
    }
    return url;
  }
  return target.apiUrl === null ? null : partnerUrl(target.apiUrl, 'webhooks', 'platform');
}

/**
 * `Authorization: Bearer <API_SECRET>`, only for a URL on the origin of the partner's
 * operator-set API_URL. A webhook URL that a test key or a dashboard developer chose may
 * be anyone's server: the secret that proves a call comes from dzpay must not be handed
 * to it (it could forge product lookups and webhooks to a partner that checks only the
 * Bearer). Such a URL gets the signatures alone.
 */
function bearerHeader(
  target: Pick<WebhookTarget, 'apiUrl' | 'apiSecret'>,
  url: URL,
): { authorization?: string } {
  if (target.apiUrl === null || target.apiSecret === null) return {};
  return new URL(target.apiUrl).origin === url.origin
    ? { authorization: `Bearer ${target.apiSecret}` }
    : {};
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
