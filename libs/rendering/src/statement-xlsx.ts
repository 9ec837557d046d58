import type { Language, StatementReply } from '@dzpay/contracts';
import { StatementTexts } from './statement-labels.ts';
import { statementDayRows } from './statement-table.ts';
import { xlsxWorkbook } from './xlsx.ts';

/**
 * A month's statement as a workbook: the days (opening row, each Algiers day, the total
 * closing on the month's balance) and the month's payouts, headers in the merchant's
 * language, amounts as DZD numbers a spreadsheet sums.
 */
export function statementXlsx(statement: StatementReply, language: Language): Promise<Buffer> {
  const t = StatementTexts[language];
  const dzd = (label: string) => `${label} (DZD)`;
  return xlsxWorkbook([
    {
      name: `${t.daysSheet} ${statement.month}`,
      header: [
        t.day,
        t.capturedCount,
        dzd(t.capturedShort),
        dzd(t.feesShort),
        t.refundCount,
        dzd(t.refundsShort),
        dzd(t.net),
        t.payoutCount,
        dzd(t.paidOutShort),
        dzd(t.balance),
      ],
      rows: statementDayRows(statement, { opening: t.opening, total: t.total }),
    },
    {
      name: `${t.payoutsSheet} ${statement.month}`,
      header: [`${t.recordedAt} (Algiers)`, t.reference, t.wallet, dzd(t.amount), 'id'],
      rows: statement.payouts.map((p) => [
        { at: p.recordedAt },
        p.reference,
        p.wallet,
        { dzd: p.amount },
        p.id,
      ]),
    },
  ]);
}
