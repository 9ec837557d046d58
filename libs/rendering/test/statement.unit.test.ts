import type { BalanceFigures, StatementReply } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import {
  pdfAmount,
  statementCsv,
  statementFileName,
  statementPdf,
  statementXlsx,
} from '../src/index.ts';
import { formulasIn } from './csv-readings.ts';
import { readWorkbook } from './fixtures.ts';

const zero: BalanceFigures = {
  capturedCount: 0,
  captured: 0,
  fees: 0,
  refundCount: 0,
  refunds: 0,
  net: 0,
  payoutCount: 0,
  paidOut: 0,
  balance: 0,
};

/** March 2026: 1 000 DZD opening, a sale on the 2nd, a refund and a payout on the 3rd. */
const statement: StatementReply = {
  month: '2026-03',
  from: '2026-03-01',
  to: '2026-03-03',
  asOf: '2026-03-31T22:00:00.000Z',
  openingBalance: 100_000,
  days: [
    { date: '2026-03-01', ...zero, balance: 100_000 },
    {
      date: '2026-03-02',
      ...zero,
      capturedCount: 1,
      captured: 151_550,
      fees: 1_500,
      net: 150_050,
      balance: 250_050,
    },
    {
      date: '2026-03-03',
      ...zero,
      refundCount: 1,
      refunds: 50_000,
      net: -50_000,
      payoutCount: 1,
      paidOut: 200_000,
      balance: 50,
    },
  ],
  totals: {
    capturedCount: 1,
    captured: 151_550,
    fees: 1_500,
    refundCount: 1,
    refunds: 50_000,
    net: 100_050,
    payoutCount: 1,
    paidOut: 200_000,
    balance: 50,
  },
  payouts: [
    {
      id: '33333333-3333-4333-8333-333333333333',
      mode: 'live',
      amount: 200_000,
      wallet: 'W-1',
      reference: '=BNA-2026-0003',
      recordedAt: '2026-03-03T09:30:00.000Z',
    },
  ],
};

describe('the statement as CSV', () => {
  it('is opening, every day, total: the spreadsheet dialect for Excel in French', () => {
    const text = statementCsv(statement, 'spreadsheet');
    expect(text.startsWith('\uFEFFday;payment_count;captured_dzd;')).toBe(true);
    const lines = text.slice(1).trimEnd().split('\r\n');
    expect(lines).toEqual([
      'day;payment_count;captured_dzd;fees_dzd;refund_count;refunds_dzd;net_dzd;payout_count;paid_out_dzd;balance_dzd',
      'opening;;;;;;;;;1000,00',
      '2026-03-01;0;0,00;0,00;0;0,00;0,00;0;0,00;1000,00',
      '2026-03-02;1;1515,50;15,00;0;0,00;1500,50;0;0,00;2500,50',
      '2026-03-03;0;0,00;0,00;1;500,00;-500,00;1;2000,00;0,50',
      'total;1;1515,50;15,00;1;500,00;1000,50;1;2000,00;0,50',
    ]);
  });

  it('the standard dialect for programs: commas and decimal points, no BOM', () => {
    const text = statementCsv(statement, 'standard');
    expect(text.split('\r\n')[1]).toBe('opening,,,,,,,,,1000.00');
  });

  it('quotes and neutralises text holding either separator, read by either one', () => {
    // The days are the table's only text besides its own labels: each goes through the
    // writer's text rule, as any text column added later would.
    const days = ['X;=1+2', 'Y,=1+3', 'a, -2', 'q;@SUM(1)'];
    const hostile: StatementReply = {
      ...statement,
      days: statement.days.map((day, index) => ({ ...day, date: days[index] ?? day.date })),
    };
    for (const dialect of ['standard', 'spreadsheet'] as const) {
      const text = statementCsv(hostile, dialect);
      expect(formulasIn(text), dialect).toEqual([]);
      for (const written of ['"X;\'=1+2"', '"Y,\'=1+3"', '"a, \'-2"'])
        expect(text, dialect).toContain(written);
    }
    expect(statementCsv(hostile, 'spreadsheet').split('\r\n')[4]).toBe(
      '"a, \'-2";0;0,00;0,00;1;500,00;-500,00;1;2000,00;0,50',
    );
  });
});

describe('the statement as XLSX', () => {
  it('opens in exceljs: days with DZD numbers, payouts with their references as text', async () => {
    const bytes = await statementXlsx(statement, 'fr');
    const [days, payouts] = (await readWorkbook(bytes)).worksheets;
    expect(days!.name).toBe('Par jour 2026-03');
    expect(days!.getRow(1).getCell(10).value).toBe('Solde (DZD)');
    expect(days!.getRow(2).values).toEqual([
      undefined,
      'Ouverture',
      ...Array<undefined>(8).fill(undefined),
      1000,
    ]);
    expect(days!.getRow(4).getCell(3).value).toBe(1515.5);
    expect(days!.getRow(6).getCell(1).value).toBe('Total');
    expect(days!.getRow(6).getCell(10).value).toBe(0.5);
    expect(payouts!.getRow(2).getCell(2).value).toBe('=BNA-2026-0003');
    expect(payouts!.getRow(2).getCell(4).value).toBe(2000);
    const arabic = await statementXlsx(statement, 'ar');
    expect((await readWorkbook(arabic)).worksheets[0]!.getRow(1).getCell(1).value).toBe('اليوم');
  });
});

describe('the statement as PDF', () => {
  it('is a PDF document, in French for an Arabic ask', async () => {
    const bytes = await statementPdf(
      statement,
      { merchantId: '11111111-1111-4111-8111-111111111111', merchantName: 'مكتبة', mode: 'live' },
      'ar',
    );
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.subarray(-6).toString()).toContain('%%EOF');
    expect(bytes.length).toBeGreaterThan(1_000);
  });

  it('writes amounts by integer arithmetic, grouped the language’s way', () => {
    expect(pdfAmount(150_050, 'fr')).toBe('1 500,50 DZD');
    expect(pdfAmount(123_456_789, 'en')).toBe('1,234,567.89 DZD');
    expect(pdfAmount(-5, 'fr')).toBe('-0,05 DZD');
    expect(pdfAmount(29, 'en')).toBe('0.29 DZD');
  });

  it('names its files by mode and month', () => {
    expect(statementFileName('2026-03', 'live', 'xlsx')).toBe('statement-live-2026-03.xlsx');
  });
});
