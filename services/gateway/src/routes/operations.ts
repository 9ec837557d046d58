import { AUDIT_OPERATIONS } from './audit/operations.ts';
import { BALANCE_OPERATIONS } from './balance/operations.ts';
import type { OperationSpec } from './shared/operation-spec.ts';
import { PAYMENT_LINKS_OPERATIONS } from './payment-links/operations.ts';
import { PAYER_PAGES } from './payer-pages/operations.ts';
import { PAYMENTS_OPERATIONS } from './payments/operations.ts';
import { QR_CODES_OPERATIONS } from './qr-codes/operations.ts';
import { QR_CONFIG_OPERATIONS } from './qr-config/operations.ts';
import { REPORTS_OPERATIONS } from './reports/operations.ts';
import { STATUS_OPERATIONS } from './status/operations.ts';
import { WEBHOOKS_OPERATIONS } from './webhooks/operations.ts';

/** Every public route of the gateway, by resource: the API's and the payer's pages. */
export const OPERATIONS: readonly OperationSpec[] = [
  ...QR_CONFIG_OPERATIONS,
  ...QR_CODES_OPERATIONS,
  ...STATUS_OPERATIONS,
  ...PAYMENTS_OPERATIONS,
  ...WEBHOOKS_OPERATIONS,
  ...REPORTS_OPERATIONS,
  ...BALANCE_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...PAYMENT_LINKS_OPERATIONS,
  ...PAYER_PAGES,
];

/**
 * The routes the OpenAPI document describes: all but the payer's pages (HTML and
 * redirects a browser follows, which no API client calls).
 */
export const API_OPERATIONS: readonly OperationSpec[] = OPERATIONS.filter(
  (operation) => operation.tag !== 'Payer pages',
);
