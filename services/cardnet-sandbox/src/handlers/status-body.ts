import { actionCodeOf, paymentStateOf, type Order } from '../domain/order.ts';
import { OUTCOMES, type Language } from '../domain/test-cards.ts';

const NOT_PAID = { en: 'Awaiting payment', fr: 'En attente de paiement', ar: 'في انتظار الدفع' };

/** What the status version the merchant is set up with returns. */
export interface StatusVersion {
  /** BPC lists each refund (`refunds`) only from some status versions. */
  refunds: boolean;
}

/** The payer-facing text of the order's outcome, and its ISO respCode when it has one. */
export function outcomeText(order: Order, language: Language) {
  const outcome = order.outcome === null ? null : OUTCOMES[order.outcome];
  return { text: (outcome?.text ?? NOT_PAID)[language], respCode: outcome?.respCode ?? null };
}

/** The merchant's udf1..udf9 from jsonParams, and the respCode with its text. */
export function paramsOfOrder(order: Order, language: Language) {
  const { text, respCode } = outcomeText(order, language);
  const udfs = Object.entries(order.jsonParams).filter(([name]) => /^udf\d$/.test(name));
  return {
    ...Object.fromEntries(udfs),
    ...(respCode !== null && { respCode, respCode_desc: text }),
  };
}

/**
 * getOrderStatusExtended.do's answer, the shape BPC gateways send: the card as masked
 * on the order, the ISO respCode and its payer-facing text in `params`, next to the
 * merchant's udf values, the amounts in `paymentAmountInfo`, the gateway's order id in
 * `attributes` (as getLastOrdersForMerchants needs it), and, from the status versions
 * that have it, every refund. Dates are epoch milliseconds, as BPC sends them.
 */
export function statusBody(order: Order, language: Language, version: StatusVersion) {
  const deposited = order.status === 2 || order.status === 4;
  const lastRefund = order.refunds.at(-1);
  return {
    errorCode: '0',
    errorMessage: 'Success',
    orderNumber: order.orderNumber,
    orderStatus: order.status,
    actionCode: actionCodeOf(order),
    actionCodeDescription: outcomeText(order, language).text,
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
      paymentState: paymentStateOf(order),
      approvedAmount: deposited || order.status === 1 ? order.amount : 0,
      depositedAmount: deposited ? order.amount : 0,
      refundedAmount: order.refundedAmount,
    },
    refundedAmount: order.refundedAmount,
    ...(lastRefund && { refundedDate: lastRefund.at }),
    ...(order.reversedAt !== null && { reversedDate: order.reversedAt }),
    ...(version.refunds && {
      refunds: order.refunds.map((refund) => ({
        date: refund.at,
        amount: refund.amount,
        actionCode: 0,
        approvalCode: refund.approvalCode,
        referenceNumber: refund.referenceNumber,
      })),
    }),
    attributes: [{ name: 'mdOrder', value: order.orderId }],
    params: paramsOfOrder(order, language),
  };
}
