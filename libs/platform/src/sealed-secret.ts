import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Reads SECRETS_KEY: 32 bytes, base64. */
export function secretsKey(base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes, base64-encoded');
  return key;
}

/**
 * AES-256-GCM: iv ‖ tag ‖ ciphertext, a new random iv every time. `owner` (for example
 * "merchantId|mode") is bound in as associated data: a sealed secret moved to another
 * row does not open there.
 */
export function sealSecret(plain: string, key: Buffer, owner: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(owner, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

/** Opens what sealSecret sealed for `owner`; throws if tampered with, moved, or under another key. */
export function openSecret(sealed: Buffer, key: Buffer, owner: string): string {
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(owner, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([
    decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}

/** What a partner endpoint's secret is bound to. */
export function partnerSecretOwner(merchantId: string, mode: string): string {
  return `${merchantId}|${mode}`;
}

/** What a partner's webhook signing secret is bound to. */
export function signingSecretOwner(merchantId: string, mode: string): string {
  return `${merchantId}|${mode}|signing`;
}
