import ExcelJS from 'exceljs';

/** A workbook read back with exceljs, from a downloaded file's path or from its bytes. */
export async function workbookOf(
  source: string | Uint8Array | ArrayBuffer,
): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  if (typeof source === 'string') await workbook.xlsx.readFile(source);
  else {
    const bytes = Buffer.from(source instanceof ArrayBuffer ? new Uint8Array(source) : source);
    // exceljs types its bytes as a Buffer of its own (an ArrayBuffer); Node's Buffer loads.
    await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  }
  return workbook;
}
