import type { OperationSpec } from './operations.ts';

/** The back office's payments routes (issue 14), as the OpenAPI document describes them. */
export const BACK_OFFICE_PAYMENTS_OPERATIONS: readonly OperationSpec[] = [];
