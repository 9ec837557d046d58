import type { BpcError, BpcOperation } from '../domain/bpc-errors.ts';
import type { Confirmation } from '../domain/confirmation.ts';
import { actionCodeOf, type Order } from '../domain/order.ts';
import type { Language } from '../domain/test-cards.ts';
import { outcomeText, paramsOfOrder } from './status-body.ts';

/**
 * An error answer, HTTP 200 as BPC sends it. SATIM's confirmOrder.do capitalises its
 * keys (`ErrorCode`, as the legacy getOrderStatus.do); every other call uses lower camel
 * case.
 */
export function errorBody(operation: BpcOperation, error: BpcError): Record<string, string> {
  return operation === 'confirmOrder'
    ? { ErrorCode: error.errorCode, ErrorMessage: error.errorMessage }
    : { errorCode: error.errorCode, errorMessage: error.errorMessage };
}

/**
 * confirmOrder.do's answer as SATIM sends it (captured replies): capitalised keys for
 * the order, lower camel case for the card and the codes, `SvfeResponse` repeating the
 * ISO respCode. ErrorCode is a string, except the decline's 3: a bare number.
 */
export function confirmBody(order: Order, language: Language, verdict: Confirmation) {
  const { text, respCode } = outcomeText(order, language);
  const deposited = order.status === 2 || order.status === 4;
  return {
    ...(order.card && {
      expiration: order.card.expiration,
      cardholderName: order.card.cardholderName,
    }),
    depositAmount: deposited ? order.amount : 0,
    currency: '012',
    ...(order.approvalCode !== null && { approvalCode: order.approvalCode }),
    authCode: 2,
    params: paramsOfOrder(order, language),
    actionCode: actionCodeOf(order),
    actionCodeDescription: text,
    ErrorCode: verdict.errorCode === '3' ? 3 : verdict.errorCode,
    ErrorMessage: verdict.errorMessage,
    OrderStatus: order.status,
    OrderNumber: order.orderNumber,
    ...(order.card && { Pan: order.card.maskedPan }),
    Amount: order.amount,
    ...(respCode !== null && { SvfeResponse: respCode }),
  };
}
