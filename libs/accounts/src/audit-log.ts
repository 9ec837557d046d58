import {
  AuditActions,
  AuditFamilies,
  type AuditAction,
  type AuditFamily,
  type Mode,
} from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';

/** Who acted: a dashboard user, an API key, or an operator with the admin CLI. */
export interface AuditActor {
  kind: 'user' | 'api_key' | 'operator';
  /** The user's id, the key's id, the operator's name. */
  id: string;
  /** How it reads to a person: the user's email, the key's prefix, the operator's name. */
  label: string;
}

// The actions and their families are the API's contract (libs/contracts/src/audit.ts),
// re-exported here for the edges that write them.
export { AuditActions, AuditFamilies, type AuditAction, type AuditFamily };

export interface AuditEventInput {
  merchantId: string;
  /** The mode acted in; absent for changes that are not of a mode (the team). */
  mode?: Mode;
  actor: AuditActor;
  action: AuditAction;
  /** What was acted on: a payment id, a key prefix, an email. */
  target?: string;
  /** Anything else worth keeping (amounts in centimes, labels); never a secret. */
  details?: Record<string, unknown>;
}

export interface AuditEvent extends Required<Omit<AuditEventInput, 'mode' | 'target'>> {
  id: string;
  at: Date;
  mode: Mode | null;
  target: string | null;
}

export interface AuditPageQuery {
  merchantId: string;
  limit: number;
  /** Only actions starting with this (`payment.`), or exactly this one. */
  actionPrefix?: string;
  /**
   * Only this mode's events (and, with `modeless`, those of no mode: team changes).
   * Absent: every mode, as the dashboard shows the merchant's whole log.
   */
  mode?: Mode;
  modeless?: boolean;
  /**
   * The page after this event (newest first): the last id of the previous page. Only
   * its id: the row's own time is read back in full precision (microseconds), which a
   * Date would round and so skip or repeat events of the same millisecond.
   */
  after?: { id: string };
}

interface AuditRow {
  id: string;
  merchant_id: string;
  mode: Mode | null;
  at: Date;
  actor_kind: AuditActor['kind'];
  actor_id: string;
  actor_label: string;
  action: AuditAction;
  target: string | null;
  details: Record<string, unknown>;
}

function eventOf(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
    at: row.at,
    actor: { kind: row.actor_kind, id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: row.target,
    details: row.details,
  };
}

/** Escapes LIKE's wildcards, so a prefix is matched as typed. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The audit_events table (gateway migration 010): appended to by whichever edge knew
 * who acted, read newest first by the dashboard and GET /api/v1/audit-events.
 */
export function auditLog(sql: Sql) {
  return {
    async recordAudit(event: AuditEventInput): Promise<void> {
      await sql`
        insert into audit_events
          (merchant_id, mode, actor_kind, actor_id, actor_label, action, target, details)
        values (${event.merchantId}, ${event.mode ?? null}, ${event.actor.kind},
                ${event.actor.id}, ${event.actor.label.slice(0, 300)}, ${event.action},
                ${event.target?.slice(0, 300) ?? null}, ${sql.json((event.details ?? {}) as never)})`;
    },

    /** One page, newest first; `limit` is the caller's, bounded by it. */
    async auditPage(query: AuditPageQuery): Promise<AuditEvent[]> {
      const rows = await sql<AuditRow[]>`
        select id, merchant_id, mode, at, actor_kind, actor_id, actor_label, action, target, details
          from audit_events
         where merchant_id = ${query.merchantId}
           ${query.actionPrefix ? sql`and action like ${likePrefix(query.actionPrefix)}` : sql``}
           ${
             query.mode
               ? query.modeless
                 ? sql`and (mode = ${query.mode} or mode is null)`
                 : sql`and mode = ${query.mode}`
               : sql``
           }
           ${
             query.after
               ? sql`and (at, id) < (select a.at, a.id from audit_events a
                                      where a.id = ${query.after.id}
                                        and a.merchant_id = ${query.merchantId})`
               : sql``
           }
         order by at desc, id desc
         limit ${query.limit}`;
      return rows.map(eventOf);
    },
  };
}

export type AuditLog = ReturnType<typeof auditLog>;
