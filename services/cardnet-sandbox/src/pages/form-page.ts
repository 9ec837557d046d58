import type { CardFormError } from '../domain/card.ts';
import type { Order } from '../domain/order.ts';
import { escapeHtml, page } from './html.ts';
import { formatAmount, MESSAGES } from './messages.ts';

/**
 * The card form of an order, in its language. It works without JavaScript: a plain
 * POST to /payment/merchants/pay, written relative so a proxy's path prefix is kept. After an invalid submit it comes back with the error
 * and the cardholder name; the PAN and CVV2 are never written back into a page.
 */
export function renderFormPage(
  order: Order,
  retry: { error: CardFormError; cardholderName: string } | null = null,
): string {
  const m = MESSAGES[order.language];
  const e = escapeHtml;
  const error = retry ? `<p class="error" role="alert">${e(m.errors[retry.error])}</p>` : '';
  const description = order.description
    ? `<dt>${e(m.description)}</dt><dd>${e(order.description)}</dd>`
    : '';
  const body = `<h1>${e(m.title)}</h1>
<dl>
<dt>${e(m.merchantOrder)}</dt><dd>${e(order.orderNumber)}</dd>
<dt>${e(m.amount)}</dt><dd>${e(formatAmount(order.amount, order.language))}</dd>
${description}
</dl>
${error}
<form method="post" action="pay" autocomplete="on">
<input type="hidden" name="mdOrder" value="${e(order.orderId)}">
<label for="pan">${e(m.pan)}</label>
<input id="pan" name="pan" inputmode="numeric" autocomplete="cc-number" maxlength="23" required dir="ltr">
<div class="row">
<div><label for="expiry">${e(m.expiry)}</label>
<input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" maxlength="7" required dir="ltr"></div>
<div><label for="cvv">${e(m.cvv)}</label>
<input id="cvv" name="cvv" type="password" inputmode="numeric" autocomplete="cc-csc" maxlength="3" required dir="ltr"></div>
</div>
<label for="cardholderName">${e(m.cardholderName)}</label>
<input id="cardholderName" name="cardholderName" autocomplete="cc-name" maxlength="64" required value="${e(retry?.cardholderName ?? '')}">
<button type="submit">${e(m.pay)} ${e(formatAmount(order.amount, order.language))}</button>
</form>
<p class="note">${e(m.sandboxNote)}</p>`;
  return page(order.language, m.title, body);
}

/** An unknown mdOrder: the language is unknown too, so the page says it in all three. */
export function renderNotFoundPage(): string {
  return page(
    'en',
    'Order not found',
    `<h1>Order not found</h1>
<p>Order not found · Commande introuvable · <span lang="ar" dir="rtl">الطلب غير موجود</span></p>`,
  );
}
