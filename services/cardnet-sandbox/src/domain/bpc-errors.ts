/**
 * The errorCode values the sandbox answers, with their BPC meaning. The sandbox keeps
 * one rule for bad parameters: absent or empty is 4, present but invalid is 3.
 */
export const BpcErrorCode = {
  success: '0',
  duplicateOrderNumber: '1',
  invalidParameter: '3',
  missingParameter: '4',
  accessDenied: '5',
  orderNotFound: '6',
  /** The order's state or the amount does not allow the operation. */
  notAllowed: '7',
} as const;
export type BpcErrorCode = (typeof BpcErrorCode)[keyof typeof BpcErrorCode];

export interface BpcError {
  errorCode: Exclude<BpcErrorCode, '0'>;
  errorMessage: string;
}

export type Params = Readonly<Record<string, string | undefined>>;

export const missing = (name: string): BpcError => ({
  errorCode: BpcErrorCode.missingParameter,
  errorMessage: `${name} is empty`,
});

export const invalid = (name: string, rule: string): BpcError => ({
  errorCode: BpcErrorCode.invalidParameter,
  errorMessage: `${name} is invalid: ${rule}`,
});

/** A positive integer amount in centimes, written in plain digits. */
export function parseAmount(raw: string): number | null {
  if (!/^\d{1,15}$/.test(raw)) return null;
  const amount = Number(raw);
  return amount > 0 ? amount : null;
}
