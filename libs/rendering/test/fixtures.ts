import ExcelJS from 'exceljs';
import type { PaymentListItem } from '@dzpay/contracts';

/** A workbook's bytes read back with exceljs, as an accountant's spreadsheet would open them. */
export async function readWorkbook(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
}

/** A paid checkout payment as the payments list gives it, with `overrides`. */
export const listItem = (overrides: Partial<PaymentListItem> = {}): PaymentListItem => ({
  id: '5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71',
  reference: 'ORDER-1',
  amount: 150_050,
  fees: 50,
  total: 155_050,
  currency: 'DZD',
  language: 'fr',
  expiresAt: '2026-11-20T10:17:00.000Z',
  status: 'success',
  successUrl: null,
  failureUrl: null,
  metadata: { note: 'طلب' },
  orderId: 'ord-1',
  approvalCode: '123456',
  maskedPan: null,
  failureReason: null,
  refundedAmount: 0,
  pendingRefundAmount: 0,
  paidAt: '2026-11-20T10:02:00.000Z',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:02:00.000Z',
  channel: 'CHECKOUT',
  ...overrides,
});

/** The daily report's figures of a day without a sale or a refund. */
export const NOTHING_THAT_DAY = {
  successCount: 0,
  successAmount: 0,
  refundCount: 0,
  refundAmount: 0,
  feeAmount: 0,
  net: 0,
};
