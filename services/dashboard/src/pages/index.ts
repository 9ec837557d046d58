import type { PageKit } from '../page-kit.ts';
import { askOver, type Ask } from './ask.ts';
import { registerBalancePages } from './balance-pages.ts';
import { registerPaymentLinkPages } from './payment-link-pages.ts';
import { registerPaymentActions } from './payment-actions.ts';
import { registerPaymentPage } from './payment-page.ts';
import { registerPaymentsExport } from './payments-export.ts';
import { registerPaymentsList } from './payments-list-page.ts';
import { registerQrPages } from './qr-pages.ts';
import { registerReportPage } from './report-page.ts';

/**
 * The dashboard pages over merchant data: payments and a payment, QR codes, the daily
 * report. Called by the dashboard's core once sessions and the layout are in place.
 * `ask` is the NATS operations' door; tests hand their own.
 */
export function registerDataPages(kit: PageKit, ask: Ask = askOver(kit.deps)): void {
  // The export is registered before the payment page: /payments/export is no payment id.
  registerPaymentsExport(kit, ask);
  registerPaymentsList(kit, ask);
  registerPaymentPage(kit, ask);
  registerPaymentActions(kit, ask);
  registerQrPages(kit, ask);
  registerReportPage(kit, ask);
  registerPaymentLinkPages(kit, ask);
  registerBalancePages(kit, ask);
}
