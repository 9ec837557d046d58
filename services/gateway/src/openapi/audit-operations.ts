import type { OperationSpec } from './operation-spec.ts';

export const AUDIT_OPERATIONS: readonly OperationSpec[] = [];
