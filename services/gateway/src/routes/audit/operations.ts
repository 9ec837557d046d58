import {
  AuditActions,
  AuditEventsQuery,
  AuditEventsResponse,
  AuditFamilies,
} from '@dzpay/contracts';
import { API_KEY_RESPONSES, PAGE_QUERY, unavailable } from '../shared/common-responses.ts';
import type { OperationSpec } from '../shared/operation-spec.ts';

// The audit log's tag. Until shared/operation-spec.ts lists 'Audit' among its tags (and
// shared/openapi-document.ts describes it), it is named through this one cast.
const AUDIT_TAG: OperationSpec['tag'] = 'Audit';

const refund = {
  id: '3f0e9d4c-5b6a-4e2f-9a1b-7c8d9e0f1a2b',
  at: '2025-03-14T09:12:30.512Z',
  mode: 'live',
  actor: { kind: 'api_key', id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', label: 'pk_live_Ab3x…' },
  action: 'payment.refund',
  target: '7b0c9a52-4f8e-4d7b-9a53-3f1d2c4b5a61',
  details: { amount: 150050, refundStatus: 'succeeded', paymentStatus: 'success' },
};
const roleChange = {
  id: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d',
  at: '2025-03-14T08:40:02.004Z',
  mode: null,
  actor: { kind: 'user', id: '4c2f7a10-0b1c-4d2e-8f3a-5b6c7d8e9f00', label: 'owner@shop.dz' },
  action: 'team.role_change',
  target: 'nadia@shop.dz',
  details: { from: 'developer', to: 'accountant' },
};

/** The audit log of the merchant API, as the OpenAPI document describes it. */
export const AUDIT_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/audit-events',
    operationId: 'listAuditEvents',
    tag: AUDIT_TAG,
    summary: 'Who refunded, cancelled, issued a key, changed the webhooks or the team, and when',
    description:
      'Newest first, paged by an opaque cursor (stable: events recorded meanwhile never shift later pages). Events are written by whoever acted: a dashboard user (actor.kind user, label their email), an API key (api_key, label its prefix) or an operator of the admin CLI. A key reads the events of its own mode; team changes, which are of no mode (mode null), are read with a live key only. Amounts in details are integer centimes; details never hold a secret. Filter with action: a family (' +
      AuditFamilies.join(', ') +
      ') or one action (' +
      AuditActions.join(', ') +
      ').',
    apiKey: true,
    query: {
      ...PAGE_QUERY,
      action: 'a family (payment, team, …) or one action (payment.refund, …)',
    },
    querySchema: AuditEventsQuery,
    responses: {
      200: {
        description: 'a page of audit events',
        json: AuditEventsResponse,
        example: {
          statusCode: 200,
          message: 'Audit events',
          data: { events: [refund, roleChange], nextCursor: 'NWE2YjdjOGQtOWUwZi00YTFi' },
        },
      },
      400: {
        description:
          'a query parameter is invalid (limit, cursor, action): details.failures names it',
        errors: ['VALIDATION400_BAD_REQUEST'],
      },
      ...API_KEY_RESPONSES,
      503: unavailable('the accounts database'),
    },
  },
];
