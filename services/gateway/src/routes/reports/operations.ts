import { DailyReportExportQuery, DailyReportQuery, DailyReportResponse } from '@dzpay/contracts';
import { API_KEY_RESPONSES, invalidDayRange, unavailable } from '../shared/common-responses.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';

const figures = {
  successCount: 3,
  successAmount: 4515,
  successAmountCentimes: 451_500,
  refundCount: 1,
  refundAmount: 1505,
  refundAmountCentimes: 150_500,
  feeAmount: 15,
  feeAmountCentimes: 1_500,
  net: 2995,
  netCentimes: 299_500,
};
const day = { date: '2025-03-14', ...figures };
const empty = {
  successCount: 0,
  successAmount: 0,
  successAmountCentimes: 0,
  refundCount: 0,
  refundAmount: 0,
  refundAmountCentimes: 0,
  feeAmount: 0,
  feeAmountCentimes: 0,
  net: 0,
  netCentimes: 0,
};

/** The daily report of the merchant API, as the OpenAPI document describes it. */
export const REPORTS_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/reports/daily',
    operationId: 'dailyReport',
    tag: 'Reports',
    summary: 'Per day: successes, refunds, fees and net, for the key’s merchant and mode',
    description:
      'Days are calendar days in Algiers (Africa/Algiers, UTC+01:00, no daylight saving). Every day of from..to (both included) is listed, days without activity as zeros. Successes count on the day they were paid (successAmount: what cards were charged, fee included), refunds on the day the card network confirmed them, fees are dzpay’s on those successes; net = successAmount − feeAmount − refundAmount. Amounts in DZD (at most two decimals) and in centimes.',
    apiKey: true,
    query: {
      from: 'first day, YYYY-MM-DD (default: 29 days before to)',
      to: 'last day, YYYY-MM-DD (default: today in Algiers); at most 366 days from from',
    },
    querySchema: DailyReportQuery,
    responses: {
      200: {
        description: 'the report',
        json: DailyReportResponse,
        example: {
          statusCode: 200,
          message: 'Daily report',
          data: {
            timeZone: 'Africa/Algiers',
            utcOffset: '+01:00',
            currency: 'DZD',
            from: '2025-03-14',
            to: '2025-03-15',
            days: [day, { date: '2025-03-15', ...empty }],
            totals: figures,
          },
        },
      },
      400: invalidDayRange,
      ...API_KEY_RESPONSES,
      503: unavailable('payments'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/reports/daily/export',
    operationId: 'exportDailyReport',
    tag: 'Reports',
    summary: 'The daily report as a file an accountant opens: CSV or XLSX',
    description:
      "The same days and figures as GET /api/v1/reports/daily (Algiers days, both included), a row per day, days without activity as zeros, then a `total` row. Columns: day, success_count, success (DZD), refund_count, refunds (DZD), fees (DZD), net (DZD). CSV: `standard` (default: commas, decimal points) or `spreadsheet` for an accountant's French or Arabic Excel (a UTF-8 byte-order mark, semicolons, decimal commas). XLSX: counts and DZD amounts are numbers (two decimals shown), so a spreadsheet sums them.",
    apiKey: true,
    query: {
      from: 'first day, YYYY-MM-DD (default: 29 days before to)',
      to: 'last day, YYYY-MM-DD (default: today in Algiers); at most 366 days from from',
      format: '`csv` (default) or `xlsx`',
      dialect: 'for CSV: `standard` (default) or `spreadsheet`',
    },
    querySchema: DailyReportExportQuery,
    responses: {
      200: {
        description: 'the file (attachment `report-<mode>-<from>-<to>.csv` or `.xlsx`)',
        media: ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      },
      400: {
        description:
          'from or to is not a YYYY-MM-DD day, to is before from, the range is over 366 days, or format or dialect is not one of theirs: details.failures names the field',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      ...API_KEY_RESPONSES,
      503: unavailable('payments'),
    },
  },
];
