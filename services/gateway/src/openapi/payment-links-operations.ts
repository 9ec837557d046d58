import type { OperationSpec } from './operation-spec.ts';

export const PAYMENT_LINKS_OPERATIONS: readonly OperationSpec[] = [];
