import type { PaymentsPage } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { algiersInstant } from '../src/csv.ts';
import { paymentsCsv } from '../src/payments-csv.ts';
import { reportCsv } from '../src/report-csv.ts';
import { fieldsOf, formulasIn } from './csv-readings.ts';
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

/** Text cells that start a formula only once a spreadsheet splits them on the other separator. */
const hostile = listItem({
  reference: 'X;=1+2',
  orderId: 'Y,=1+3',
  failureReason: 'a, -2',
  approvalCode: 'q;@SUM(1)',
  metadata: { note: 'b; =3' },
});

describe('the payments CSV read by either separator', () => {
  it('the readings catch a formula that only the other separator reveals', () => {
    expect(formulasIn('id,reference\r\n1,X;=1+2\r\n')).toEqual([
      { reading: 'RFC 4180 by ";"', field: '=1+2' },
      { reading: 'split on ";"', field: '=1+2' },
    ]);
  });

  for (const [dialect, separator] of [
    ['standard', ','],
    ['spreadsheet', ';'],
  ] as const) {
    it(`${dialect}: every cell holding either separator is quoted, and no reading runs a formula`, async () => {
      const text = await csvOf([{ payments: [hostile], nextCursor: null }], dialect);
      expect(formulasIn(text)).toEqual([]);
      for (const written of ['"X;\'=1+2"', '"Y,\'=1+3"', '"a, \'-2"', '"q;\'@SUM(1)"'])
        expect(text).toContain(written);
      // Read by its own separator, each cell is whole, only the apostrophe added.
      const fields = fieldsOf(text, separator);
      for (const cell of ["X;'=1+2", "Y,'=1+3", "a, '-2", "q;'@SUM(1)"])
        expect(fields).toContain(cell);
      expect(column(text, separator, 1, 'amount_dzd')).toBe(
        dialect === 'standard' ? '1500.50' : '1500,50',
      );
    });
  }
});

describe('the payments CSV’s metadata', () => {
  it('stays valid JSON of the same value, quoted, and starts no formula in any reading', async () => {
    const metadata = {
      list: [1, -2],
      note: 'b; =3',
      to: 'a,+1',
      at: 'x,@y',
      spoof: 'f\u202edp',
      q: 'say "hi"',
    };
    for (const dialect of ['standard', 'spreadsheet'] as const) {
      const separator = dialect === 'standard' ? ',' : ';';
      const text = await csvOf([{ payments: [listItem({ metadata })], nextCursor: null }], dialect);
      // A naive split on "," can cut a negative number out of a JSON array (`-2]`): a
      // number and closing brackets, which call nothing. Anything else would be a formula.
      const numberPieces = /^-\d+(\.\d+)?([eE][+-]?\d+)?[\]}]*$/;
      const found = formulasIn(text).filter(({ field }) => !numberPieces.test(field));
      expect(found, dialect).toEqual([]);
      expect(JSON.parse(column(text, separator, 1, 'metadata')!), dialect).toEqual(metadata);
    }
  });
});

describe('the payments CSV and bidirectional controls', () => {
  it('writes each as a mark in both dialects, so no spreadsheet reorders a reference', async () => {
    // An agency payment's reference is what the payer typed: never refused at input.
    const spoofed = listItem({ reference: 'Facture \u202efdp.exe', orderId: 'o-\u20661\u2069' });
    for (const dialect of ['standard', 'spreadsheet'] as const) {
      const text = await csvOf([{ payments: [spoofed], nextCursor: null }], dialect);
      expect(text, dialect).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(text, dialect).toContain('Facture \ufffdfdp.exe');
      expect(text, dialect).toContain('o-\ufffd1\ufffd');
    }
  });
});

describe('the daily report CSV', () => {
  it('quotes and neutralises a day holding either separator, in both dialects', () => {
    // Its only text is the day: the one cell that goes through the writer's text rule.
    const report = {
      from: '2026-11-20',
      to: '2026-11-21',
      days: [
        { date: 'X;=1+2', ...NOTHING_THAT_DAY },
        { date: 'a, -2', ...NOTHING_THAT_DAY, net: -99_900 },
      ],
      totals: { ...NOTHING_THAT_DAY, net: -99_900 },
    };
    for (const dialect of ['standard', 'spreadsheet'] as const) {
      const text = reportCsv(report, dialect);
      expect(formulasIn(text), dialect).toEqual([]);
      expect(text).toContain('"X;\'=1+2"');
      expect(text).toContain('"a, \'-2"');
    }
    // Amounts stay numbers, a negative one included.
    expect(reportCsv(report, 'spreadsheet').split('\r\n')[2]).toBe(
      '"a, \'-2";0;0,00;0;0,00;0,00;-999,00',
    );
  });

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
