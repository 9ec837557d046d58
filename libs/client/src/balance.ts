import {
  BalanceResponse,
  PayoutsResponse,
  type BalanceQuery,
  type BalanceView,
  type PayoutsPageView,
  type PayoutsQuery,
  type StatementQuery,
} from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** A merchant's balance, payouts and statements. */
export function balanceMethods(transport: ClientTransport) {
  const { call, raw, query, segment } = transport;
  return {
    /**
     * GET /api/v1/balance: captured, fees, refunds, net, paid out and balance, overall
     * and per Algiers day from `from` to `to` (default: the last 30 days), in DZD and
     * in centimes. balance = captured − fees − refunds − paidOut.
     */
    async getBalance(range: BalanceQuery = {}): Promise<BalanceView> {
      const answer = await call(
        'GET',
        `/api/v1/balance${query({ from: range.from, to: range.to })}`,
        { status: 200, schema: BalanceResponse },
      );
      return answer.data;
    },

    /** GET /api/v1/payouts: a page of payouts, newest first; nextCursor for the next. */
    async listPayouts(page: PayoutsQuery = {}): Promise<PayoutsPageView> {
      const answer = await call(
        'GET',
        `/api/v1/payouts${query({ limit: page.limit, cursor: page.cursor })}`,
        { status: 200, schema: PayoutsResponse },
      );
      return answer.data;
    },

    /**
     * GET /api/v1/statements/{month}: a month's statement (YYYY-MM) as the file's bytes,
     * PDF unless `format` says csv or xlsx.
     */
    async downloadStatement(month: string, options: StatementQuery = {}): Promise<Uint8Array> {
      const response = await raw(
        'GET',
        `/api/v1/statements/${segment(month)}${query({
          format: options.format,
          dialect: options.dialect,
          language: options.language,
        })}`,
      );
      return new Uint8Array(await response.arrayBuffer());
    },
  };
}
