import { replaceBidiControls } from '@dzpay/contracts';
import ExcelJS from 'exceljs';
import type { Cell } from './csv.ts';

/**
 * XLSX workbooks for an accountant (exceljs): the same cells as the CSV exports, typed
 * so a spreadsheet sums them without any import step. Amounts are numbers in DZD with
 * two decimals shown; instants are dates on Algiers' clock (a spreadsheet's dates have
 * no time zone, so the sheet says which one it uses in its column header); text is
 * stored as text, never read as a formula.
 */
export interface Sheet {
  /** The tab's name (at most 31 characters, no `[]:*?/\`). */
  name: string;
  header: readonly string[];
  rows: readonly (readonly Cell[])[];
}

/** Algiers is UTC+01:00 all year (no daylight saving time). */
const ALGIERS_OFFSET_MS = 3_600_000;
const AMOUNT_FORMAT = '#,##0.00';
const INSTANT_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/** A spreadsheet's date is a wall clock: the instant as Algiers reads it, labelled UTC. */
function algiersWallClock(iso: string): Date {
  return new Date(Date.parse(iso) + ALGIERS_OFFSET_MS);
}

function sheetName(name: string): string {
  return name.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31) || 'Sheet';
}

/** The workbook's bytes: one sheet per entry, its header bold and frozen. */
export async function xlsxWorkbook(sheets: readonly Sheet[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'dzpay';
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheetName(sheet.name), {
      views: [{ state: 'frozen', ySplit: 1 }],
    });
    worksheet.addRow([...sheet.header]).font = { bold: true };
    for (const cells of sheet.rows) {
      const row = worksheet.addRow(cells.map(() => null));
      cells.forEach((value, index) => {
        const target = row.getCell(index + 1);
        if (value === null) return;
        if (typeof value === 'number') {
          target.value = value;
        } else if (typeof value === 'string') {
          // A string stays a string (exceljs writes no formula from it); its bidirectional
          // controls are shown as U+FFFD, so a spreadsheet shows it in its written order.
          target.value = replaceBidiControls(value);
        } else if ('dzd' in value) {
          // Whole centimes to DZD: a number with at most two decimals, shown with both.
          target.value = value.dzd / 100;
          target.numFmt = AMOUNT_FORMAT;
        } else if ('json' in value) {
          target.value = replaceBidiControls(JSON.stringify(value.json));
        } else if (value.at !== null) {
          target.value = algiersWallClock(value.at);
          target.numFmt = INSTANT_FORMAT;
        }
      });
    }
    sheet.header.forEach((title, index) => {
      worksheet.getColumn(index + 1).width = Math.min(Math.max(title.length + 2, 12), 40);
    });
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** The media type of an XLSX file, for Content-Type. */
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
