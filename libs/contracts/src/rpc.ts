export { rpc, type RpcDefinition } from './rpc-definition.ts';
import { z } from 'zod';
import { rpc } from './rpc-definition.ts';
import { BackOfficePaymentsRpc } from './back-office/payments.ts';
import { BackOfficeQrRpc } from './back-office/qr.ts';
import { BackOfficeReportRpc } from './back-office/report.ts';
import { BackOfficeWebhooksRpc } from './back-office/webhooks.ts';
import { ErrorCatalog } from './errors.ts';
import {
  QrCodeCreateReply,
  QrCodeCreateRequest,
  QrConfigGetReply,
  QrConfigGetRequest,
  QrConfigSetReply,
  QrConfigSetRequest,
  QrConfigUnsetReply,
  QrConfigUnsetRequest,
} from './qr.ts';
import {
  CheckoutReturnRequest,
  CheckoutStartReply,
  CheckoutTokenRequest,
  CheckoutView,
  PaymentsGetRequest,
  PaymentsRefundReply,
  PaymentsRefundRequest,
  PaymentsRegisterReply,
  PaymentsRegisterRequest,
  PaymentView,
} from './payments.ts';
import { ReceiptEmailRequest, ReceiptEmailResult } from './receipts.ts';
import { ReconcileRequest, ReconciliationReport } from './reconciliation.ts';
import { StatusReferenceRequest, StatusReply } from './status.ts';
import {
  DeliveriesOfPaymentReply,
  DeliveriesOfPaymentRequest,
  DeliveryReplayRequest,
  DeliveryView,
} from './webhooks.ts';
import {
  AttemptStartReply,
  AttemptStartRequest,
  PartnerProduct,
  ProductLookupRequest,
} from './agency.ts';

/** The catalog of every NATS request/reply subject and its schemas. */
export const Rpc = {
  qrConfigSet: rpc('qr.config.set', QrConfigSetRequest, QrConfigSetReply),
  qrConfigUnset: rpc('qr.config.unset', QrConfigUnsetRequest, QrConfigUnsetReply),
  qrConfigGet: rpc('qr.config.get', QrConfigGetRequest, QrConfigGetReply),
  qrCodeCreate: rpc('qr.code.create', QrCodeCreateRequest, QrCodeCreateReply),
  paymentsRegister: rpc('payments.register', PaymentsRegisterRequest, PaymentsRegisterReply),
  paymentsGet: rpc('payments.get', PaymentsGetRequest, PaymentView),
  paymentsRefund: rpc('payments.refund', PaymentsRefundRequest, PaymentsRefundReply),
  checkoutView: rpc('payments.checkout.view', CheckoutTokenRequest, CheckoutView),
  checkoutStart: rpc('payments.checkout.start', CheckoutTokenRequest, CheckoutStartReply),
  checkoutReturn: rpc('payments.checkout.return', CheckoutReturnRequest, CheckoutView),
  statusReferenceGet: rpc('status.reference.get', StatusReferenceRequest, StatusReply),
  productLookup: rpc('payments.product.lookup', ProductLookupRequest, PartnerProduct),
  attemptStart: rpc('payments.attempts.start', AttemptStartRequest, AttemptStartReply),
  deliveriesOfPayment: rpc(
    'webhooks.deliveries.list',
    DeliveriesOfPaymentRequest,
    DeliveriesOfPaymentReply,
  ),
  deliveryReplay: rpc('webhooks.deliveries.replay', DeliveryReplayRequest, DeliveryView),
  receiptEmailSend: rpc('receipts.email.send', ReceiptEmailRequest, ReceiptEmailResult),
  paymentsReconcile: rpc('payments.reconcile', ReconcileRequest, ReconciliationReport),
  ...BackOfficePaymentsRpc,
  ...BackOfficeWebhooksRpc,
  ...BackOfficeQrRpc,
  ...BackOfficeReportRpc,
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
