import type { AuditAction } from '@dzpay/accounts';
import type { PageContext } from '../page-kit.ts';
import type { DashboardDeps } from '../settings.ts';

/** What a dashboard page records after an action succeeded. */
export interface DashboardAuditEntry {
  action: AuditAction;
  /** What was acted on: a payment id, a key prefix, an email. */
  target?: string;
  /** Amounts in centimes, roles, labels: never a secret. */
  details?: Record<string, unknown>;
  /** Team changes are of no mode; everything else is of the mode shown. */
  withoutMode?: boolean;
}

/**
 * Writes who did what, as the signed-in user, once the action is done. The action has
 * happened whatever this write does: a failure is logged at error level (an alert's
 * business) and the page still says what was done, so nobody repeats a refund because
 * its log line failed.
 */
export async function recordDashboardAudit(
  dash: DashboardDeps,
  context: PageContext,
  entry: DashboardAuditEntry,
): Promise<void> {
  const { session } = context;
  try {
    await dash.accounts.recordAudit({
      merchantId: session.merchantId,
      ...(entry.withoutMode ? {} : { mode: context.scope.mode }),
      actor: { kind: 'user', id: session.userId, label: session.email },
      action: entry.action,
      ...(entry.target === undefined ? {} : { target: entry.target }),
      ...(entry.details === undefined ? {} : { details: entry.details }),
    });
  } catch (error) {
    context.request.log.error(
      { err: error, action: entry.action, merchantId: session.merchantId },
      'audit event not recorded',
    );
  }
}

/**
 * A URL as the log keeps it: origin and path only. A partner may put a token in the
 * query or credentials before the host; neither belongs in a log others read.
 */
export function safeUrlOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
