import type { DailyReportReply, PaymentsPage } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { ExportTooLarge, paymentsXlsx } from '../src/payments-xlsx.ts';
import { reportXlsx } from '../src/report-xlsx.ts';
import { listItem, NOTHING_THAT_DAY, readWorkbook } from './fixtures.ts';

describe('paymentsXlsx', () => {
  it('refuses more payments than a workbook is built for, before reading further pages', async () => {
    const asked: string[] = [];
    const page = (cursor: string | null): PaymentsPage => ({
      payments: [listItem(), listItem({ id: '6e2f1d3f-9c5b-4d8f-b2a4-7f3c0e1d5b82' })],
      nextCursor: cursor,
    });
    const refused = paymentsXlsx(
      page('c1'),
      (cursor) => {
        asked.push(cursor);
        return Promise.resolve(page(cursor === 'c1' ? 'c2' : null));
      },
      3,
    );
    await expect(refused).rejects.toBeInstanceOf(ExportTooLarge);
    await expect(refused).rejects.toThrow(/more than 3 payments match/);
    // The second page tipped it over; the third was never asked.
    expect(asked).toEqual(['c1']);
    // Exactly at the bound it is written.
    await expect(
      paymentsXlsx(page(null), () => Promise.reject(new Error('no')), 2),
    ).resolves.toBeInstanceOf(Buffer);
  });

  it('writes every page with typed cells, a total of the paid payments and a Totals sheet', async () => {
    const first: PaymentsPage = {
      payments: [
        listItem({ refundedAmount: 20_000, status: 'refunded' }),
        listItem({
          id: '6e2f1d3f-9c5b-4d8f-b2a4-7f3c0e1d5b82',
          reference: '=SUM(A1)',
          status: 'failed',
          paidAt: null,
          failureReason: 'declined (action code 116)',
        }),
      ],
      nextCursor: 'c1',
    };
    const asked: string[] = [];
    const bytes = await paymentsXlsx(first, (cursor) => {
      asked.push(cursor);
      return Promise.resolve({
        payments: [
          listItem({ id: '7a3b2c1d-0e9f-4a8b-9c7d-6e5f4a3b2c1d', amount: 99, total: 5_099 }),
        ],
        nextCursor: null,
      });
    });
    expect(asked).toEqual(['c1']);
    const workbook = await readWorkbook(bytes);
    expect(workbook.worksheets.map((s) => s.name)).toEqual(['Payments', 'Totals']);
    const sheet = workbook.getWorksheet('Payments')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const col = (name: string) => header.indexOf(name) + 1;
    expect(sheet.rowCount).toBe(5);
    const paid = sheet.getRow(2);
    expect(paid.getCell(col('amount (DZD)')).value).toBe(1500.5);
    expect(paid.getCell(col('amount (DZD)')).numFmt).toBe('#,##0.00');
    expect(paid.getCell(col('fee (DZD)')).value).toBe(50);
    expect(paid.getCell(col('refunded (DZD)')).value).toBe(200);
    // 10:02 UTC is 11:02 on Algiers' clock.
    expect((paid.getCell(col('paid_at (Algiers)')).value as Date).toISOString()).toBe(
      '2026-11-20T11:02:00.000Z',
    );
    expect(paid.getCell(col('metadata')).value).toBe('{"note":"طلب"}');
    const failed = sheet.getRow(3);
    expect(failed.getCell(col('reference')).value).toBe('=SUM(A1)');
    expect(failed.getCell(col('reference')).formula).toBeUndefined();
    expect(failed.getCell(col('paid_at (Algiers)')).value).toBeNull();
    // The failed payment was never charged: the totals leave it out.
    const total = sheet.getRow(5);
    expect(total.getCell(1).value).toBe('total (paid)');
    expect(total.getCell(col('status')).value).toBe(2);
    expect(total.getCell(col('amount (DZD)')).value).toBe(1500.5 + 0.99);
    expect(total.getCell(col('total (DZD)')).value).toBe(1550.5 + 50.99);
    expect(total.getCell(col('refunded (DZD)')).value).toBe(200);
    const totals = workbook.getWorksheet('Totals')!;
    const figures: Record<string, unknown> = Object.fromEntries(
      totals
        .getSheetValues()
        .slice(2)
        .map((row) => (row as unknown[]).slice(1, 3) as [string, unknown]),
    );
    expect(figures).toEqual({
      payments: 3,
      'paid payments': 2,
      'amount paid (DZD)': 1501.49,
      'fees (DZD)': 100,
      'total charged (DZD)': 1601.49,
      'refunded (DZD)': 200,
      'net (DZD)': 1301.49,
    });
  });
});

describe('reportXlsx', () => {
  it('writes a row per Algiers day and the totals, counts and DZD as numbers', async () => {
    const busy = {
      successCount: 2,
      successAmount: 310_100,
      refundCount: 1,
      refundAmount: 100_000,
      feeAmount: 10_000,
      net: 200_100,
    };
    const report: DailyReportReply = {
      from: '2026-11-01',
      to: '2026-11-02',
      days: [
        { date: '2026-11-01', ...NOTHING_THAT_DAY },
        { date: '2026-11-02', ...busy },
      ],
      totals: busy,
    };
    const sheet = (await readWorkbook(await reportXlsx(report))).worksheets[0]!;
    expect(sheet.name).toBe('Report 2026-11-01 to 2026-11-02');
    expect(
      sheet
        .getSheetValues()
        .slice(1)
        .map((row) => (row as unknown[]).slice(1)),
    ).toEqual([
      [
        'day (Algiers)',
        'success_count',
        'success (DZD)',
        'refund_count',
        'refunds (DZD)',
        'fees (DZD)',
        'net (DZD)',
      ],
      ['2026-11-01', 0, 0, 0, 0, 0, 0],
      ['2026-11-02', 2, 3101, 1, 1000, 100, 2001],
      ['total', 2, 3101, 1, 1000, 100, 2001],
    ]);
    expect(sheet.getRow(4).getCell(3).numFmt).toBe('#,##0.00');
  });
});
