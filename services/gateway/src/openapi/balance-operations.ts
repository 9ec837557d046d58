import type { OperationSpec } from './operation-spec.ts';

export const BALANCE_OPERATIONS: readonly OperationSpec[] = [];
