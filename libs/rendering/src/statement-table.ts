import type { BalanceFigures, StatementReply } from '@dzpay/contracts';
import type { Cell } from './csv.ts';

/**
 * The days table of a month's statement, as the CSV and the XLSX both lay it out: an
 * opening row (the balance when the month began), one row per Algiers day of the month
 * (quiet days as zeros, the balance carried), then the total row closing on the month's
 * final balance. Columns: day, payment count, captured, fees, refund count, refunds, net,
 * payout count, paid out, balance; amounts in DZD.
 */
export function statementDayRows(
  statement: StatementReply,
  labels: { opening: string; total: string },
): Cell[][] {
  const row = (day: string, f: BalanceFigures): Cell[] => [
    day,
    f.capturedCount,
    { dzd: f.captured },
    { dzd: f.fees },
    f.refundCount,
    { dzd: f.refunds },
    { dzd: f.net },
    f.payoutCount,
    { dzd: f.paidOut },
    { dzd: f.balance },
  ];
  return [
    [
      labels.opening,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      { dzd: statement.openingBalance },
    ],
    ...statement.days.map((day) => row(day.date, day)),
    row(labels.total, statement.totals),
  ];
}
