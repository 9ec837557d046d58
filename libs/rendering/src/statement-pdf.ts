import PDFDocument from 'pdfkit';
import type { BalanceDay, Mode, StatementReply } from '@dzpay/contracts';
import { StatementTexts, type StatementText } from './statement-labels.ts';

/** Who the statement is for: the merchant's name as shown to payers, and the mode. */
export interface StatementParty {
  merchantId: string;
  merchantName: string;
  mode: Mode;
}

type PdfLanguage = 'fr' | 'en';

/**
 * The PDF's standard font (Helvetica) encodes WinAnsi only: typographic signs are
 * written as their plain forms and anything else it cannot draw becomes `?` (an
 * Arabic merchant name is written by its id too, so the statement still names it).
 */
function printable(text: string): string {
  return text
    .replace(/[\u2212\u2010\u2011]/g, '-')
    .replace(/[\u00a0\u202f\u2009]/g, ' ')
    .replace(/[^\u0020-\u007e\u00a0-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u20ac]/g, '?');
}

/** Whole centimes as DZD, by integer arithmetic: "1 500,50 DZD", "1,500.50 DZD". */
export function pdfAmount(centimes: number, language: PdfLanguage): string {
  const sign = centimes < 0 ? '-' : '';
  const magnitude = Math.abs(centimes);
  const whole = String(Math.trunc(magnitude / 100)).replace(
    /\B(?=(\d{3})+(?!\d))/g,
    language === 'fr' ? ' ' : ',',
  );
  const cents = String(magnitude % 100).padStart(2, '0');
  return `${sign}${whole}${language === 'fr' ? ',' : '.'}${cents} DZD`;
}

function pdfDay(isoDay: string, language: PdfLanguage): string {
  const [y, m, d] = isoDay.split('-');
  return language === 'fr' ? `${d}/${m}/${y}` : isoDay;
}

/** An instant on Algiers' clock (UTC+01:00 all year): "10/03/2026 13:05". */
function pdfInstant(iso: string, language: PdfLanguage): string {
  const local = new Date(Date.parse(iso) + 3_600_000).toISOString();
  return `${pdfDay(local.slice(0, 10), language)} ${local.slice(11, 16)}`;
}

function monthName(month: string, language: PdfLanguage): string {
  return new Intl.DateTimeFormat(language === 'fr' ? 'fr-DZ' : 'en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${month}-01T00:00:00Z`));
}

interface Column {
  title: string;
  width: number;
  align?: 'left' | 'right';
}

/**
 * A month's statement as a PDF (pdfkit, A4): who and when, the summary (opening
 * balance, collected, fees, refunds, net, paid out, closing balance), the days that
 * moved, and the month's payouts. French or English; Arabic asks get French.
 */
export function statementPdf(
  statement: StatementReply,
  party: StatementParty,
  requested: 'fr' | 'en' | 'ar',
): Promise<Buffer> {
  const language: PdfLanguage = requested === 'en' ? 'en' : 'fr';
  const t: StatementText = StatementTexts[language];
  const money = (centimes: number) => pdfAmount(centimes, language);
  const doc = new PDFDocument({
    size: 'A4',
    margin: 48,
    info: {
      Title: printable(`${t.title} ${statement.month} - ${party.merchantName}`),
      Author: 'dzpay',
      Subject: printable(`${t.title} ${statement.month}`),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const text = (value: string) => printable(value);
  const bottom = () => doc.page.height - doc.page.margins.bottom;

  doc
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(text(`${t.title} — ${monthName(statement.month, language)}`));
  doc.moveDown(0.5).font('Helvetica').fontSize(10);
  const name = printable(party.merchantName);
  const fact = (label: string, value: string) =>
    doc
      .text(text(`${label} : `), { continued: true })
      .font('Helvetica-Bold')
      .text(text(value))
      .font('Helvetica');
  fact(t.merchant, name.includes('?') ? `${name} (${party.merchantId})` : name);
  fact(t.mode, party.mode === 'test' ? t.testMode : t.liveMode);
  fact(t.period, `${pdfDay(statement.from, language)} – ${pdfDay(statement.to, language)}`);
  fact(t.asOf, `${pdfInstant(statement.asOf, language)} (Algiers, UTC+01:00)`);

  // The summary: label on the left, amount on the right.
  doc.moveDown().font('Helvetica-Bold').fontSize(13).text(text(t.summary));
  doc.fontSize(10);
  const summary: [string, number, boolean][] = [
    [t.openingBalance, statement.openingBalance, true],
    [t.captured, statement.totals.captured, false],
    [t.fees, -statement.totals.fees, false],
    [t.refunds, -statement.totals.refunds, false],
    [t.net, statement.totals.net, true],
    [t.paidOut, -statement.totals.paidOut, false],
    [t.closingBalance, statement.totals.balance, true],
  ];
  for (const [label, amount, bold] of summary) {
    const y = doc.y + 2;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(text(label), left, y, { width: width * 0.65 });
    doc.text(text(money(amount)), left + width * 0.65, y, { width: width * 0.35, align: 'right' });
  }
  doc.font('Helvetica').fontSize(8).moveDown(0.5);
  doc.text(text(t.formula), left, doc.y, { width }).text(text(t.refundNote), { width });

  const table = <Row>(columns: Column[], rows: readonly Row[], cells: (row: Row) => string[]) => {
    const header = () => {
      let x = left;
      const y = doc.y;
      doc.font('Helvetica-Bold').fontSize(8);
      for (const column of columns) {
        doc.text(text(column.title), x, y, {
          width: column.width - 4,
          align: column.align ?? 'left',
        });
        x += column.width;
      }
      doc
        .moveTo(left, doc.y + 1)
        .lineTo(left + width, doc.y + 1)
        .stroke();
      doc.y += 4;
      doc.font('Helvetica');
    };
    header();
    for (const row of rows) {
      if (doc.y > bottom() - 24) {
        doc.addPage();
        header();
      }
      let x = left;
      const y = doc.y;
      cells(row).forEach((cell, i) => {
        const column = columns[i]!;
        doc.text(text(cell), x, y, { width: column.width - 4, align: column.align ?? 'left' });
        x += column.width;
      });
      doc.y += 2;
    }
  };

  // The days that moved (a month of zero rows says nothing), then the totals.
  doc.moveDown().font('Helvetica-Bold').fontSize(13).text(text(t.byDay), left);
  const moved = statement.days.filter(
    (d) => d.capturedCount > 0 || d.refundCount > 0 || d.payoutCount > 0,
  );
  doc
    .font('Helvetica')
    .fontSize(8)
    .text(text(moved.length > 0 ? t.quietDaysLeftOut : t.noMovement));
  doc.moveDown(0.3);
  if (moved.length > 0) {
    const w = width / 7;
    const amountColumn = (title: string): Column => ({ title, width: w, align: 'right' });
    type Line = { label: string; figures: Omit<BalanceDay, 'date'> };
    table<Line>(
      [
        { title: t.day, width: w },
        { title: t.capturedCount, width: w * 0.6, align: 'right' },
        amountColumn(t.capturedShort),
        amountColumn(t.feesShort),
        amountColumn(t.refundsShort),
        amountColumn(t.paidOutShort),
        { title: t.balance, width: w * 1.4, align: 'right' },
      ],
      [
        ...moved.map((d) => ({ label: pdfDay(d.date, language), figures: d })),
        { label: t.total, figures: statement.totals },
      ],
      ({ label, figures }) => [
        label,
        String(figures.capturedCount),
        money(figures.captured),
        money(figures.fees),
        money(figures.refunds),
        money(figures.paidOut),
        money(figures.balance),
      ],
    );
  }

  doc.moveDown().font('Helvetica-Bold').fontSize(13).text(text(t.payouts), left);
  doc.font('Helvetica').fontSize(8);
  if (statement.payouts.length === 0) {
    doc.text(text(t.noPayouts));
  } else {
    doc.moveDown(0.3);
    table(
      [
        { title: t.recordedAt, width: width * 0.2 },
        { title: t.reference, width: width * 0.35 },
        { title: t.wallet, width: width * 0.25 },
        { title: t.amount, width: width * 0.2, align: 'right' },
      ],
      statement.payouts,
      (p) => [pdfInstant(p.recordedAt, language), p.reference, p.wallet, money(p.amount)],
    );
  }
  doc.end();
  return done;
}
