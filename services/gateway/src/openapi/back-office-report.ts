import type { OperationSpec } from './operations.ts';

/** The back office's daily report route (issue 14), as the OpenAPI document describes it. */
export const BACK_OFFICE_REPORT_OPERATIONS: readonly OperationSpec[] = [];
