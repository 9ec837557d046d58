import ExcelJSModule from 'exceljs';
import { Readable } from 'node:stream';
import { algiersDay } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardUser, DashboardAgent } from './support/dashboard-agent.ts';
import { CARDS, payByHttp, type Card } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';
import { workbookOf } from './support/workbooks.ts';

// The files an accountant opens, over the whole stack: the payments export and the daily
// report as XLSX (and the report as CSV), from the API and from the dashboard, read back
// with exceljs: typed cells (DZD numbers, Algiers dates, text) and totals that agree with
// the daily report to the centime.

/** The little of exceljs's types this test reads. */
interface Worksheet {
  name: string;
  getSheetValues(): unknown[];
  getRow(index: number): { getCell(index: number): { value: unknown; numFmt: string } };
}
interface Workbook {
  worksheets: Worksheet[];
  getWorksheet(name: string): Worksheet | undefined;
  csv: { read(stream: Readable, options: object): Promise<Worksheet> };
}
const ExcelJS = ExcelJSModule as unknown as { Workbook: new () => Workbook };

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const password = 'correct horse battery staple';
let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
let browser: DashboardAgent;
const DAY_MS = 86_400_000;
const range = () => ({
  from: algiersDay(new Date(Date.now() - DAY_MS)),
  to: algiersDay(new Date(Date.now() + DAY_MS)),
});

let seq = 0;
async function pay(amount: number, card: Card = CARDS.approved) {
  const client = stack.client(merchant.testKey);
  const payment = await client.registerPayment({
    amount,
    currency: 'DZD',
    reference: `EXP-${Date.now()}-${seq++}`,
  });
  await payByHttp(payment.checkoutUrl, card);
  return client.getPayment(payment.id);
}

/** A sheet's rows as arrays of cell values (exceljs's row.values start at index 1). */
const rowsOf = (sheet: Worksheet) =>
  sheet
    .getSheetValues()
    .slice(1)
    .map((row) => (row as unknown[]).slice(1));

beforeAll(async () => {
  stack = await startStack(
    'exports',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true, withDashboard: true },
  );
  merchant = await stack.merchant('Librairie Tlemcen', { walletId: 'W-X', feeDzd: 15 });
  const first = await pay(150_000);
  await pay(200_050);
  await pay(99_000, CARDS.insufficientFunds);
  await stack.client(merchant.testKey).refundPayment(first.id, { amount: 50_000 });
  await createDashboardUser(stack, merchant.id, 'books@tlemcen.example', password);
  browser = new DashboardAgent(stack.dashboard!.url, { 'accept-language': 'fr' });
  expect((await browser.login('books@tlemcen.example', password)).status).toBe(303);
}, 120_000);
afterAll(() => stack?.stop());

describe('the payments export as XLSX', () => {
  it('opens with typed cells, a total of the paid payments and a Totals sheet', async () => {
    const response = await stack.get('/api/v1/payments/export?format=xlsx', {
      'x-api-key': merchant.testKey,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(XLSX);
    expect(response.headers.get('content-disposition')).toMatch(
      /attachment; filename="payments-test-\d{4}-\d{2}-\d{2}\.xlsx"/,
    );
    const workbook = await workbookOf(await response.arrayBuffer());
    const sheet = workbook.getWorksheet('Payments')!;
    const [header, ...rows] = rowsOf(sheet);
    const col = (name: string) => header!.indexOf(name);
    const payments = rows.slice(0, -1);
    expect(payments).toHaveLength(3);
    const failed = payments.find((row) => row[col('status')] === 'failed')!;
    expect(failed[col('amount (DZD)')]).toBe(990);
    expect(failed[col('paid_at (Algiers)')]).toBeUndefined();
    expect(String(failed[col('failure_reason')])).toMatch(/insufficient|provision|رصيد/i);
    const refunded = payments.find((row) => row[col('refunded (DZD)')] === 500)!;
    expect(refunded[col('amount (DZD)')]).toBe(1500);
    expect(refunded[col('fee (DZD)')]).toBe(15);
    expect(refunded[col('total (DZD)')]).toBe(1515);
    expect(refunded[col('created_at (Algiers)')]).toBeInstanceOf(Date);
    expect(sheet.getRow(2).getCell(col('amount (DZD)') + 1).numFmt).toBe('#,##0.00');

    const total = rows.at(-1)!;
    expect(total[0]).toBe('total (paid)');
    expect(total[col('status')]).toBe(2);
    expect(total[col('amount (DZD)')]).toBe(3500.5);
    expect(total[col('fee (DZD)')]).toBe(30);
    expect(total[col('total (DZD)')]).toBe(3530.5);
    expect(total[col('refunded (DZD)')]).toBe(500);

    // The Totals sheet's net is the daily report's net, to the centime.
    const figures: Record<string, unknown> = Object.fromEntries(
      rowsOf(workbook.getWorksheet('Totals')!)
        .slice(1)
        .map((row) => row as [string, unknown]),
    );
    const report = await stack.client(merchant.testKey).dailyReport(range());
    expect(figures['net (DZD)']).toBe(report.totals.net);
    expect(figures['total charged (DZD)']).toBe(report.totals.successAmount);
    expect(figures['payments']).toBe(3);
  });

  it('is the same workbook through the client and the dashboard (with the list’s filters)', async () => {
    const bytes = await stack.client(merchant.testKey).exportPaymentsXlsx({ status: 'failed' });
    const failedOnly = rowsOf((await workbookOf(bytes)).getWorksheet('Payments')!);
    expect(failedOnly).toHaveLength(3); // the header, the failed payment, the total row
    expect(failedOnly.at(-1)![5]).toBe(0);

    const page = await browser.get('/dashboard/payments');
    expect(page.html).toContain('/dashboard/payments/export?format=xlsx');
    expect(page.html).toContain('Classeur Excel (XLSX)');
    const download = await fetch(`${stack.dashboard!.url}/dashboard/payments/export?format=xlsx`, {
      headers: { cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe(XLSX);
    const sheet = (await workbookOf(await download.arrayBuffer())).getWorksheet('Payments')!;
    expect(rowsOf(sheet).at(-1)!.slice(0, 1)).toEqual(['total (paid)']);
    expect(rowsOf(sheet)).toHaveLength(5);
  });

  it('refuses a format it does not know, in the spec’s envelope, before any file', async () => {
    const response = await stack.get('/api/v1/payments/export?format=pdf', {
      'x-api-key': merchant.testKey,
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { statusCode: number; message: unknown };
    expect(body.statusCode).toBe(400);
    expect(JSON.stringify(body)).toContain('format must be csv or xlsx');
  });
});

describe('the daily report as a file', () => {
  it('XLSX: a row per Algiers day and a total row equal to the report', async () => {
    const { from, to } = range();
    const response = await stack.get(
      `/api/v1/reports/daily/export?format=xlsx&from=${from}&to=${to}`,
      { 'x-api-key': merchant.testKey },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(XLSX);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="report-test-${from}-${to}.xlsx"`,
    );
    const rows = rowsOf((await workbookOf(await response.arrayBuffer())).worksheets[0]!);
    const report = await stack.client(merchant.testKey).dailyReport({ from, to });
    expect(rows[0]).toEqual([
      'day (Algiers)',
      'success_count',
      'success (DZD)',
      'refund_count',
      'refunds (DZD)',
      'fees (DZD)',
      'net (DZD)',
    ]);
    expect(rows.slice(1, -1).map((row) => row[0])).toEqual(report.days.map((d) => d.date));
    const t = report.totals;
    expect(rows.at(-1)).toEqual([
      'total',
      t.successCount,
      t.successAmount,
      t.refundCount,
      t.refundAmount,
      t.feeAmount,
      t.net,
    ]);
    expect(t).toMatchObject({ successCount: 2, successAmount: 3530.5, net: 3000.5 });
    const bytes = await stack.client(merchant.testKey).exportDailyReportXlsx({ from, to });
    expect(rowsOf((await workbookOf(bytes)).worksheets[0]!).at(-1)).toEqual(rows.at(-1));
  });

  it('CSV in both dialects, which exceljs reads back with the same totals', async () => {
    const { from, to } = range();
    const client = stack.client(merchant.testKey);
    const readCsv = async (text: string, delimiter: string) => {
      const workbook = new ExcelJS.Workbook();
      const sheet = await workbook.csv.read(Readable.from([text.replace(/^\uFEFF/, '')]), {
        parserOptions: { delimiter },
      });
      return rowsOf(sheet);
    };
    const standard = await client.exportDailyReport({ from, to });
    expect(standard.startsWith('\uFEFF')).toBe(false);
    expect((await readCsv(standard, ',')).at(-1)).toEqual(['total', 2, 3530.5, 1, 500, 30, 3000.5]);
    const spreadsheet = await client.exportDailyReport({ from, to, dialect: 'spreadsheet' });
    // The byte-order mark is in the file (a text decoder, as the client's, drops it).
    const raw = await stack.get(
      `/api/v1/reports/daily/export?from=${from}&to=${to}&dialect=spreadsheet`,
      { 'x-api-key': merchant.testKey },
    );
    expect(raw.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect([...new Uint8Array(await raw.arrayBuffer()).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    // Decimal commas: text for a reader set to points, numbers for French Excel.
    expect((await readCsv(spreadsheet, ';')).at(-1)).toEqual([
      'total',
      2,
      '3530,50',
      1,
      '500,00',
      '30,00',
      '3000,50',
    ]);
    const bad = await stack.get('/api/v1/reports/daily/export?format=ods', {
      'x-api-key': merchant.testKey,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('format must be csv or xlsx');
    const reversed = await stack.get(`/api/v1/reports/daily/export?from=${to}&to=${from}`, {
      'x-api-key': merchant.testKey,
    });
    expect(reversed.status).toBe(400);
  });

  it('the dashboard’s report offers XLSX, and its download opens', async () => {
    const { from, to } = range();
    const page = await browser.get(`/dashboard/report?from=${from}&to=${to}`);
    expect(page.html).toContain(
      `/dashboard/report/export?from=${from}&amp;to=${to}&amp;format=xlsx`,
    );
    const download = await fetch(
      `${stack.dashboard!.url}/dashboard/report/export?from=${from}&to=${to}&format=xlsx`,
      { headers: { cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } },
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe(XLSX);
    const rows = rowsOf((await workbookOf(await download.arrayBuffer())).worksheets[0]!);
    expect(rows.at(-1)!.slice(0, 3)).toEqual(['total', 2, 3530.5]);
  });
});

describe('why a payment failed, on the dashboard’s list', () => {
  it('says the card network’s decline from its action code, in the page’s language', async () => {
    const failed = (await stack.client(merchant.testKey).listPayments({ status: 'failed' }))
      .payments[0]!;
    // The network answered in the payment's language; the page says it in its own.
    expect(failed.failureReason).toBe('Provision insuffisante');
    const french = await browser.get('/dashboard/payments?status=failed');
    expect(french.html).toContain(
      'Refusé par le réseau de cartes : provision insuffisante (code 116)',
    );
    await browser.post('/dashboard/language', { language: 'ar' });
    const arabic = await browser.get('/dashboard/payments?status=failed');
    expect(arabic.html).toContain('رفضته شبكة البطاقات: رصيد غير كاف (الرمز 116)');
    expect(arabic.html).not.toContain('Provision insuffisante');
    await browser.post('/dashboard/language', { language: 'fr' });
  });
});
