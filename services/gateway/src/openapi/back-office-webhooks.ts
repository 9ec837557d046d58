import type { OperationSpec } from './operations.ts';

/** The back office's webhooks routes (issue 14), as the OpenAPI document describes them. */
export const BACK_OFFICE_WEBHOOKS_OPERATIONS: readonly OperationSpec[] = [];
