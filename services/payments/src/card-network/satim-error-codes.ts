/**
 * What a BPC errorCode means, per operation: the same number means different things on
 * different calls (5 is "access denied" everywhere, 7 is "system error" on a read but
 * "wrong state or amount" on a refund, 2 on SATIM's confirmOrder.do is "already
 * confirmed"). The table is docs/cardnet-sandbox.md's; it is read by its documented
 * meaning, never as "non-zero means no".
 */
export type ErrorMeaning =
  /** The call did what was asked (0, or SATIM's confirmation codes that carry a verdict). */
  | 'done'
  /** The order the call names does not exist at the network: it can hold no money. */
  | 'order-unknown'
  /** Credentials refused, or the API user must change its password: an operator must act. */
  | 'access-denied'
  /** The order's state or the amount does not allow the operation now. */
  | 'not-allowed'
  /** The request was malformed (a parameter missing or invalid). */
  | 'invalid-request'
  /** register.do: the order number was used before. */
  | 'duplicate-order-number'
  /** The network failed on its side. */
  | 'system-error'
  /** A code this table does not know. */
  | 'unknown';

type Operation =
  | 'register'
  | 'getOrderStatusExtended'
  | 'confirmOrder'
  | 'refund'
  | 'reverse'
  | 'getLastOrdersForMerchants';

const COMMON: Record<string, ErrorMeaning> = {
  '0': 'done',
  '5': 'access-denied',
  '7': 'system-error',
};

const BY_OPERATION: Record<Operation, Record<string, ErrorMeaning>> = {
  register: {
    ...COMMON,
    '1': 'duplicate-order-number',
    '3': 'invalid-request',
    '4': 'invalid-request',
    '13': 'invalid-request',
    '14': 'invalid-request',
  },
  // 1: neither orderId nor orderNumber given (newer BPC documents); 6: order not found.
  getOrderStatusExtended: { ...COMMON, '1': 'invalid-request', '6': 'order-unknown' },
  // SATIM answers 2 for a repeated confirmation of a paid order and 3 for a declined
  // one: both are verdicts, read from the order's status afterwards.
  confirmOrder: { ...COMMON, '2': 'done', '3': 'done', '6': 'order-unknown' },
  refund: { ...COMMON, '6': 'order-unknown', '7': 'not-allowed' },
  reverse: { ...COMMON, '6': 'order-unknown', '7': 'not-allowed' },
  getLastOrdersForMerchants: { ...COMMON, '3': 'invalid-request', '4': 'invalid-request' },
};

export function meaningOf(operation: string, errorCode: string): ErrorMeaning {
  const table = BY_OPERATION[operation as Operation] ?? COMMON;
  return table[errorCode] ?? 'unknown';
}
