import { Rpc, StatusReference, statusRecordOf } from '@dzpay/contracts';
import { AppError, requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { KeyOwnerLookup } from '../../adapters/key-owner-cache.ts';
import type { StatusLookup } from '../../adapters/status-cache.ts';
import { authenticate, authOf } from '../shared/authenticate.ts';

export interface StatusRoutesDeps {
  keys: KeyOwnerLookup;
  /** Records remembered between changes (adapters/status-cache.ts); absent: always ask. */
  statuses?: StatusLookup;
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
  /**
   * The spec's limit: 60 queries a minute per key, counted in Redis for every replica
   * (without Redis, each replica's share in memory: adapters/rate-limit-store.ts).
   */
  statusRateLimitPerMinute: number;
}

const PATH = '/partner/payments/v1/:reference/status';
/** An empty reference leaves a double slash, which no parametric route matches. */
const EMPTY_REFERENCE_PATH = '/partner/payments/v1//status';

/**
 * GET {base_url}/partner/payments/v1/{reference}/status, to the letter of the spec:
 * 401 PARTNER_API401_UNAUTHORIZED, 403 PARTNER_API403_MERCHANT_INACTIVE, 400 VALIDATION400
 * with details.errors, 429 in the bare shape. The query never changes anything.
 */
export function statusRoutes(app: FastifyInstance, deps: StatusRoutesDeps): void {
  if (!app.hasRequestDecorator('auth')) app.decorateRequest('auth', null);
  const options = {
    config: { rateLimit: { max: deps.statusRateLimitPerMinute, timeWindow: 60_000 } },
    // A HEAD route would have a counter of its own: one limit per key means GET only.
    exposeHeadRoute: false,
    // After the rate limiter (onRequest): guessing keys is limited too.
    preParsing: async (request: FastifyRequest) => {
      const outcome = await authenticate(request, deps.keys, 'PARTNER_API401_UNAUTHORIZED');
      if (!outcome.merchant.active) {
        throw new AppError('PARTNER_API403_MERCHANT_INACTIVE', 'merchant account is not active', {
          details: { merchantId: outcome.merchant.id },
        });
      }
      request.auth = outcome;
    },
  };

  app.get<{ Params: { reference: string } }>(PATH, options, async (request) => {
    const reference = checkedReference(request.params.reference);
    const { scope } = authOf(request);
    const ask = () =>
      requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.statusReferenceGet,
        { ...scope, reference },
        { timeoutMs: deps.serviceTimeoutMs },
      );
    // Status's reply carries the revisions the gateway's memory compares; partners get
    // the spec's record only.
    const data = deps.statuses
      ? await deps.statuses.statusOf({ ...scope, reference }, ask)
      : statusRecordOf(await ask());
    return { message: 'Payment status retrieved', statusCode: 200, data };
  });

  app.get(EMPTY_REFERENCE_PATH, options, () => {
    checkedReference('');
  });
}

/** The reference rules, answered as the spec's VALIDATION400 with details.errors. */
function checkedReference(reference: string): string {
  const parsed = StatusReference.safeParse(reference);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION400', 'Validation failed', {
    details: {
      errors: [{ field: 'reference', errors: parsed.error.issues.map((issue) => issue.message) }],
    },
  });
}
