import { Rpc, type DailyReportReply, type Language, type ReportDay } from '@dzpay/contracts';
import { escapeHtml as e, isAppError } from '@dzpay/platform';
import { DashboardPaths } from '../navigation.ts';
import type { PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { reportCsv, reportXlsx, XLSX_MEDIA_TYPE } from '@dzpay/rendering';
import { dayRangeFormHtml, dayRangeOf } from './day-range.ts';
import { count, day, money, shortDay } from './format.ts';
import { refusalText, refuseDownload } from './refusal.ts';
import { barChartSvg } from './report-chart.ts';
import { ReportMessages, type ReportText } from './report-messages.ts';
import { tableHtml, type Column } from './table.ts';

/** GET /dashboard/report: the daily report of a range of days, as a chart and a table. */
export function registerReportPage(kit: PageKit, ask: Ask): void {
  // The same report as a file an accountant opens (CSV in the spreadsheet dialect unless
  // dialect=standard; an XLSX workbook with format=xlsx): a row per day, then the totals.
  kit.download(`${DashboardPaths.report}/export`, async (context) => {
    const { range } = dayRangeOf(context, kit.deps.clock?.() ?? new Date());
    const text = ReportMessages[context.language];
    if (!range) {
      await context.reply.code(400).type('text/plain; charset=utf-8').send(text.invalidRange);
      return;
    }
    try {
      const report = await ask(Rpc.paymentsReportDaily, { ...context.scope, ...range });
      const { dialect, format } = context.request.query as { dialect?: unknown; format?: unknown };
      const filename = `report-${context.scope.mode}-${range.from}-${range.to}`;
      if (format === 'xlsx') {
        await context.reply
          .type(XLSX_MEDIA_TYPE)
          .header('content-disposition', `attachment; filename="${filename}.xlsx"`)
          .send(await reportXlsx(report));
        return;
      }
      await context.reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}.csv"`)
        .send(reportCsv(report, dialect === 'standard' ? 'standard' : 'spreadsheet'));
    } catch (error) {
      await refuseDownload(context.reply, error, context.language);
    }
  });

  kit.get(DashboardPaths.report, async (context) => {
    const text = ReportMessages[context.language];
    const { query, range: value } = dayRangeOf(context, kit.deps.clock?.() ?? new Date());
    const range = value ? { ok: true as const, value } : null;
    if (!range?.ok) {
      context.reply.code(400);
      return context.page(
        text.reportTitle,
        `${rangeFormHtml(text, query)}<p class="flash error" role="alert">${e(text.invalidRange)}</p>`,
      );
    }
    try {
      const report = await ask(Rpc.paymentsReportDaily, { ...context.scope, ...range.value });
      return context.page(text.reportTitle, reportHtml(report, context.language));
    } catch (error) {
      context.reply.code(isAppError(error) && error.code === 'SERVICE503_UNAVAILABLE' ? 503 : 400);
      const message = refusalText(error, context.language);
      return context.page(
        text.reportTitle,
        `${rangeFormHtml(text, range.value)}<p class="flash error" role="alert">${e(message)}</p>`,
      );
    }
  });
}

function rangeFormHtml(
  text: ReportText,
  range: { from?: string | undefined; to?: string | undefined },
) {
  return dayRangeFormHtml(
    { action: DashboardPaths.report, id: 'report', label: text.reportTitle, text },
    range,
  );
}

/** The chart of what was collected each day, and its one-sentence summary. */
function reportChart(report: DailyReportReply, language: Language): string {
  const text = ReportMessages[language];
  const best = report.days.reduce<ReportDay | null>(
    (top, current) => (current.successAmount > (top?.successAmount ?? 0) ? current : top),
    null,
  );
  return barChartSvg({
    title: text.chartTitle,
    summary: text.chartSummary(
      day(report.from, language),
      day(report.to, language),
      best ? text.bestDay(day(best.date, language), money(best.successAmount, language)) : null,
    ),
    bars: report.days.map((d) => ({
      label: shortDay(d.date, language),
      value: d.successAmount,
      valueText: money(d.successAmount, language),
    })),
    rtl: language === 'ar',
    // Half the highest day is seldom whole centimes: the scale rounds to the dinar.
    axisText: (value) => money(Math.round(value / 100) * 100, language),
  });
}

/** The report's range as files: CSV for Excel, standard CSV, and an XLSX workbook. */
function downloadsHtml(text: ReportText, range: { from: string; to: string }): string {
  const href = (extra: string) =>
    `${DashboardPaths.report}/export?from=${range.from}&to=${range.to}${extra}`;
  return `<p class="download"><a href="${e(href(''))}" download>${e(text.downloadReport)}</a>
<a href="${e(href('&dialect=standard'))}" download>${e(text.downloadReportStandard)}</a>
<a href="${e(href('&format=xlsx'))}" download>${e(text.downloadReportXlsx)}</a></p>`;
}

function reportHtml(report: DailyReportReply, language: Language): string {
  const text = ReportMessages[language];
  type Row = DailyReportReply['totals'] & { date: string | null };
  const columns: Column<Row>[] = [
    {
      label: text.date,
      cell: (row) => (row.date ? e(day(row.date, language)) : `<strong>${e(text.totals)}</strong>`),
    },
    {
      label: text.successCount,
      cell: (row) => e(count(row.successCount, language)),
      numeric: true,
    },
    {
      label: text.successAmount,
      cell: (row) => e(money(row.successAmount, language)),
      numeric: true,
    },
    { label: text.refundCount, cell: (row) => e(count(row.refundCount, language)), numeric: true },
    {
      label: text.refundAmount,
      cell: (row) => e(money(row.refundAmount, language)),
      numeric: true,
    },
    { label: text.feeAmount, cell: (row) => e(money(row.feeAmount, language)), numeric: true },
    { label: text.net, cell: (row) => e(money(row.net, language)), numeric: true },
  ];
  // Newest day first, as a merchant looks for today; quiet days are left to the chart
  // (a month of zero rows is a long scroll on a phone); the totals close the table.
  const rows: Row[] = [...report.days]
    .reverse()
    .filter((d) => d.successCount > 0 || d.refundCount > 0)
    .map((d) => ({ ...d }));
  const note = rows.length > 0 ? text.quietDays : text.noActivity;
  rows.push({ ...report.totals, date: null });
  return `${rangeFormHtml(text, report)}
<section class="card" aria-labelledby="chart"><h2 id="chart">${e(text.chartTitle)}</h2>
<div class="chart">${reportChart(report, language)}</div>
${downloadsHtml(text, report)}</section>
<p class="muted">${e(note)}</p>
${tableHtml(`${text.reportTitle}: ${day(report.from, language)} – ${day(report.to, language)}`, columns, rows)}`;
}
