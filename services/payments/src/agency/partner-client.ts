import { setTimeout as sleep } from 'node:timers/promises';
import { PartnerError, PartnerProduct, type MerchantScope } from '@dzpay/contracts';
import {
  AppError,
  partnerUrl,
  TargetRefusedError,
  type Logger,
  type PartnerDirectory,
  type PartnerEndpoint,
  type PartnerHttpClient,
} from '@dzpay/platform';
import { canonicalReference, requestedReference } from './product-reference.ts';

/** With the card network's 6 s, inside the gateway's 12 s wait for payments. */
const LOOKUP_TIMEOUT_MS = 4_000;

/**
 * The gateway asks only about merchants whose endpoint its database has; the directory
 * follows the database by one run of the gateway's publisher. An entry not there yet is
 * read again for this long before the answer is 'no endpoint'.
 */
const AWAIT_ENTRY_MS = 2_000;
const AWAIT_STEP_MS = 100;

/**
 * GET {API_URL}/{reference} on the merchant's partner server (ARCHITECTURE §6), with the
 * server and its secret read from the partner directory and sent through the guarded
 * partner client. Every way it can go wrong is one clear code; none of them takes a lock.
 * A refused target is answered like a partner that is down: the page tells nobody what
 * listens behind dzpay.
 */
export function productLookup(deps: {
  directory: PartnerDirectory;
  client: PartnerHttpClient;
  logger: Logger;
  awaitEntryMs?: number;
}) {
  async function endpointOf(scope: MerchantScope): Promise<PartnerEndpoint> {
    const until = Date.now() + (deps.awaitEntryMs ?? AWAIT_ENTRY_MS);
    for (;;) {
      const endpoint = await deps.directory
        .lookup(scope.merchantId, scope.mode)
        .catch((error: unknown) => {
          throw new AppError('SERVICE503_UNAVAILABLE', 'the partner directory cannot be read', {
            cause: error,
          });
        });
      if (endpoint) return endpoint;
      if (Date.now() >= until) {
        throw new AppError(
          'CHECKOUT404_NOT_FOUND',
          'the merchant has no partner server in this mode',
        );
      }
      await sleep(AWAIT_STEP_MS);
    }
  }

  /**
   * The product the payer asked for, under the reference the partner sells it by: its
   * answer's `reference` (see domain/product-reference.ts), which names the payment and
   * keys its sale and lock.
   */
  return async function lookupProduct(
    scope: MerchantScope,
    typed: string,
  ): Promise<PartnerProduct> {
    const reference = requestedReference(typed);
    if (reference === null) throw notFound(typed);
    const partner = await endpointOf(scope);
    let answer;
    try {
      answer = await deps.client.request({
        method: 'GET',
        url: partnerUrl(partner.apiUrl, reference),
        headers: {
          authorization: `Bearer ${partner.apiSecret}`,
          'x-timestamp': String(Math.floor(Date.now() / 1000)),
          accept: 'application/json',
        },
        timeoutMs: LOOKUP_TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof TargetRefusedError) {
        deps.logger.warn(
          { merchantId: scope.merchantId, mode: scope.mode, host: error.host },
          'product lookup refused: the partner API_URL is not a public address',
        );
      }
      throw unavailable('the partner did not answer', error);
    }
    if (answer.truncated) throw unavailable('the partner answered more than a product');
    const body = parseJson(answer.body);
    if (answer.status >= 200 && answer.status < 300) {
      const product = PartnerProduct.safeParse(body);
      if (!product.success)
        throw unavailable('the partner answered something that is not a product');
      const canonical = canonicalReference(reference, product.data.reference);
      if (!canonical.ok) {
        deps.logger.warn(
          {
            merchantId: scope.merchantId,
            mode: scope.mode,
            asked: reference,
            why: canonical.error,
          },
          'product lookup refused: the partner answered for another reference',
        );
        throw unavailable('the partner answered for another product');
      }
      return { ...product.data, reference: canonical.value };
    }
    const partnerError = PartnerError.safeParse(body);
    const code = partnerError.success ? partnerError.data.error : null;
    if (answer.status === 404 || code === 'NOT_FOUND') throw notFound(reference);
    if (answer.status === 409 || code === 'ALREADY_PAID') {
      throw new AppError(
        'PARTNER409_ALREADY_PAID',
        'the partner says this reference is already paid',
        { details: { reference } },
      );
    }
    throw unavailable(`the partner answered ${answer.status}`);
  };
}

export type LookupProduct = ReturnType<typeof productLookup>;

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function notFound(reference: string): AppError {
  return new AppError(
    'PARTNER404_PRODUCT_NOT_FOUND',
    'the partner knows no product with this reference',
    { details: { reference } },
  );
}

function unavailable(message: string, cause?: unknown): AppError {
  return new AppError('PARTNER503_UNAVAILABLE', message, { cause });
}
