import type { PaymentsPage } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { algiersInstant } from '../src/csv.ts';
import { paymentsCsv } from '../src/payments-csv.ts';
import { reportCsv } from '../src/report-csv.ts';
import { listItem, NOTHING_THAT_DAY } from './fixtures.ts';

const payment = listItem({
  id: '7b0c9a52-4f8e-4d7b-9a53-3f1d2c4b5a61',
  reference: 'INV;42 "Sétif"',
  language: 'ar',
  expiresAt: '2026-11-20T10:15:00.000Z',
  metadata: { note: 'مكتبة' },
  maskedPan: '628058******0009',
  refundedAmount: 5,
  paidAt: '2026-11-20T23:30:00.000Z',
  updatedAt: '2026-11-20T23:30:00.000Z',
});

async function csvOf(pages: PaymentsPage[], dialect?: 'standard' | 'spreadsheet') {
  let at = 0;
  let text = '';
  for await (const chunk of paymentsCsv(pages[0]!, () => Promise.resolve(pages[++at]!), dialect))
    text += chunk;
  return text;
}

/** The cells of one CSV line: quoted cells may hold the separator and doubled quotes. */
function cellsOf(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quoted && char === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (char === separator && !quoted) {
      cells.push(cell);
      cell = '';
    } else {
      cell += char;
    }
  }
  return [...cells, cell];
}

const column = (text: string, separator: string, row: number, name: string) => {
  const lines = text.replace(/^\uFEFF/, '').split('\r\n');
  const header = cellsOf(lines[0]!, separator);
  return cellsOf(lines[row]!, separator)[header.indexOf(name)];
};

describe('the payments CSV', () => {
  it('standard: commas, decimal points, UTC, no byte-order mark (for programs)', async () => {
    const text = await csvOf([{ payments: [payment], nextCursor: null }]);
    expect(text.startsWith('id,created_at,')).toBe(true);
    expect(column(text, ',', 1, 'amount_dzd')).toBe('1500.50');
    expect(column(text, ',', 1, 'refunded_dzd')).toBe('0.05');
    expect(column(text, ',', 1, 'created_at')).toBe('2026-11-20T10:00:00.000Z');
    // A semicolon is no separator here: the reference is quoted for its quotes only.
    expect(text).toContain('"INV;42 ""Sétif"""');
  });

  it('spreadsheet: a byte-order mark, semicolons, decimal commas, Algiers times', async () => {
    const text = await csvOf(
      [
        { payments: [payment], nextCursor: 'next' },
        { payments: [{ ...payment, paidAt: null, amount: 100 }], nextCursor: null },
      ],
      'spreadsheet',
    );
    expect(text.startsWith('\uFEFFid;created_at;paid_at;')).toBe(true);
    expect(text.split('\uFEFF')).toHaveLength(2);
    expect(column(text, ';', 1, 'amount_dzd')).toBe('1500,50');
    expect(column(text, ';', 1, 'amount_centimes')).toBe('150050');
    expect(column(text, ';', 1, 'created_at')).toBe('2026-11-20T11:00:00+01:00');
    // Paid at 23:30 UTC: already the next day in Algiers, as the reports count it.
    expect(column(text, ';', 1, 'paid_at')).toBe('2026-11-21T00:30:00+01:00');
    expect(column(text, ';', 2, 'paid_at')).toBe('');
    expect(column(text, ';', 2, 'amount_dzd')).toBe('1,00');
    // The separator inside a cell is quoted, Arabic text kept as it is.
    expect(text).toContain('"INV;42 ""Sétif"""');
    expect(text).toContain('مكتبة');
  });

  it('writes an instant as Algiers reads its clock', () => {
    expect(algiersInstant('2026-12-31T23:59:59.999Z')).toBe('2027-01-01T00:59:59+01:00');
    expect(algiersInstant('2026-06-01T12:00:00Z')).toBe('2026-06-01T13:00:00+01:00');
  });
});

describe('the daily report CSV', () => {
  it('writes a row per day and the totals, a negative net as a number', () => {
    const figures = {
      successCount: 2,
      successAmount: 310_100,
      refundCount: 1,
      refundAmount: 400_000,
      feeAmount: 10_000,
      net: -99_900,
    };
    const report = {
      from: '2026-11-20',
      to: '2026-11-21',
      days: [
        { date: '2026-11-20', ...figures },
        { date: '2026-11-21', ...NOTHING_THAT_DAY },
      ],
      totals: figures,
    };
    expect(reportCsv(report, 'spreadsheet')).toBe(
      '\uFEFFday;success_count;success_dzd;refund_count;refund_dzd;fee_dzd;net_dzd\r\n' +
        '2026-11-20;2;3101,00;1;4000,00;100,00;-999,00\r\n' +
        '2026-11-21;0;0,00;0;0,00;0,00;0,00\r\n' +
        'total;2;3101,00;1;4000,00;100,00;-999,00\r\n',
    );
    expect(reportCsv(report, 'standard').split('\r\n')[1]).toBe(
      '2026-11-20,2,3101.00,1,4000.00,100.00,-999.00',
    );
  });
});
