import { AuditFamilies, type AuditFamily } from '@dzpay/accounts';
import { AuditMessages } from './audit-messages.ts';
import { auditPageHtml } from './audit-views.ts';
import { DashboardPaths } from '../navigation.ts';
import type { PageKit } from '../page-kit.ts';
import { fieldOf } from './form.ts';
import { pageLinks } from './pagination.ts';
import type { DashboardDeps } from '../settings.ts';

/** Events one page of the activity log shows. */
const AUDIT_PAGE_SIZE = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function familyOf(value: string | undefined): AuditFamily | null {
  return (AuditFamilies as readonly string[]).includes(value ?? '') ? (value as AuditFamily) : null;
}

/**
 * The audit log: who refunded, cancelled, issued a key, changed the webhooks or the
 * team, newest first, of every mode (an action says its own), filtered by family, a page
 * at a time. Read straight from the accounts schema, where every edge writes it.
 */
export function auditPages(kit: PageKit, dash: DashboardDeps): void {
  kit.get(DashboardPaths.audit, async (context) => {
    const query = context.request.query;
    const family = familyOf(fieldOf(query, 'family'));
    const typed = fieldOf(query, 'cursor');
    // A cursor is the last event's id of the page before; anything else starts over.
    const cursor = typed && UUID.test(typed) ? typed : undefined;
    const rows = await dash.accounts.auditPage({
      merchantId: context.session.merchantId,
      limit: AUDIT_PAGE_SIZE + 1,
      ...(family ? { actionPrefix: `${family}.` } : {}),
      ...(cursor ? { after: { id: cursor } } : {}),
    });
    const events = rows.slice(0, AUDIT_PAGE_SIZE);
    const nextCursor = rows.length > AUDIT_PAGE_SIZE ? (events.at(-1)?.id ?? null) : null;
    return context.page(
      AuditMessages[context.language].title,
      auditPageHtml({
        language: context.language,
        family,
        events,
        links: pageLinks(cursor, fieldOf(query, 'back'), nextCursor),
      }),
    );
  });
}
