import { Rpc } from '@dzpay/contracts';
import { serveRpc, type RpcServer } from '@dzpay/platform';
import { reportRepository } from './daily-report-repository.ts';
import { dailyReport } from './daily-report.ts';
import type { ReadingContext } from '../context.ts';

/**
 * payments.report.daily: per Algiers day, successes, confirmed merchant refunds and fees
 * of the scope's payments. Read-only: it needs no settlement, only the database.
 */
export async function serveReportHandlers(ctx: ReadingContext): Promise<RpcServer[]> {
  const { nats, prefix, sql, logger } = ctx;
  const report = reportRepository(sql);
  return [
    await serveRpc(
      nats,
      prefix,
      Rpc.paymentsReportDaily,
      async ({ merchantId, mode, from, to }) => {
        const scope = { merchantId, mode };
        const [successes, refunds] = await Promise.all([
          report.successes(scope, from, to),
          report.refunds(scope, from, to),
        ]);
        return dailyReport({ from, to }, successes, refunds);
      },
      logger,
    ),
  ];
}
