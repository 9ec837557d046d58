/**
 * Where each dashboard page lives (the header's navigation links). The data pages
 * (pages/*) register these paths through the PageKit; the core registers the rest.
 */
export const DashboardPaths = {
  home: '/dashboard',
  login: '/dashboard/login',
  logout: '/dashboard/logout',
  logoutEverywhere: '/dashboard/logout-everywhere',
  payments: '/dashboard/payments',
  qrCodes: '/dashboard/qr-codes',
  webhooks: '/dashboard/webhooks',
  apiKeys: '/dashboard/api-keys',
  report: '/dashboard/report',
  team: '/dashboard/team',
  paymentLinks: '/dashboard/payment-links',
  balance: '/dashboard/balance',
  audit: '/dashboard/audit',
  webhookDeliveries: '/dashboard/webhooks/deliveries',
  /** Asking for a password reset link, and the link itself: /dashboard/password-reset/<token>. */
  passwordReset: '/dashboard/password-reset',
  /** An invitation link: /dashboard/invite/<token> (no session needed). */
  invite: '/dashboard/invite',
  language: '/dashboard/language',
  mode: '/dashboard/mode',
  stylesheet: '/dashboard/assets/dashboard.css',
} as const;

/**
 * Where a form or the sign-in page may send the browser back to: a dashboard path of
 * ours only (no other host, no protocol-relative `//`, no backslash tricks).
 */
export function safeReturnPath(value: unknown, fallback: string = DashboardPaths.home): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback;
  if (!/^\/dashboard(\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$/.test(value)) return fallback;
  if (value.includes('//') || value.includes('\\')) return fallback;
  return value;
}

/**
 * Where the header's switches return from the page being built: the page itself (with
 * its query) after a GET; after a form, the page the form was on (the Referer, sent
 * same-origin only), since the form's own address may answer POST only.
 */
export function returnPathOf(method: string, url: string, referer: string | undefined): string {
  if (method === 'GET') return safeReturnPath(url);
  if (!referer) return DashboardPaths.home;
  try {
    const parsed = new URL(referer, 'http://dashboard.invalid');
    return safeReturnPath(`${parsed.pathname}${parsed.search}`);
  } catch {
    return DashboardPaths.home;
  }
}
