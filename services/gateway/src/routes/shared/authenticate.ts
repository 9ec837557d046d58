import type { ErrorCode, MerchantScope } from '@dzpay/contracts';
import { AppError, isDatabaseUnavailable } from '@dzpay/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Merchant, hashApiKey, modeOfApiKey, sameHash } from '@dzpay/accounts';
import type { KeyOwnerLookup } from '../../adapters/key-owner-cache.ts';

/** The one message of every refused key, whatever the reason. */
const INVALID_KEY = 'missing or invalid API key';

export interface AuthOutcome {
  scope: MerchantScope;
  merchant: Merchant;
  /** The API key that authenticated the request (its id, never the key). */
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request's API key belongs to; set before the body is parsed. */
    auth: AuthOutcome | null;
  }
}

/**
 * Finds the merchant behind the request's x-api-key. Absent, empty, repeated,
 * malformed, unknown and revoked keys, and keys whose merchant is gone, all end in
 * the same 401 with the given code: the answer never tells which case it was.
 */
export async function authenticate(
  request: FastifyRequest,
  keys: KeyOwnerLookup,
  unauthorized: ErrorCode,
): Promise<AuthOutcome> {
  const values = request.raw.headersDistinct['x-api-key'];
  const key = values?.length === 1 ? values[0]!.trim() : '';
  const deny = () => new AppError(unauthorized, INVALID_KEY);
  if (!modeOfApiKey(key)) throw deny();

  const hash = hashApiKey(key);
  const owner = await keys.findKeyOwner(hash).catch((error: unknown) => {
    if (!isDatabaseUnavailable(error)) throw error;
    throw new AppError('SERVICE503_UNAVAILABLE', 'service temporarily unavailable, retry later', {
      details: { reason: 'database' },
      cause: error,
    });
  });
  if (!owner || !sameHash(owner.keyHash, hash)) throw deny();
  keys.used?.(owner.keyId);
  return {
    scope: { merchantId: owner.merchant.id, mode: owner.mode },
    merchant: owner.merchant,
    keyId: owner.keyId,
  };
}

/**
 * A preParsing hook that admits only requests with a key of an active merchant. It
 * runs after the rate limiter (onRequest), so key guessing is limited too, and before
 * the body is parsed, so a caller without a valid key gets its 401 even when its body
 * is malformed. The QR and payments APIs know no 403: an inactive merchant's key no
 * longer grants access, with the very 401 a made-up key gets, so the answer never
 * confirms that a leaked or guessed key is real. (The status endpoint's 403 is the
 * spec's own rule: routes/status/routes.ts.)
 */
export function requireApiKey(app: FastifyInstance, keys: KeyOwnerLookup) {
  if (!app.hasRequestDecorator('auth')) app.decorateRequest('auth', null);
  return async (request: FastifyRequest): Promise<void> => {
    const outcome = await authenticate(request, keys, 'AUTH401_UNAUTHORIZED_ACCESS');
    if (!outcome.merchant.active) {
      request.log.info({ merchantId: outcome.merchant.id }, 'key of an inactive merchant refused');
      throw new AppError('AUTH401_UNAUTHORIZED_ACCESS', INVALID_KEY);
    }
    request.auth = outcome;
  };
}

/** The outcome of requireApiKey, for handlers of routes that use it. */
export function authOf(request: FastifyRequest): AuthOutcome {
  if (!request.auth) throw new Error('route without requireApiKey');
  return request.auth;
}
