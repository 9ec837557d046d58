import { StatusResponse } from '@dzpay/contracts';
import { examples } from '../shared/openapi-examples.ts';
import { internal, unavailable } from '../shared/common-responses.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';

/** The spec's payment status endpoint, read by partners. */
export const STATUS_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/partner/payments/v1/{reference}/status',
    operationId: 'getReferenceStatus',
    tag: 'Status',
    summary: 'Whether a product reference is locked or paid',
    description:
      'Read-only: for reconciliation when a webhook was missed, and before releasing a product.',
    apiKey: true,
    params: { reference: 'the product reference, 1 to 255 characters, URL-encoded' },
    responses: {
      200: {
        description: 'the reference and its stage',
        json: StatusResponse,
        example: examples.status,
      },
      400: {
        description: 'the reference is empty or longer than 255 characters',
        errors: ['VALIDATION400'],
      },
      401: {
        description: 'the key is absent, empty, sent twice, unknown, or its merchant is gone',
        errors: ['PARTNER_API401_UNAUTHORIZED'],
      },
      403: {
        description: "the key's merchant account is not active",
        errors: ['PARTNER_API403_MERCHANT_INACTIVE'],
      },
      429: {
        description: 'more than STATUS_RATE_LIMIT_PER_MINUTE requests a minute; safe to retry',
        shape: 'rate-limit',
        limit: 'status',
      },
      500: internal,
      503: unavailable('status'),
    },
  },
];
