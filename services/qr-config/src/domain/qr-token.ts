import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A new QR token: 20 Crockford base32 characters (100 bits), readable aloud and safe in
 * a URL path without encoding.
 */
export function newQrToken(random: (size: number) => Buffer = randomBytes): string {
  const bytes = random(20);
  let token = 'QR';
  for (const byte of bytes) token += ALPHABET[byte % 32];
  return token;
}
