/**
 * BPC's errorCode values. The same number means different things per operation (1 is
 * "order number taken" at register.do, "no order named" at getOrderStatusExtended.do;
 * 2 is "already confirmed" at SATIM's confirmOrder.do), so the names here are the
 * sandbox's uses of each, and `DOCUMENTED_MESSAGES` gives each operation's own text.
 */
export const BpcErrorCode = {
  success: '0',
  /** register: the order number is taken; status: neither orderId nor orderNumber. */
  duplicateOrNoOrder: '1',
  /** confirmOrder: already confirmed (SATIM as observed; BPC's text says "declined"). */
  alreadyConfirmed: '2',
  /** register: unknown currency; confirmOrder: not confirmed because of the order's state. */
  currencyOrState: '3',
  /** register: a required parameter is absent or empty. */
  missingParameter: '4',
  /** Access denied, the user must change the password, or a parameter is wrong. */
  accessOrParameter: '5',
  orderNotFound: '6',
  /** The order's state or the amount forbids the operation; also "system error". */
  notAllowed: '7',
} as const;

export interface BpcError {
  errorCode: string;
  errorMessage: string;
}

export type Params = Readonly<Record<string, string | undefined>>;

/** The REST operations, each `/payment/rest/<operation>.do`. */
export type BpcOperation =
  | 'register'
  | 'getOrderStatusExtended'
  | 'confirmOrder'
  | 'refund'
  | 'reverse'
  | 'getLastOrdersForMerchants';

export const ACCESS_DENIED = 'Access denied';
const SYSTEM_ERROR = 'System error';
const UNREGISTERED_ORDER = 'Unregistered orderId';

/**
 * The English text BPC documents for each operation's codes (the BPC/Sberbank wiki's
 * request pages and its errors page, SATIM's English table): what a fault rule of
 * effect `error-code` answers when it names no message.
 */
export const DOCUMENTED_MESSAGES: Record<BpcOperation, Readonly<Record<string, string>>> = {
  register: {
    '1': 'Order with this number was already processed',
    '3': 'Unknown currency',
    '4': 'Order number is not specified',
    '5': ACCESS_DENIED,
    '7': SYSTEM_ERROR,
    '13': 'Merchant does not have the privilege for this payment',
    '14': 'Paymentway is invalid',
  },
  getOrderStatusExtended: {
    '1': 'Expected [orderId] or [orderNumber]',
    '5': ACCESS_DENIED,
    '6': 'Order not found',
    '7': SYSTEM_ERROR,
  },
  confirmOrder: {
    '2': 'The order is declined because of an error in the payment credentials',
    '3': 'Order is not confirmed due to order’s state',
    '5': ACCESS_DENIED,
    '6': 'Unregistered order Id.',
    '7': SYSTEM_ERROR,
  },
  refund: {
    '5': ACCESS_DENIED,
    '6': UNREGISTERED_ORDER,
    '7': SYSTEM_ERROR,
  },
  reverse: {
    '5': ACCESS_DENIED,
    '6': UNREGISTERED_ORDER,
    '7': SYSTEM_ERROR,
  },
  getLastOrdersForMerchants: {
    '5': ACCESS_DENIED,
    '7': SYSTEM_ERROR,
  },
};

/** BPC's text for `errorCode` on `operation`; a code it does not document gets a plain one. */
export function documentedMessage(operation: BpcOperation, errorCode: string): string {
  return DOCUMENTED_MESSAGES[operation][errorCode] ?? `Error ${errorCode}`;
}

export const bpcError = (errorCode: string, errorMessage: string): BpcError => ({
  errorCode,
  errorMessage,
});

/** register.do: a required parameter absent or empty (4). */
export const missing = (name: string): BpcError =>
  bpcError(BpcErrorCode.missingParameter, `${name} is empty`);

/** A parameter present but wrong: BPC's 5 "Incorrect value of a request parameter". */
export const invalid = (name: string, rule: string): BpcError =>
  bpcError(
    BpcErrorCode.accessOrParameter,
    `Incorrect value of a request parameter: ${name} (${rule})`,
  );

/** A positive integer amount in centimes, written in plain digits. */
export function parseAmount(raw: string): number | null {
  if (!/^\d{1,15}$/.test(raw)) return null;
  const amount = Number(raw);
  return amount > 0 ? amount : null;
}
