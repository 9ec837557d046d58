/** The names and scope of the dashboard's cookies. */
export interface DashboardCookies {
  /** The session's random id, once signed in. */
  session: string;
  /** The nonce behind the CSRF token of the forms shown before a session exists. */
  form: string;
  /**
   * A random token naming this browser once it signed in: strangers' failed sign-ins do
   * not lock out a known device (login-throttle.ts). Outlives sessions and sign-outs.
   */
  device: string;
  /** The path both cookies are sent for. */
  path: string;
}

/**
 * With Secure cookies (every deployment, behind HTTPS) every name carries the `__Host-`
 * prefix: a browser then accepts them only from this very host over HTTPS, with Path=/
 * and no Domain, so neither a sibling subdomain nor a plain-HTTP answer can plant one.
 * A planted session or form cookie is how someone signs a victim into the planter's own
 * account (login CSRF). Path=/ is what the prefix demands: the gateway on the same host
 * then receives them too, and ignores them (its log redacts cookies), and a path was
 * never a wall between pages of one origin anyway.
 *
 * Plain-HTTP runs (DASHBOARD_COOKIE_SECURE=false, tests and local demos) cannot use the
 * prefix, browsers refuse it without Secure: they keep the plain names under /dashboard.
 */
export function dashboardCookies(secure: boolean): DashboardCookies {
  return secure
    ? {
        session: '__Host-dzpay_dashboard',
        form: '__Host-dzpay_dashboard_form',
        device: '__Host-dzpay_dashboard_device',
        path: '/',
      }
    : {
        session: 'dzpay_dashboard',
        form: 'dzpay_dashboard_form',
        device: 'dzpay_dashboard_device',
        path: '/dashboard',
      };
}
