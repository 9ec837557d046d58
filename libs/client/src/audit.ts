import {
  AuditEventsResponse,
  type AuditAction,
  type AuditEventsPage,
  type AuditFamily,
} from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** GET /api/v1/audit-events: a page size (1 to 100, default 20), the cursor, a filter. */
interface AuditEventsOptions {
  limit?: number;
  cursor?: string;
  /** A family (`payment`, `team`, …) or one action (`payment.refund`, …). */
  action?: AuditFamily | AuditAction;
}

/** A merchant's audit log. */
export function auditMethods(transport: ClientTransport) {
  const { call, query } = transport;
  return {
    /**
     * GET /api/v1/audit-events: one page, newest first; pass `nextCursor` back as
     * `cursor`. A key reads its own mode's events (team changes with a live key only).
     */
    async listAuditEvents(options: AuditEventsOptions = {}): Promise<AuditEventsPage> {
      const answer = await call('GET', `/api/v1/audit-events${query(options)}`, {
        status: 200,
        schema: AuditEventsResponse,
      });
      return answer.data;
    },
  };
}
