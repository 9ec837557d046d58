import { z } from 'zod';
import { WebhookEvent, WebhookTestEvent } from './event.ts';
import { checkTimestamp, header, type IncomingHeaders } from './headers.ts';
import { sameDigest, signWebhook, standardWebhookSignature, type RawBody } from './signature.ts';

/** One signing secret, or several while a secret is being rotated (any one may match). */
export type SigningSecrets =
  | { signingSecret: string; signingSecrets?: never }
  | { signingSecrets: readonly string[]; signingSecret?: never };

export type VerifyWebhookOptions = SigningSecrets & {
  /** The request body exactly as received: verify before any JSON parsing. */
  rawBody: RawBody;
  headers: IncomingHeaders;
  /** How far `X-Timestamp` may be from now, either way. */
  toleranceSeconds?: number;
  /** The clock, for tests. */
  now?: Date;
};

export type WebhookFailure =
  'missing_headers' | 'stale_timestamp' | 'bad_signature' | 'malformed_body';

export type VerifyWebhookResult =
  | { ok: true; event: WebhookEvent | WebhookTestEvent }
  | { ok: false; reason: WebhookFailure; message: string };

type Check = 'ok' | Exclude<WebhookFailure, 'malformed_body'>;

const messages: Record<WebhookFailure, string> = {
  missing_headers:
    'X-Signature and X-Timestamp (or the webhook-* headers) are required, with the timestamp in unix seconds',
  stale_timestamp: 'the timestamp is too far from now',
  bad_signature: 'the signature does not match',
  malformed_body: 'the body is not a dzpay event',
};

/**
 * Checks a webhook request from its raw body and headers, and parses the event. Accepts
 * dzpay's own headers (`X-Signature`, `X-Timestamp`) and the Standard Webhooks ones
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`); dzpay sends both, and either
 * one verifying with any of the secrets is enough. Never throws on what a request holds.
 */
export function verifyWebhook(options: VerifyWebhookOptions): VerifyWebhookResult {
  const secrets = signingSecretsOf(options);
  const { rawBody, headers, toleranceSeconds = 300, now = new Date() } = options;
  const signature = header(headers, 'x-signature');
  const timestamp = header(headers, 'x-timestamp');
  const id = header(headers, 'webhook-id');
  const standardTimestamp = header(headers, 'webhook-timestamp');
  const standardSignatures = header(headers, 'webhook-signature');

  let check: Check | undefined;
  if (signature !== undefined && timestamp !== undefined) {
    check = checkTimestampOf(checkTimestamp(timestamp, now, toleranceSeconds));
    if (check === 'ok') check = dzpaySignatureMatches(rawBody, timestamp, signature, secrets);
  }
  if (
    check !== 'ok' &&
    id !== undefined &&
    standardTimestamp !== undefined &&
    standardSignatures !== undefined
  ) {
    let standard = checkTimestampOf(checkTimestamp(standardTimestamp, now, toleranceSeconds));
    if (standard === 'ok') {
      standard = standardSignatureMatches(
        id,
        standardTimestamp,
        rawBody,
        standardSignatures,
        secrets,
      );
    }
    // The first scheme's reason stands unless the second one passes.
    if (check === undefined || standard === 'ok') check = standard;
  }
  if (check === undefined) return failure('missing_headers');
  if (check !== 'ok') return failure(check);
  return parseWebhookEvent(rawBody);
}

function checkTimestampOf(result: ReturnType<typeof checkTimestamp>): Check {
  return result === 'ok' ? 'ok' : result === 'stale' ? 'stale_timestamp' : 'missing_headers';
}

function dzpaySignatureMatches(
  rawBody: RawBody,
  timestamp: string,
  received: string,
  secrets: readonly string[],
): Check {
  if (!/^[0-9a-f]{64}$/i.test(received)) return 'bad_signature';
  const receivedDigest = Buffer.from(received, 'hex');
  const matches = secrets.some((secret) =>
    sameDigest(Buffer.from(signWebhook(rawBody, timestamp, secret), 'hex'), receivedDigest),
  );
  return matches ? 'ok' : 'bad_signature';
}

function standardSignatureMatches(
  id: string,
  timestamp: string,
  rawBody: RawBody,
  received: string,
  secrets: readonly string[],
): Check {
  // Several space-separated entries during a rotation; versions other than v1 are skipped.
  const digests = received
    .split(' ')
    .filter((entry) => /^v1,[A-Za-z0-9+/]{43}=$/.test(entry))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const matches = secrets.some((secret) => {
    const expected = Buffer.from(
      standardWebhookSignature(id, timestamp, rawBody, secret).slice(3),
      'base64',
    );
    return digests.some((digest) => sameDigest(expected, digest));
  });
  return matches ? 'ok' : 'bad_signature';
}

/** Parses an already verified raw body into a typed event. */
function parseWebhookEvent(rawBody: RawBody): VerifyWebhookResult {
  let json: unknown;
  try {
    const text =
      typeof rawBody === 'string'
        ? rawBody
        : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
    json = JSON.parse(text);
  } catch {
    return failure('malformed_body', 'the body is not JSON');
  }
  const test = WebhookTestEvent.safeParse(json);
  if (test.success) return { ok: true, event: test.data };
  const parsed = WebhookEvent.safeParse(json);
  if (!parsed.success) {
    return failure(
      'malformed_body',
      `the body is not a dzpay event: ${z.prettifyError(parsed.error)}`,
    );
  }
  return { ok: true, event: parsed.data };
}

function failure(reason: WebhookFailure, message = messages[reason]): VerifyWebhookResult {
  return { ok: false, reason, message };
}

/** The configured secrets; an empty one would let anyone sign, so it is a setup error. */
export function signingSecretsOf(options: SigningSecrets): readonly string[] {
  const secrets = options.signingSecrets ?? [options.signingSecret];
  if (
    secrets.length === 0 ||
    secrets.some((secret) => typeof secret !== 'string' || secret === '')
  ) {
    throw new TypeError('dzpay partner SDK: signingSecret(s) must be non-empty strings');
  }
  // 'whsec_' alone, or a truncated copy, decodes to a key anyone can sign with.
  const short = secrets.some(
    (secret) =>
      secret.startsWith('whsec_') &&
      Buffer.from(secret.slice(6), 'base64').length < MIN_WHSEC_KEY_BYTES,
  );
  if (short) {
    throw new TypeError(
      `dzpay partner SDK: a whsec_ signing secret must decode to at least ${MIN_WHSEC_KEY_BYTES} bytes (dzpay issues 32): was all of it copied?`,
    );
  }
  return secrets;
}

/** The shortest key a `whsec_` secret may decode to; dzpay issues 32 bytes. */
const MIN_WHSEC_KEY_BYTES = 16;
