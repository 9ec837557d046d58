import { Readable } from 'node:stream';
import { PAYMENTS_PAGE_MAX, Rpc } from '@dzpay/contracts';
import { DashboardPaths } from '../navigation.ts';
import type { PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { ExportTooLarge, paymentsCsv, paymentsXlsx, XLSX_MEDIA_TYPE } from '@dzpay/rendering';
import { PaymentsMessages } from './payments-messages.ts';
import { filterFormOf, listFilterOf } from './payments-filter.ts';
import { refuseDownload } from './refusal.ts';

/**
 * GET /dashboard/payments/export: the file of GET /api/v1/payments/export, with the
 * list page's filters (its form's fields). The people who download it open it in Excel:
 * CSV in the spreadsheet dialect, streamed a page of payments at a time, unless
 * `dialect=standard` asks for the one programs read; or, with `format=xlsx`, a workbook
 * of typed cells and totals (written whole, every page read first).
 */
export function registerPaymentsExport(kit: PageKit, ask: Ask): void {
  kit.download(`${DashboardPaths.payments}/export`, async (context) => {
    const outcome = listFilterOf(filterFormOf(context.request.query));
    const plain = (status: number, message: string) =>
      context.reply.code(status).type('text/plain; charset=utf-8').send(message);
    if (!outcome.ok) {
      await plain(400, outcome.problems.map((p) => `${p.field}: ${p.message}`).join('\n'));
      return;
    }
    const page = (cursor?: string) =>
      ask(Rpc.paymentsList, {
        ...context.scope,
        ...outcome.filter,
        limit: PAYMENTS_PAGE_MAX,
        ...(cursor ? { cursor } : {}),
      });
    let first;
    try {
      // Asked before a byte is sent: a refusal is still a readable answer.
      first = await page();
    } catch (error) {
      await refuseDownload(context.reply, error, context.language);
      return;
    }
    const { dialect, format } = context.request.query as { dialect?: unknown; format?: unknown };
    const day = new Date().toISOString().slice(0, 10);
    const filename = `payments-${context.scope.mode}-${day}`;
    if (format === 'xlsx') {
      let workbook;
      try {
        workbook = await paymentsXlsx(first, (cursor) => page(cursor));
      } catch (error) {
        if (error instanceof ExportTooLarge) {
          // Said in the page's language: narrow the filter, or take the CSV.
          await context.reply
            .code(400)
            .type('text/plain; charset=utf-8')
            .send(PaymentsMessages[context.language].exportTooLarge(error.maxPayments));
          return;
        }
        await refuseDownload(context.reply, error, context.language);
        return;
      }
      await context.reply
        .type(XLSX_MEDIA_TYPE)
        .header('content-disposition', `attachment; filename="${filename}.xlsx"`)
        .send(workbook);
      return;
    }
    const stream = Readable.from(
      paymentsCsv(
        first,
        (cursor) => page(cursor),
        dialect === 'standard' ? 'standard' : 'spreadsheet',
      ),
    );
    // A failure mid-export can only cut the body short (headers are out): logged here.
    stream.on('error', (err) => context.request.log.warn({ err }, 'dashboard export cut short'));
    await context.reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}.csv"`)
      .send(stream);
  });
}
