import { formatDzd, type CheckoutView, type Language } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import { layout, type Page } from './layout.ts';
import { formatTime, LANGUAGE_NAMES, Messages } from './messages.ts';

/** A line of the summary: label and value. */
const row = (label: string, value: string, className = '') =>
  `<dt class="${className}">${escapeHtml(label)}</dt><dd class="${className}">${escapeHtml(value)}</dd>`;

/** Links to the same page in the other languages. */
function languageSwitch(path: string, current: Language): string {
  const links = (Object.keys(LANGUAGE_NAMES) as Language[])
    .filter((language) => language !== current)
    .map(
      (language) =>
        `<a href="${escapeHtml(path)}?lang=${language}" lang="${language}" hreflang="${language}">${LANGUAGE_NAMES[language]}</a>`,
    );
  return `<nav aria-label="${escapeHtml(Messages[current].language)}">${links.join('')}</nav>`;
}

// Counts down to data-expires; without script the page shows the expiry time instead.
const COUNTDOWN = `
  const el = document.getElementById('countdown');
  const end = Date.parse(el.dataset.expires);
  const tick = () => {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    el.textContent = String(Math.floor(left / 60)).padStart(2, '0') + ':' + String(left % 60).padStart(2, '0');
    if (left === 0) location.reload(); else setTimeout(tick, 1000);
  };
  document.getElementById('expiry-label').textContent = el.dataset.label;
  tick();
`;

/** The page a checkout link opens: who is paid, how much, and the way to the card form. */
export function checkoutPage(view: CheckoutView, language: Language, token: string): Page {
  const t = Messages[language];
  const path = `/checkout/${token}`;
  const body = `
<h1>${escapeHtml(t.title)}</h1>
<dl>
  ${row(t.merchant, view.merchantName)}
  ${row(t.reference, view.reference)}
  ${row(t.amount, formatDzd(view.amount, language))}
  ${row(t.fee, formatDzd(view.fees, language))}
  ${row(t.total, formatDzd(view.total, language), 'total')}
</dl>
<p><span id="expiry-label">${escapeHtml(t.expiresAt)}</span>
  <strong id="countdown" data-expires="${escapeHtml(view.expiresAt)}" data-label="${escapeHtml(t.expiresIn)}"
    role="timer" aria-live="off">${escapeHtml(formatTime(view.expiresAt, language))}</strong></p>
<form method="post" action="${escapeHtml(path)}/pay">
  <button type="submit">${escapeHtml(t.pay)} · ${escapeHtml(formatDzd(view.total, language))}</button>
</form>
<p class="note">${escapeHtml(t.cardNote)}</p>
${languageSwitch(path, language)}`;
  return layout({ language, title: t.title, body, script: COUNTDOWN });
}

/** The outcome of a payment, for payers without a merchant URL to return to. */
export function resultPage(view: CheckoutView, language: Language, path: string): Page {
  const t = Messages[language];
  const { heading, className } = outcomeText(view, t);
  const waiting = view.status === 'created' || view.status === 'processing';
  const body = `
<h1>${escapeHtml(view.merchantName)}</h1>
<p class="status ${className}" role="status">${escapeHtml(heading)}</p>
${waiting ? `<p>${escapeHtml(t.processingHint)}</p>` : ''}
<dl>
  ${row(t.reference, view.reference)}
  ${row(t.total, formatDzd(view.total, language), 'total')}
</dl>
${view.redirectUrl ? `<a class="button" href="${escapeHtml(view.redirectUrl)}">${escapeHtml(t.continue)}</a>` : ''}
${languageSwitch(path, language)}`;
  return layout({ language, title: heading, body, ...(waiting ? { refreshSeconds: 3 } : {}) });
}

function outcomeText(view: CheckoutView, t: (typeof Messages)[Language]) {
  switch (view.status) {
    case 'success':
      return { heading: t.success, className: 'success' };
    case 'refunded':
      return { heading: t.refunded, className: '' };
    case 'expired':
      return { heading: t.expired, className: 'failed' };
    case 'cancelled':
    case 'failed':
      return { heading: t.failed, className: 'failed' };
    default:
      return { heading: t.processing, className: '' };
  }
}

/** A page for a link that leads nowhere, a request that cannot be read, or a service that is down. */
export function problemPage(
  kind: 'notFound' | 'badRequest' | 'tooManyRequests' | 'error',
  language: Language,
): Page {
  const t = Messages[language];
  return layout({ language, title: t[kind], body: `<h1>${escapeHtml(t[kind])}</h1>` });
}
