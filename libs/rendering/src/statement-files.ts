import type { Mode, StatementFormat } from '@dzpay/contracts';
import { XLSX_MEDIA_TYPE } from './xlsx.ts';

/** Content-Type of each statement format. */
export const STATEMENT_MEDIA_TYPES: Record<StatementFormat, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv; charset=utf-8',
  xlsx: XLSX_MEDIA_TYPE,
};

/** statement-live-2026-03.pdf: the mode in the name, so test and live files never mix. */
export function statementFileName(month: string, mode: Mode, format: StatementFormat): string {
  return `statement-${mode}-${month}.${format}`;
}
