import { describe, expect, it } from 'vitest';
import { xlsxWorkbook } from '../src/xlsx.ts';
import { readWorkbook } from './fixtures.ts';

describe('xlsxWorkbook', () => {
  it('writes typed cells an accountant sums: DZD numbers, Algiers dates, text as text', async () => {
    const bytes = await xlsxWorkbook([
      {
        name: 'Payments: 2026/11',
        header: ['id', 'amount (DZD)', 'paid at (Algiers)', 'count'],
        rows: [
          ['=HYPERLINK("x")', { dzd: 150_050 }, { at: '2026-11-20T10:02:00.000Z' }, 3],
          ['p-2', { dzd: -5 }, { at: null }, null],
        ],
      },
    ]);
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    const sheet = (await readWorkbook(bytes)).worksheets[0]!;
    expect(sheet.name).toBe('Payments  2026 11');
    expect(sheet.getRow(1).values).toEqual([
      undefined,
      'id',
      'amount (DZD)',
      'paid at (Algiers)',
      'count',
    ]);
    const first = sheet.getRow(2);
    // Stored as a string, not a formula: nothing runs when the file opens.
    expect(first.getCell(1).value).toBe('=HYPERLINK("x")');
    expect(first.getCell(1).formula).toBeUndefined();
    expect(first.getCell(2).value).toBe(1500.5);
    expect(first.getCell(2).numFmt).toBe('#,##0.00');
    // 10:02 UTC is 11:02 in Algiers: the wall clock the sheet shows.
    expect((first.getCell(3).value as Date).toISOString()).toBe('2026-11-20T11:02:00.000Z');
    expect(first.getCell(4).value).toBe(3);
    const second = sheet.getRow(3);
    expect(second.getCell(2).value).toBe(-0.05);
    expect(second.getCell(3).value).toBeNull();
  });

  it('keeps formula-looking text as text, and writes bidirectional controls as marks', async () => {
    const texts = ['X;=1+2', 'Y,=1+3', 'a, -2', 'q;@SUM(1)', '+1', '-x'];
    const sheet = (
      await readWorkbook(
        await xlsxWorkbook([
          {
            name: 'Payments',
            header: ['reference'],
            rows: [...texts.map((text) => [text]), ['Facture \u202efdp.exe']],
          },
        ]),
      )
    ).worksheets[0]!;
    texts.forEach((text, index) => {
      const cell = sheet.getRow(index + 2).getCell(1);
      expect(cell.value).toBe(text);
      expect(cell.formula).toBeUndefined();
    });
    expect(sheet.getRow(texts.length + 2).getCell(1).value).toBe('Facture \ufffdfdp.exe');
  });

  it('writes one tab per sheet', async () => {
    const workbook = await readWorkbook(
      await xlsxWorkbook([
        { name: 'Summary', header: ['a'], rows: [] },
        { name: 'Lines', header: ['b'], rows: [['x']] },
      ]),
    );
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Summary', 'Lines']);
  });
});
