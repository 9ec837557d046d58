import { z } from 'zod';
import { MessageResponse } from './envelopes.ts';
import { PaymentView } from './payments/payment.ts';
import { PaymentsPage } from './payments/payments-list.ts';
import { PaymentsRefundReply } from './payments/refunds.ts';
import { RegisteredPayment } from './payments/registration.ts';
import { QrCodesPage } from './qr-codes/qr-codes-list.ts';
import { ReceiptEmailResult } from './receipts.ts';
import { DailyReportView } from './reports.ts';
import { StatusRecord } from './status.ts';
import { DeliveriesOfPaymentReply, DeliveryView } from './webhooks/deliveries.ts';
import {
  SigningSecretRotated,
  WebhookSettingsUpdated,
  WebhookSettingsView,
  WebhookTestResult,
} from './webhooks/settings.ts';
import { WebhookEventsPage, WebhookEventView } from './webhooks/webhook-events.ts';

/** A success body: `statusCode`, `message` and `data`. */
const withData = <S extends z.ZodType>(statusCode: 200 | 201 | 202, data: S) =>
  z.object({ statusCode: z.literal(statusCode), message: z.string(), data });

// The public API's success bodies, exactly as the gateway answers them: the OpenAPI
// document and the merchant client are built on these.

// ---- Payments ----

/** 201 of POST /api/v1/payments. */
export const RegisterPaymentResponse = withData(201, RegisteredPayment);
export type RegisterPaymentResponse = z.infer<typeof RegisterPaymentResponse>;
/** 200 of GET /api/v1/payments/{id} and of POST /api/v1/payments/{id}/cancel. */
export const PaymentResponse = withData(200, PaymentView);
/** 200 of GET /api/v1/payments. */
export const PaymentsListResponse = withData(200, PaymentsPage);
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

// ---- QR codes ----

/** 200 of POST /set-qr-config. */
export const SetQrConfigResponse = MessageResponse.extend({ statusCode: z.literal(200) });
/** 200 of GET /api/v1/qr-codes. */
export const QrCodesListResponse = withData(200, QrCodesPage);

// ---- Reports ----

/** 200 of GET /api/v1/reports/daily. */
export const DailyReportResponse = withData(200, DailyReportView);

// ---- Webhooks ----

/** 200 of GET /api/v1/payments/{id}/webhooks. */
export const DeliveriesResponse = withData(200, DeliveriesOfPaymentReply);
/** 200 of POST /api/v1/webhooks/deliveries/{id}/replay. */
export const DeliveryResponse = withData(200, DeliveryView);
/** 200 of GET /api/v1/webhooks/settings. */
export const WebhookSettingsResponse = withData(200, WebhookSettingsView);
/** 200 of PUT /api/v1/webhooks/settings. */
export const WebhookSettingsUpdatedResponse = withData(200, WebhookSettingsUpdated);
/** 200 of POST /api/v1/webhooks/signing-secret/rotate. */
export const SigningSecretRotatedResponse = withData(200, SigningSecretRotated);
/** 200 of POST /api/v1/webhooks/test. */
export const WebhookTestResponse = withData(200, WebhookTestResult);
/** 200 of GET /api/v1/events. */
export const WebhookEventsResponse = withData(200, WebhookEventsPage);
/** 200 of POST /api/v1/events/{id}/replay. */
export const WebhookEventResponse = withData(200, WebhookEventView);
