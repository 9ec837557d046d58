import { DashboardRoles, type DashboardRole } from '@dzpay/accounts';
import { DashboardPaths } from './navigation.ts';

/**
 * Who may open each dashboard page and use each form: one table, checked by the core for
 * every route it serves (kit.ts's guard), read by the navigation (layout.ts) and by pages
 * that hide the forms a role cannot use. docs/team.md explains the choices.
 *
 * A row names a method and a path pattern as routes are written (`:id` stands for one
 * segment), or a prefix ending in `/*` (one segment or more below it). The first row
 * that matches decides, so specific rows come before general ones. A route with no row
 * is open to owners and admins only (deny by default); a unit test requires a row for
 * every registered route, so the default is a safety net, not a decision.
 */

export type { DashboardRole };
type PermissionMethod = 'GET' | 'POST';

interface PermissionRow {
  method: PermissionMethod;
  path: string;
  roles: readonly DashboardRole[];
}

const EVERYONE: readonly DashboardRole[] = DashboardRoles;
const MANAGERS: readonly DashboardRole[] = ['owner', 'admin'];
/** API keys, webhooks, and what an integration needs to see. */
const BUILDERS: readonly DashboardRole[] = ['owner', 'admin', 'developer'];
/** Money read and exported: payments' sums, the report, the balance, the log. */
const BOOKS: readonly DashboardRole[] = ['owner', 'admin', 'accountant'];

/** Who may do what when a route has no row: the managers alone. */
export const DEFAULT_ROLES: readonly DashboardRole[] = MANAGERS;

const P = DashboardPaths;
const row = (method: PermissionMethod, path: string, roles: readonly DashboardRole[]) => ({
  method,
  path,
  roles,
});

export const PERMISSIONS: readonly PermissionRow[] = [
  // The session itself: anyone signed in switches mode and language and signs out.
  row('GET', P.home, EVERYONE),
  row('GET', `${P.home}/`, EVERYONE),
  row('POST', P.mode, EVERYONE),
  row('POST', P.language, EVERYONE),
  row('POST', P.logout, EVERYONE),
  row('POST', P.logoutEverywhere, EVERYONE),

  // Payments: everyone reads them and downloads the list; only managers move money or
  // email receipts; a webhook sent again is an integration's business.
  row('GET', P.payments, EVERYONE),
  row('GET', `${P.payments}/export`, EVERYONE),
  row('GET', `${P.payments}/export/*`, EVERYONE),
  row('GET', `${P.payments}/:id`, EVERYONE),
  row('POST', `${P.payments}/:id/refund/confirm`, MANAGERS),
  row('POST', `${P.payments}/:id/refund`, MANAGERS),
  row('POST', `${P.payments}/:id/cancel`, MANAGERS),
  row('POST', `${P.payments}/:id/receipt`, MANAGERS),
  row('POST', `${P.payments}/:id/deliveries/:deliveryId/replay`, BUILDERS),

  // Payment links: everyone sees them (and their QR images); managers make and end them.
  row('GET', P.paymentLinks, EVERYONE),
  row('GET', `${P.paymentLinks}/*`, EVERYONE),
  row('POST', P.paymentLinks, MANAGERS),
  row('POST', `${P.paymentLinks}/*`, MANAGERS),

  // QR codes: everyone sees and prints them; their amounts are set by those who may set
  // them with an API key anyway.
  row('GET', P.qrCodes, EVERYONE),
  row('GET', `${P.qrCodes}/*`, EVERYONE),
  row('POST', `${P.qrCodes}/*`, BUILDERS),

  // The books: report, balance and statements, the audit log (and their downloads).
  row('GET', P.report, BOOKS),
  row('GET', `${P.report}/*`, BOOKS),
  row('GET', P.balance, BOOKS),
  row('GET', `${P.balance}/*`, BOOKS),
  row('GET', P.audit, BOOKS),
  row('GET', `${P.audit}/*`, BOOKS),

  // Integration: webhooks (settings, secret, test, every delivery and its resend) and keys.
  row('GET', P.webhookDeliveries, BUILDERS),
  row('GET', `${P.webhookDeliveries}/*`, BUILDERS),
  row('POST', `${P.webhookDeliveries}/*`, BUILDERS),
  row('GET', P.webhooks, BUILDERS),
  row('POST', P.webhooks, BUILDERS),
  row('POST', `${P.webhooks}/*`, BUILDERS),
  row('GET', P.apiKeys, BUILDERS),
  row('POST', P.apiKeys, BUILDERS),
  row('GET', `${P.apiKeys}/*`, BUILDERS),
  row('POST', `${P.apiKeys}/*`, BUILDERS),

  // The team: everyone sees who is in it (and may end their own sessions everywhere);
  // only managers invite, revoke, change roles, disable and enable (pages/team-rules.ts adds
  // what an admin may not do to owners).
  row('GET', P.team, EVERYONE),
  row('POST', `${P.team}/*`, MANAGERS),
];

function segmentsOf(path: string): string[] {
  const bare = path.split('?')[0] ?? '';
  const trimmed = bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
  return trimmed.split('/');
}

/** Whether a row's pattern covers a path (a concrete one, or a route's own pattern). */
function covers(pattern: string, path: string): boolean {
  const wanted = segmentsOf(pattern);
  const given = segmentsOf(path);
  const wildcard = wanted.at(-1) === '*';
  const fixed = wildcard ? wanted.slice(0, -1) : wanted;
  if (wildcard ? given.length <= fixed.length : given.length !== fixed.length) return false;
  return fixed.every((segment, index) => segment.startsWith(':') || segment === given[index]);
}

/** The row deciding a method and path (HEAD is GET), or undefined when none does. */
export function permissionRowOf(method: string, path: string): PermissionRow | undefined {
  const asked = method === 'HEAD' ? 'GET' : method;
  return PERMISSIONS.find((entry) => entry.method === asked && covers(entry.path, path));
}

/** The roles allowed a method and path: its row's, or the managers alone. */
export function rolesFor(method: string, path: string): readonly DashboardRole[] {
  return permissionRowOf(method, path)?.roles ?? DEFAULT_ROLES;
}

/** Whether a role may use a method and path (a concrete path or a route pattern). */
export function allows(role: DashboardRole, method: string, path: string): boolean {
  return rolesFor(method, path).includes(role);
}
