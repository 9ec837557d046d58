import { actionCodeOf, type Order, type OrderStatus } from '../domain/order.ts';
import { OUTCOMES, type Language } from '../domain/test-cards.ts';

const NOT_PAID = { en: 'Awaiting payment', fr: 'En attente de paiement', ar: 'في انتظار الدفع' };

const PAYMENT_STATE: Record<OrderStatus, string> = {
  0: 'CREATED',
  1: 'APPROVED',
  2: 'DEPOSITED',
  3: 'REVERSED',
  4: 'REFUNDED',
  6: 'DECLINED',
};

/**
 * getOrderStatusExtended.do's answer, the shape BPC gateways send: the card as masked
 * on the order, the ISO respCode and its payer-facing text in `params`, next to the
 * merchant's udf values, and the amounts in `paymentAmountInfo`.
 */
export function statusBody(order: Order, language: Language) {
  const outcome = order.outcome === null ? null : OUTCOMES[order.outcome];
  const text = (outcome?.text ?? NOT_PAID)[language];
  const deposited = order.status === 2 || order.status === 4;
  const udfs = Object.entries(order.jsonParams).filter(([name]) => /^udf\d$/.test(name));
  return {
    errorCode: '0',
    errorMessage: 'Success',
    orderNumber: order.orderNumber,
    orderStatus: order.status,
    actionCode: actionCodeOf(order),
    actionCodeDescription: text,
    amount: order.amount,
    currency: '012',
    date: order.registeredAt,
    ...(order.authorizedAt !== null && { authDateTime: order.authorizedAt }),
    orderDescription: order.description,
    ...(order.card && {
      cardAuthInfo: {
        ...order.card,
        ...(order.approvalCode !== null && { approvalCode: order.approvalCode }),
      },
    }),
    paymentAmountInfo: {
      paymentState: PAYMENT_STATE[order.status],
      approvedAmount: deposited || order.status === 1 ? order.amount : 0,
      depositedAmount: deposited ? order.amount : 0,
      refundedAmount: order.refundedAmount,
    },
    refundedAmount: order.refundedAmount,
    params: {
      ...Object.fromEntries(udfs),
      ...(outcome?.respCode != null && { respCode: outcome.respCode, respCode_desc: text }),
    },
  };
}
