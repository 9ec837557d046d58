import type { Language, PaymentView } from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import { money } from './format.ts';
import { paymentPath } from './payments-list-page.ts';
import type { PaymentsText } from './payments-messages.ts';

/** What the confirmation of a refund shows and sends on. */
export interface RefundConfirmView {
  payment: PaymentView;
  /** The amount read from the form, in centimes. */
  centimes: number;
  /** The payment page's form key: the refund is asked once, however often it is sent. */
  idempotencyKey: string;
  csrfField: string;
  language: Language;
}

/**
 * The step between a typed amount and money moving: the amount, what the payer paid (the
 * fee in it, which a full refund returns too), what was refunded already and what is
 * left after this one. Only its form makes the refund.
 */
export function refundConfirmHtml(view: RefundConfirmView, text: PaymentsText): string {
  const { payment, centimes, language } = view;
  const dzd = (amount: number) => e(money(amount, language));
  const amount = money(centimes, language);
  const decimal = `${Math.trunc(centimes / 100)}.${String(centimes % 100).padStart(2, '0')}`;
  return `<section class="card" aria-labelledby="confirm-refund"><h2 id="confirm-refund">${e(text.refundConfirmTitle)}</h2>
<p><strong>${e(text.refundConfirmLead(amount, payment.reference))}</strong></p>
<dl class="fields">
<dt>${e(text.refundTotalPaid)}</dt><dd>${dzd(payment.total)}</dd>
<dt>${e(text.refundAlready)}</dt><dd>${dzd(payment.refundedAmount)}</dd>
<dt>${e(text.refundLeftAfter)}</dt><dd>${dzd(payment.total - payment.refundedAmount - centimes)}</dd>
</dl>
<p class="muted">${e(text.refundFeeIncluded(money(payment.fees * 100, language)))}</p>
<form method="post" action="${paymentPath(payment.id)}/refund" class="refund-confirm">${view.csrfField}
<input type="hidden" name="amount" value="${decimal}">
<input type="hidden" name="idempotencyKey" value="${e(view.idempotencyKey)}">
<input type="hidden" name="confirmed" value="yes">
<button type="submit" class="danger">${e(text.refundConfirmSubmit(amount))}</button></form>
<p><a href="${paymentPath(payment.id)}">${e(text.refundBack)}</a></p></section>`;
}
