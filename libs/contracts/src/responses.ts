import { z } from 'zod';
import { MessageResponse } from './envelopes.ts';
import { PaymentsRefundReply, PaymentView, RegisteredPayment } from './payments.ts';
import { ReceiptEmailResult } from './receipts.ts';
import { StatusRecord } from './status.ts';
import { DeliveriesOfPaymentReply, DeliveryView } from './webhooks.ts';

/** A success body: `statusCode`, `message` and `data`. */
const withData = <S extends z.ZodType>(statusCode: 200 | 201 | 202, data: S) =>
  z.object({ statusCode: z.literal(statusCode), message: z.string(), data });

// The public API's success bodies, exactly as the gateway answers them: the OpenAPI
// document and the merchant client are built on these.

/** 200 of POST /set-qr-config. */
export const SetQrConfigResponse = MessageResponse.extend({ statusCode: z.literal(200) });
/** 201 of POST /api/v1/payments. */
export const RegisterPaymentResponse = withData(201, RegisteredPayment);
export type RegisterPaymentResponse = z.infer<typeof RegisterPaymentResponse>;
/** 200 of GET /api/v1/payments/{id}. */
export const PaymentResponse = withData(200, PaymentView);
/** 200 of POST /api/v1/payments/{id}/refund: the refund happened. */
export const RefundResponse = withData(200, PaymentsRefundReply);
/** 202 of POST /api/v1/payments/{id}/refund: asked, the card network's answer not known yet. */
export const RefundPendingResponse = withData(202, PaymentsRefundReply);
/** Either answer of a refund, as a client reads it. */
export const RefundResponseBody = z.union([RefundResponse, RefundPendingResponse]);
/** 200 of POST /api/v1/payments/{id}/receipt/email. */
export const ReceiptEmailResponse = withData(200, ReceiptEmailResult);
/** 200 of GET /partner/payments/v1/{reference}/status. */
export const StatusResponse = withData(200, StatusRecord);
/** 200 of GET /api/v1/payments/{id}/webhooks. */
export const DeliveriesResponse = withData(200, DeliveriesOfPaymentReply);
/** 200 of POST /api/v1/webhooks/deliveries/{id}/replay. */
export const DeliveryResponse = withData(200, DeliveryView);
