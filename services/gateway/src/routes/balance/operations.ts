import {
  BalanceQuery,
  BalanceResponse,
  PayoutsResponse,
  StatementQuery,
  PayoutsQuery,
} from '@dzpay/contracts';
import {
  API_KEY_RESPONSES,
  invalidDayRange,
  PAGE_QUERY,
  unavailable,
} from '../shared/common-responses.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';

const figures = {
  capturedCount: 2,
  captured: 3030.5,
  capturedCentimes: 303_050,
  fees: 100,
  feesCentimes: 10_000,
  refundCount: 1,
  refunds: 500,
  refundsCentimes: 50_000,
  net: 2430.5,
  netCentimes: 243_050,
  payoutCount: 1,
  paidOut: 2000,
  paidOutCentimes: 200_000,
  balance: 430.5,
  balanceCentimes: 43_050,
};
const quiet = {
  capturedCount: 0,
  captured: 0,
  capturedCentimes: 0,
  fees: 0,
  feesCentimes: 0,
  refundCount: 0,
  refunds: 0,
  refundsCentimes: 0,
  net: 0,
  netCentimes: 0,
  payoutCount: 0,
  paidOut: 0,
  paidOutCentimes: 0,
  balance: 430.5,
  balanceCentimes: 43_050,
};
const payout = {
  id: '5b1e6a9e-8f0c-4c4e-9d43-0e7b6f1f2a10',
  mode: 'live',
  amount: 2000,
  amountCentimes: 200_000,
  wallet: 'W-ALG-0042',
  reference: 'BNA-2026-03-0001',
  recordedAt: '2026-03-14T09:30:00.000Z',
};
const invalidMonth = {
  description:
    'the month is not YYYY-MM or is after the current month in Algiers, or format, dialect or language is not one of theirs: details.failures names the field',
  errors: ['VALIDATION400_BAD_REQUEST'],
} as const;

/** The balance, payouts and monthly statements of the merchant API (docs/balance.md). */
export const BALANCE_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/balance',
    operationId: 'getBalance',
    tag: 'Balance',
    summary: 'The key’s merchant’s balance: captured, fees, refunds, net, paid out, by day',
    description:
      'balance = captured − fees − refunds − paidOut, exact in centimes, for the key’s merchant and mode. captured: what cards were charged for successes (fee included), on the Algiers day of paidAt; fees: dzpay’s on them; refunds: merchant refunds the card network confirmed, on the day of confirmation (a refund of everything gives back the total, fee included, and the fee stays dzpay’s); paidOut: payouts dzpay recorded to the merchant’s wallet. overall is everything until asOf; days lists every Algiers day of from..to (quiet days as zeros, the balance carried from openingBalance); totals closes on the balance at the end of to. available = overall balance − refunds still pending (never below 0): what a payout may take. Amounts in DZD and in centimes.',
    apiKey: true,
    query: {
      from: 'first day of the table, YYYY-MM-DD (default: 29 days before to)',
      to: 'last day, YYYY-MM-DD (default: today in Algiers); at most 366 days from from',
    },
    querySchema: BalanceQuery,
    responses: {
      200: {
        description: 'the balance',
        json: BalanceResponse,
        example: {
          statusCode: 200,
          message: 'Balance',
          data: {
            timeZone: 'Africa/Algiers',
            utcOffset: '+01:00',
            currency: 'DZD',
            asOf: '2026-03-15T10:00:00.000Z',
            overall: figures,
            pendingRefunds: 0,
            pendingRefundsCentimes: 0,
            available: 430.5,
            availableCentimes: 43_050,
            from: '2026-03-14',
            to: '2026-03-15',
            openingBalance: 0,
            openingBalanceCentimes: 0,
            days: [
              { date: '2026-03-14', ...figures },
              { date: '2026-03-15', ...quiet },
            ],
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
    path: '/api/v1/payouts',
    operationId: 'listPayouts',
    tag: 'Balance',
    summary: 'Payouts to the merchant’s wallet, newest first',
    description:
      'Each payout an operator recorded after sending money to the merchant’s wallet: the amount, the wallet, the bank’s reference of the transfer. Paged by a cursor: give nextCursor as cursor for the next (older) page.',
    apiKey: true,
    query: PAGE_QUERY,
    querySchema: PayoutsQuery,
    responses: {
      200: {
        description: 'a page of payouts',
        json: PayoutsResponse,
        example: {
          statusCode: 200,
          message: 'Payouts found',
          data: { payouts: [payout], nextCursor: null },
        },
      },
      400: {
        description:
          'limit out of range or a cursor this API never gave: details.failures names it',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      ...API_KEY_RESPONSES,
      503: unavailable('payments'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/statements/{month}',
    operationId: 'downloadStatement',
    tag: 'Balance',
    summary: 'A month’s statement as PDF, CSV or XLSX',
    description:
      'The opening balance, every Algiers day of the month (captured, fees, refunds, net, paid out, balance), the closing balance and the month’s payouts. format=pdf (default: A4, French or English; language=ar gets French), csv (one table: an opening row, a row per day, a total row; dialect=spreadsheet by default, with a byte-order mark, semicolons and decimal commas, or standard) or xlsx (a sheet of days and a sheet of payouts, headers in language).',
    apiKey: true,
    params: { month: 'YYYY-MM, not after the current month in Algiers' },
    query: {
      format: 'pdf (default), csv or xlsx',
      dialect: 'CSV only: spreadsheet (default) or standard',
      language: 'fr (default), en or ar',
    },
    querySchema: StatementQuery,
    responses: {
      200: {
        description: 'the statement file (Content-Disposition: attachment)',
        media: [
          'application/pdf',
          'text/csv',
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        ],
      },
      400: invalidMonth,
      ...API_KEY_RESPONSES,
      503: unavailable('payments'),
    },
  },
];
