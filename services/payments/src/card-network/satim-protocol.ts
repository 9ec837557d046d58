import { z } from 'zod';
import type { CardOrderStatus, NetworkRefund, OrderState } from './card-network.ts';

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

/** BPC dates: epoch milliseconds, or (some versions) an ISO-8601 string. */
const BpcDate = z
  .union([z.number().int(), z.string().min(1)])
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), 'a date');

const RefundEntry = z.looseObject({
  amount: z.coerce.number().int(),
  date: BpcDate.nullish(),
  referenceNumber: z.string().nullish(),
});

const StatusFields = {
  orderNumber: z.string(),
  orderStatus: z.coerce.number().int(),
  actionCode: z.coerce.number().int().nullish(),
  actionCodeDescription: z.string().nullish(),
  amount: z.coerce.number().int(),
  /** When the order was registered. */
  date: BpcDate.nullish(),
  /** When the card was authorised. */
  authDateTime: BpcDate.nullish(),
  refundedAmount: z.coerce.number().int().nullish(),
  paymentAmountInfo: z.looseObject({ refundedAmount: z.coerce.number().int().nullish() }).nullish(),
  /** Every refund, where the merchant's status version lists them (BPC's `refunds`). */
  refunds: z.array(RefundEntry).nullish(),
  cardAuthInfo: z
    .looseObject({ maskedPan: z.string().nullish(), approvalCode: z.string().nullish() })
    .nullish(),
  params: z
    .looseObject({
      respCode: z.string().nullish(),
      respCode_desc: z.string().nullish(),
      udf1: z.string().nullish(),
    })
    .nullish(),
};

export const StatusAnswer = z.looseObject(StatusFields);
export type StatusAnswer = z.infer<typeof StatusAnswer>;

/** getLastOrdersForMerchants.do: the order id travels as the attribute `mdOrder`. */
export const OrdersAnswer = z.looseObject({
  orderStatuses: z
    .array(
      z.looseObject({
        ...StatusFields,
        attributes: z.array(z.object({ name: z.string(), value: z.string() })).nullish(),
      }),
    )
    .default([]),
  totalCount: z.coerce.number().int().nonnegative(),
});

/** The order id of one of getLastOrdersForMerchants.do's orders, from its attributes. */
export function mdOrderOf(
  attributes: readonly { name: string; value: string }[] | null | undefined,
): string | undefined {
  return attributes?.find((attribute) => attribute.name === 'mdOrder')?.value;
}

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
    refunds: answer.refunds ? answer.refunds.map(toNetworkRefund) : null,
    actionCode: answer.actionCode ?? null,
    respCode: answer.params?.respCode || null,
    description: text,
    approvalCode: answer.cardAuthInfo?.approvalCode || null,
    maskedPan: answer.cardAuthInfo?.maskedPan || null,
    authorizedAt: answer.authDateTime ?? null,
    registeredAt: answer.date ?? null,
    udf1: answer.params?.udf1 || null,
  };
}

function toNetworkRefund(entry: z.infer<typeof RefundEntry>): NetworkRefund {
  return { amount: entry.amount, at: entry.date ?? null, reference: entry.referenceNumber || null };
}

/**
 * getLastOrdersForMerchants.do's `from` and `to`: yyyyMMddHHmmss in the network's own time
 * zone (SATIM's is Algiers').
 */
export function bpcTimestamp(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? '00';
  return `${part('year')}${part('month')}${part('day')}${part('hour')}${part('minute')}${part('second')}`;
}
