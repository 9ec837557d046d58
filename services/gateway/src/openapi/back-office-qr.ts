import type { OperationSpec } from './operations.ts';

/** The back office's qr routes (issue 14), as the OpenAPI document describes them. */
export const BACK_OFFICE_QR_OPERATIONS: readonly OperationSpec[] = [];
