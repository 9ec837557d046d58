import { z } from 'zod';
import { READ, rpc } from './rpc-definition.ts';
import {
  AttemptStartReply,
  AttemptStartRequest,
  PartnerProduct,
  ProductLookupRequest,
} from './agency.ts';
import { BalanceRpc } from './balance.ts';
import { ErrorCatalog } from './errors.ts';
import { PaymentLinksRpc } from './payment-links.ts';
import {
  CheckoutReturnRequest,
  CheckoutStartReply,
  CheckoutTokenRequest,
  CheckoutView,
} from './payments/checkout.ts';
import {
  PaymentsCancelReply,
  PaymentsCancelRequest,
  PaymentsGetRequest,
  PaymentView,
} from './payments/payment.ts';
import { PaymentsListRequest, PaymentsPage } from './payments/payments-list.ts';
import { PaymentsRefundAnswer, PaymentsRefundRequest } from './payments/refunds.ts';
import { PaymentsRegisterReply, PaymentsRegisterRequest } from './payments/registration.ts';
import { QrCodesListReply, QrCodesListRequest } from './qr-codes/qr-codes-list.ts';
import {
  QrCodeCreateReply,
  QrCodeCreateRequest,
  QrConfigGetReply,
  QrConfigGetRequest,
  QrConfigSetReply,
  QrConfigSetRequest,
  QrConfigUnsetReply,
  QrConfigUnsetRequest,
} from './qr-codes/qr-config.ts';
import { ReceiptEmailRequest, ReceiptEmailResult } from './receipts.ts';
import { ReconcileRequest, ReconciliationReport } from './reconciliation.ts';
import { DailyReportReply, DailyReportRequest } from './reports.ts';
import { ReferenceHeldReply, StatusReferenceRequest, StatusReply } from './status.ts';
import {
  DeliveriesOfPaymentReply,
  DeliveriesOfPaymentRequest,
  DeliveryReplayRequest,
  DeliveryView,
  WebhookDeliveriesListRequest,
  WebhookDeliveriesPage,
} from './webhooks/deliveries.ts';
import { WebhookTestResult, WebhookTestSendRequest } from './webhooks/settings.ts';
import {
  WebhookEventReplayRequest,
  WebhookEventsListRequest,
  WebhookEventsPage,
  WebhookEventView,
} from './webhooks/webhook-events.ts';

/** The catalog of every NATS request/reply subject and its schemas, by resource. */
export const Rpc = {
  // QR codes (qr-config)
  qrConfigSet: rpc('qr.config.set', QrConfigSetRequest, QrConfigSetReply),
  qrConfigUnset: rpc('qr.config.unset', QrConfigUnsetRequest, QrConfigUnsetReply),
  qrConfigGet: rpc('qr.config.get', QrConfigGetRequest, QrConfigGetReply, READ),
  qrCodeCreate: rpc('qr.code.create', QrCodeCreateRequest, QrCodeCreateReply),
  qrCodesList: rpc('qr.codes.list', QrCodesListRequest, QrCodesListReply, READ),
  // Payments (payments)
  paymentsRegister: rpc('payments.register', PaymentsRegisterRequest, PaymentsRegisterReply),
  paymentsGet: rpc('payments.get', PaymentsGetRequest, PaymentView, READ),
  paymentsRefund: rpc('payments.refund', PaymentsRefundRequest, PaymentsRefundAnswer),
  paymentsList: rpc('payments.list', PaymentsListRequest, PaymentsPage, READ),
  paymentsCancel: rpc('payments.cancel', PaymentsCancelRequest, PaymentsCancelReply),
  paymentsReconcile: rpc('payments.reconcile', ReconcileRequest, ReconciliationReport),
  checkoutView: rpc('payments.checkout.view', CheckoutTokenRequest, CheckoutView, READ),
  checkoutStart: rpc('payments.checkout.start', CheckoutTokenRequest, CheckoutStartReply),
  checkoutReturn: rpc('payments.checkout.return', CheckoutReturnRequest, CheckoutView),
  productLookup: rpc('payments.product.lookup', ProductLookupRequest, PartnerProduct),
  attemptStart: rpc('payments.attempts.start', AttemptStartRequest, AttemptStartReply),
  /** The attempts that hold a product reference in payments' own rows (docs/status.md). */
  referenceHeld: rpc('payments.reference.held', StatusReferenceRequest, ReferenceHeldReply, READ),
  // Reports (payments)
  paymentsReportDaily: rpc('payments.report.daily', DailyReportRequest, DailyReportReply, READ),
  // Status of a reference (status)
  statusReferenceGet: rpc('status.reference.get', StatusReferenceRequest, StatusReply, READ),
  // Webhooks (webhook-dispatcher). The events log and the test are not under
  // `webhooks.events.`: the WEBHOOKS stream captures `webhooks.events.>`, and it would
  // store these requests and answer them with its PubAck.
  deliveriesOfPayment: rpc(
    'webhooks.deliveries.list',
    DeliveriesOfPaymentRequest,
    DeliveriesOfPaymentReply,
    READ,
  ),
  deliveryReplay: rpc('webhooks.deliveries.replay', DeliveryReplayRequest, DeliveryView),
  webhookEventsList: rpc('webhooks.log.list', WebhookEventsListRequest, WebhookEventsPage, READ),
  webhookEventReplay: rpc('webhooks.log.replay', WebhookEventReplayRequest, WebhookEventView),
  webhookTestSend: rpc('webhooks.test.send', WebhookTestSendRequest, WebhookTestResult),
  /** Every delivery of the merchant's webhooks, newest first, with filters. */
  webhookDeliveriesList: rpc(
    'webhooks.deliveries.all',
    WebhookDeliveriesListRequest,
    WebhookDeliveriesPage,
    READ,
  ),
  // Receipts (receipts)
  receiptEmailSend: rpc('receipts.email.send', ReceiptEmailRequest, ReceiptEmailResult),
  // Payment links (payments: payments.links.*)
  ...PaymentLinksRpc,
  // Balance and payouts (payments: payments.balance.*, payments.payouts.*)
  ...BalanceRpc,
} as const;

/** Errors cross the wire as a code from the catalog, never as a stack trace. */
export const RpcFailure = z.object({
  code: z.enum(Object.keys(ErrorCatalog) as [keyof typeof ErrorCatalog]),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type RpcFailure = z.infer<typeof RpcFailure>;

export const RpcEnvelope = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: RpcFailure }),
]);
export type RpcEnvelope = z.infer<typeof RpcEnvelope>;
