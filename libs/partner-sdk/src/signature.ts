import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A raw request body as it came off the wire; a string is taken as its UTF-8 bytes. */
export type RawBody = Uint8Array | string;

/**
 * `X-Signature` (ARCHITECTURE §6): hex HMAC-SHA256 keyed with the webhook signing secret
 * (its UTF-8 bytes) over the raw body bytes followed by the timestamp's decimal string.
 */
export function signWebhook(rawBody: RawBody, timestamp: number | string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).update(String(timestamp)).digest('hex');
}

/**
 * One `webhook-signature` entry of the Standard Webhooks scheme: `v1,` and the base64
 * HMAC-SHA256 of `{id}.{timestamp}.{body}`. The key follows that scheme's rule, so its
 * libraries accept the same secret: a secret written `whsec_<base64>` keys with the
 * decoded bytes, any other secret with its UTF-8 bytes.
 */
export function standardWebhookSignature(
  id: string,
  timestamp: number | string,
  rawBody: RawBody,
  secret: string,
): string {
  const digest = createHmac('sha256', standardKey(secret))
    .update(`${id}.${String(timestamp)}.`)
    .update(rawBody)
    .digest('base64');
  return `v1,${digest}`;
}

function standardKey(secret: string): Buffer | string {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : secret;
}

/** Compares two digests in constant time; a length mismatch is not secret (digests are fixed-size). */
export function sameDigest(expected: Buffer, received: Buffer): boolean {
  return expected.length === received.length && timingSafeEqual(expected, received);
}

/**
 * Compares two secrets of any length in constant time: hashing first gives equal-length
 * buffers, so not even the length of the expected secret leaks.
 */
export function sameSecret(expected: string, received: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(expected), digest(received));
}
