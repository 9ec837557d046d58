import type { ErrorCode } from '@dzpay/contracts';
import type { z } from 'zod';

// The shape every operation of the OpenAPI document is described in (each resource's
// operations.ts beside its routes, gathered in routes/operations.ts).
/** A response of an operation: a JSON schema with its example, an HTML page, or nothing. */
export type ResponseSpec =
  | { description: string; json: z.ZodType; example: unknown }
  | { description: string; errors: readonly ErrorCode[] }
  | { description: string; shape: 'validation-list' }
  /** 429 of a per-key limit: the API's (RATE_LIMIT_PER_MINUTE) or the status endpoint's. */
  | { description: string; shape: 'rate-limit'; limit?: 'status' }
  | { description: string; html: true }
  | { description: string; redirect: true }
  | { description: string; empty: true }
  /** A body of another media type: CSV, SVG, PNG. */
  | { description: string; media: readonly string[] };

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI path, parameters in braces. */
  path: string;
  operationId: string;
  tag:
    | 'QR configuration'
    | 'QR codes'
    | 'Payments'
    | 'Reports'
    | 'Receipts'
    | 'Webhooks'
    | 'Webhook settings'
    | 'Events'
    | 'Status'
    | 'Payer pages'
    | 'Audit'
    | 'Payment links'
    | 'Balance';
  summary: string;
  description?: string;
  /** Authenticated with x-api-key. */
  apiKey: boolean;
  idempotent?: boolean;
  params?: Record<string, string>;
  /** What each query parameter means, by name. */
  query?: Record<string, string>;
  /**
   * The contracts schema the route parses its query with: each parameter's type, bounds
   * and values in the document are that schema's (integers, enums, formats), so that a
   * generated client sends what the route accepts. Its fields are the `query` names.
   */
  querySchema?: z.ZodObject;
  body?: { schema: z.ZodType; example: unknown; required?: boolean } | { form: string };
  responses: Record<number, ResponseSpec>;
}

/** An HTML page answered to the payer. */
export const page = (description: string) => ({ description, html: true }) as const;

/** An operation of the payer's pages: HTML, no API key. */
export const payerPage = (spec: Omit<OperationSpec, 'tag' | 'apiKey'>): OperationSpec => ({
  ...spec,
  tag: 'Payer pages',
  apiKey: false,
});
