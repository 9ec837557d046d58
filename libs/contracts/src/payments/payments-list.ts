import { z } from 'zod';
import { DailyReportQuery } from '../reports.ts';
import { MerchantScope } from '../scope.ts';
import { CheckoutStatus, PaymentView } from './payment.ts';

/**
 * A merchant's payments listed a page at a time, or exported whole, by the same filters:
 * the query strings of `GET /api/v1/payments` and its export, and the NATS request
 * behind them.
 */

/** Most payments one page of `GET /api/v1/payments` holds (and the default). */
export const PAYMENTS_PAGE_MAX = 100;
export const PAYMENTS_PAGE_DEFAULT = 20;

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, { error: `${field} should not be empty` })
    .max(max, { error: `${field} must be at most ${max} characters` });

/** An ISO 8601 instant with its offset (`2026-11-21T10:00:00Z`) or a UTC day (`2026-11-21`). */
const instant = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .refine(
      (value) =>
        (z.iso.datetime({ offset: true }).safeParse(value).success ||
          z.iso.date().safeParse(value).success) &&
        !Number.isNaN(Date.parse(value)),
      { error: `${field} must be an ISO 8601 date-time with offset, or a date (YYYY-MM-DD)` },
    )
    .transform((value) => new Date(value).toISOString());

const filterFields = {
  status: z
    .enum(CheckoutStatus.options, {
      error: `status must be one of ${CheckoutStatus.options.join(', ')}`,
    })
    .optional(),
  channel: z
    .enum(['CHECKOUT', 'AGENCY'], { error: 'channel must be CHECKOUT or AGENCY' })
    .optional(),
  reference: text('reference', 255).optional(),
  referencePrefix: text('referencePrefix', 255).optional(),
  /** Inclusive. */
  createdFrom: instant('createdFrom').optional(),
  /** Exclusive: `createdFrom=2026-11-01&createdTo=2026-12-01` is November. */
  createdTo: instant('createdTo').optional(),
  metadataKey: text('metadataKey', 255).optional(),
  /** Compared as a string: `metadata @> {"<key>": "<value>"}`. */
  metadataValue: z
    .string({ error: 'metadataValue must be a string' })
    .max(1000, { error: 'metadataValue must be at most 1000 characters' })
    .optional(),
  /** Only the payments made through this payment link. */
  paymentLinkId: z.uuid({ error: 'paymentLinkId must be a payment link id (a UUID)' }).optional(),
};

type FilterShape = {
  reference?: string | undefined;
  referencePrefix?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  metadataKey?: string | undefined;
  metadataValue?: string | undefined;
};

/** Rules across fields, each naming the field at fault. */
function crossChecks(filter: FilterShape, ctx: z.RefinementCtx): void {
  const issue = (field: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [field], message });
  if (filter.reference !== undefined && filter.referencePrefix !== undefined)
    issue('referencePrefix', 'give reference or referencePrefix, not both');
  if ((filter.metadataKey === undefined) !== (filter.metadataValue === undefined))
    issue(
      filter.metadataKey === undefined ? 'metadataKey' : 'metadataValue',
      'metadataKey and metadataValue go together',
    );
  if (filter.createdFrom && filter.createdTo && filter.createdFrom > filter.createdTo)
    issue('createdTo', 'createdTo must not be before createdFrom');
}

/** The filters of the list and of the export, as the query string gives them. */
export const PaymentsFilterQuery = z.strictObject(filterFields).superRefine(crossChecks);
export type PaymentsFilterQuery = z.input<typeof PaymentsFilterQuery>;
export type PaymentsFilter = z.output<typeof PaymentsFilterQuery>;

/**
 * How an export is written. `standard` (the default) is for programs: RFC 4180 with
 * commas, decimal points and UTC timestamps. `spreadsheet` is for an accountant's Excel
 * or LibreOffice in French or Arabic: a byte-order mark (so UTF-8 is read as such),
 * semicolons, decimal commas and Algiers times with their offset.
 */
export const CsvDialect = z.enum(['standard', 'spreadsheet'], {
  error: 'dialect must be standard or spreadsheet',
});
export type CsvDialect = z.infer<typeof CsvDialect>;

/**
 * What an export is: `csv` (the default, in its dialect) or `xlsx`, an Excel workbook
 * whose amounts are numbers and whose times are dates (the dialect does not apply).
 */
const ExportFormat = z.enum(['csv', 'xlsx'], { error: 'format must be csv or xlsx' });

/** `GET /api/v1/payments/export`: the list's filters, the format and the CSV dialect. */
export const PaymentsExportQuery = z
  .strictObject({
    ...filterFields,
    format: ExportFormat.optional(),
    dialect: CsvDialect.optional(),
  })
  .superRefine(crossChecks);
export type PaymentsExportQuery = z.input<typeof PaymentsExportQuery>;

/**
 * `GET /api/v1/reports/daily/export`: the report's days, and the file's format and CSV
 * dialect as the payments export takes them.
 */
export const DailyReportExportQuery = z.strictObject({
  from: DailyReportQuery.shape.from,
  to: DailyReportQuery.shape.to,
  format: ExportFormat.optional(),
  dialect: CsvDialect.optional(),
});

/** `GET /api/v1/payments`: filters, a page size and the cursor of the previous page. */
export const PaymentsListQuery = z
  .strictObject({
    ...filterFields,
    limit: z.coerce
      .number({ error: 'limit must be an integer' })
      .int({ error: 'limit must be an integer' })
      .min(1, { error: `limit must be between 1 and ${PAYMENTS_PAGE_MAX}` })
      .max(PAYMENTS_PAGE_MAX, { error: `limit must be between 1 and ${PAYMENTS_PAGE_MAX}` })
      .optional(),
    cursor: text('cursor', 200).optional(),
  })
  .superRefine(crossChecks);
export type PaymentsListQuery = z.input<typeof PaymentsListQuery>;

/** A payment in the list: the payment's view and its channel. */
export const PaymentListItem = PaymentView.extend({ channel: z.enum(['CHECKOUT', 'AGENCY']) });
export type PaymentListItem = z.infer<typeof PaymentListItem>;

export const PaymentsListRequest = MerchantScope.extend({
  limit: z.int().min(1).max(PAYMENTS_PAGE_MAX),
  cursor: z.string().optional(),
  status: CheckoutStatus.optional(),
  channel: z.enum(['CHECKOUT', 'AGENCY']).optional(),
  reference: z.string().optional(),
  referencePrefix: z.string().optional(),
  createdFrom: z.iso.datetime().optional(),
  createdTo: z.iso.datetime().optional(),
  metadataKey: z.string().optional(),
  metadataValue: z.string().optional(),
  paymentLinkId: z.uuid().optional(),
});
export type PaymentsListRequest = z.infer<typeof PaymentsListRequest>;

export const PaymentsPage = z.object({
  payments: z.array(PaymentListItem),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type PaymentsPage = z.infer<typeof PaymentsPage>;
