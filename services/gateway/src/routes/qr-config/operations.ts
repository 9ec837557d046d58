import { SetQrConfigBody, SetQrConfigResponse, UnsetQrConfigBody } from '@dzpay/contracts';
import { examples } from '../shared/openapi-examples.ts';
import { internal, rateLimited, unauthorized, unavailable } from '../shared/common-responses.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';

/** The spec's QR configuration endpoints, called by partners. */
export const QR_CONFIG_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'post',
    path: '/set-qr-config',
    operationId: 'setQrConfig',
    tag: 'QR configuration',
    summary: 'Attach DZD amounts to a static QR code',
    description:
      'Replaces the whole configuration of the QR code. Amounts are DZD with at most two decimals; one amount is shown directly, several let the payer choose.',
    apiKey: true,
    body: { schema: SetQrConfigBody, example: examples.setQrConfig },
    responses: {
      200: {
        description: 'configuration set',
        json: SetQrConfigResponse,
        example: { statusCode: 200, message: 'QR configuration set successfully' },
      },
      400: {
        description: 'the body fails validation: one message per rule',
        shape: 'validation-list',
      },
      401: unauthorized,
      404: {
        description: 'no QR code with this token for the key',
        errors: ['QR_CODE404_NOT_FOUND'],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('qr-config'),
    },
  },
  {
    method: 'post',
    path: '/un-set-qr-config',
    operationId: 'unsetQrConfig',
    tag: 'QR configuration',
    summary: 'Remove the amounts of a static QR code',
    apiKey: true,
    body: { schema: UnsetQrConfigBody, example: examples.unsetQrConfig },
    responses: {
      204: { description: 'configuration removed (also when there was none)', empty: true },
      400: { description: 'the body fails validation', shape: 'validation-list' },
      401: unauthorized,
      404: {
        description: 'no QR code with this token for the key',
        errors: ['QR_CODE404_NOT_FOUND'],
      },
      429: rateLimited,
      500: internal,
      503: unavailable('qr-config'),
    },
  },
];
