import { z } from 'zod';
import type { CardOrderStatus, OrderState } from './card-network.ts';

// SATIM's wire format (BPC-style REST), local to the adapter: an external protocol,
// not a dzpay contract. Schemas take only what the adapter reads and let the rest be.

/** BPC sends errorCode as a string, some endpoints as a number, confirmOrder.do capitalised. */
const Code = z.union([z.string(), z.number()]).transform(String);

export const SatimAnswer = z.looseObject({
  errorCode: Code.optional(),
  ErrorCode: Code.optional(),
  errorMessage: z.string().optional(),
  ErrorMessage: z.string().optional(),
});
export type SatimAnswer = z.infer<typeof SatimAnswer>;

export const RegisterAnswer = z.object({
  orderId: z.string().min(1),
  formUrl: z.url(),
});

export const StatusAnswer = z.object({
  orderNumber: z.string(),
  orderStatus: z.coerce.number().int(),
  actionCode: z.number().int().nullish(),
  actionCodeDescription: z.string().nullish(),
  amount: z.number().int(),
  /** When the card was authorised, epoch milliseconds. */
  authDateTime: z.number().int().nullish(),
  refundedAmount: z.number().int().nullish(),
  paymentAmountInfo: z.object({ refundedAmount: z.number().int().nullish() }).nullish(),
  cardAuthInfo: z
    .object({ maskedPan: z.string().nullish(), approvalCode: z.string().nullish() })
    .nullish(),
  params: z
    .looseObject({ respCode: z.string().nullish(), respCode_desc: z.string().nullish() })
    .nullish(),
});
export type StatusAnswer = z.infer<typeof StatusAnswer>;

/**
 * BPC OrderStatus codes. 5 (the payer is at 3-D Secure) has not decided anything yet,
 * so it is still `registered` to us.
 */
const ORDER_STATES: Record<number, OrderState> = {
  0: 'registered',
  1: 'preauthorized',
  2: 'deposited',
  3: 'reversed',
  4: 'refunded',
  5: 'registered',
  6: 'declined',
  [-1]: 'failed',
};

export function orderStateOf(code: number): OrderState | undefined {
  return ORDER_STATES[code];
}

export function errorCodeOf(answer: SatimAnswer): string {
  return answer.errorCode ?? answer.ErrorCode ?? '0';
}

export function errorMessageOf(answer: SatimAnswer): string {
  return answer.errorMessage ?? answer.ErrorMessage ?? 'no message';
}

export function toCardOrderStatus(
  orderId: string,
  answer: StatusAnswer,
  state: OrderState,
): CardOrderStatus {
  const refunded = answer.paymentAmountInfo?.refundedAmount ?? answer.refundedAmount ?? 0;
  const text = answer.params?.respCode_desc || answer.actionCodeDescription || null;
  return {
    orderId,
    orderNumber: answer.orderNumber,
    state,
    amount: answer.amount,
    refundedAmount: refunded,
    actionCode: answer.actionCode ?? null,
    respCode: answer.params?.respCode || null,
    description: text,
    approvalCode: answer.cardAuthInfo?.approvalCode || null,
    maskedPan: answer.cardAuthInfo?.maskedPan || null,
    authorizedAt: answer.authDateTime ? new Date(answer.authDateTime) : null,
  };
}
