import type { ErrorCode, MerchantScope } from '@dzpay/contracts';
import { AppError, isDatabaseUnavailable } from '@dzpay/platform';
import type { FastifyRequest } from 'fastify';
import type { KeyOwnerLookup } from '../adapters/key-owner-cache.ts';
import { hashApiKey, modeOfApiKey, sameHash } from '../domain/api-key.ts';

export interface AuthOutcome {
  scope: MerchantScope;
  merchantActive: boolean;
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
  const deny = () => new AppError(unauthorized, 'missing or invalid API key');
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
  return {
    scope: { merchantId: owner.merchantId, mode: owner.mode },
    merchantActive: owner.merchantActive,
  };
}
