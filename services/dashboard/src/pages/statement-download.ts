import { Rpc, StatementFormat, statementMonthProblem } from '@dzpay/contracts';
import {
  STATEMENT_MEDIA_TYPES,
  statementCsv,
  statementFileName,
  statementPdf,
  statementXlsx,
} from '@dzpay/rendering';
import type { PageContext } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { BalanceMessages } from './balance-messages.ts';
import { fieldOf } from './form.ts';
import { refuseDownload } from './refusal.ts';

/**
 * GET /dashboard/balance/statement?month=YYYY-MM&format=pdf|csv|xlsx: the month's
 * statement, drawn by the same renderers as the API's: the PDF in the session's
 * language (Arabic gets French), the XLSX's headers too, the CSV for Excel in French or
 * Arabic (spreadsheet dialect).
 */
export async function sendStatement(context: PageContext, ask: Ask, now: Date): Promise<void> {
  const month = fieldOf(context.request.query, 'month') ?? '';
  const format = StatementFormat.safeParse(fieldOf(context.request.query, 'format') ?? 'pdf');
  if (statementMonthProblem(month, now) || !format.success) {
    await context.reply
      .code(400)
      .type('text/plain; charset=utf-8')
      .send(BalanceMessages[context.language].invalidStatement);
    return;
  }
  try {
    const statement = await ask(Rpc.statementGet, { ...context.scope, month });
    const { session, language } = context;
    const body =
      format.data === 'csv'
        ? statementCsv(statement, 'spreadsheet')
        : format.data === 'xlsx'
          ? await statementXlsx(statement, language)
          : await statementPdf(
              statement,
              {
                merchantId: session.merchantId,
                merchantName: session.merchantName,
                mode: session.mode,
              },
              language,
            );
    await context.reply
      .type(STATEMENT_MEDIA_TYPES[format.data])
      .header(
        'content-disposition',
        `attachment; filename="${statementFileName(month, context.scope.mode, format.data)}"`,
      )
      .header('cache-control', 'no-store')
      .send(body);
  } catch (error) {
    await refuseDownload(context.reply, error, context.language);
  }
}
