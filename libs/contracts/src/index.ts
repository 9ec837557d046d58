// @dzpay/contracts: every message that crosses a service's edge, as a zod schema and
// its type, written once: HTTP bodies and answers, NATS requests, events, errors.

// Who a request acts for, money, and the payer's language.
export { MerchantScope, Mode } from './scope.ts';
export { centimesToDzd, dzdToCentimes, formatDzd, hasAtMostTwoDecimals, LOCALES } from './money.ts';
export { Language } from './payments/payment.ts';

// Errors: the catalog of codes, and the bodies they travel in.
export { ErrorCatalog, httpStatusOf, type ErrorCode } from './errors.ts';
export { PartnerError, RateLimitError, StandardError, ValidationList } from './envelopes.ts';
export { cleanText, isJsonObject, validationMessages } from './validation.ts';
export { hasBidiControl, replaceBidiControls } from './bidi-controls.ts';

// The public API's success bodies, as the gateway answers them.
export {
  DailyReportResponse,
  DeliveriesResponse,
  DeliveryResponse,
  PaymentResponse,
  PaymentsListResponse,
  QrCodesListResponse,
  ReceiptEmailResponse,
  RefundPendingResponse,
  RefundResponse,
  RefundResponseBody,
  RegisterPaymentResponse,
  SetQrConfigResponse,
  SigningSecretRotatedResponse,
  StatusResponse,
  WebhookEventResponse,
  WebhookEventsResponse,
  WebhookSettingsResponse,
  WebhookSettingsUpdatedResponse,
  WebhookTestResponse,
} from './responses.ts';

// NATS request/reply: the catalog of subjects and schemas, and the envelope around answers.
export { Rpc, RpcEnvelope, RpcFailure } from './rpc.ts';
export type { RpcDefinition } from './rpc-definition.ts';

// Payments: one payment, registered, refunded, listed, and paid on the hosted checkout.
export {
  AnsweredAgain,
  CheckoutStatus,
  isUuid,
  PaymentsCancelReply,
  PaymentView,
} from './payments/payment.ts';
export {
  jsonDepth,
  MAX_METADATA_BYTES,
  MAX_METADATA_DEPTH,
  MerchantTerms,
  PaymentsRegisterReply,
  PaymentsRegisterRequest,
  RegisteredPayment,
  RegisterPaymentBody,
} from './payments/registration.ts';
export {
  PaymentsRefundAnswer,
  PaymentsRefundReply,
  PaymentsRefundRequest,
  RefundPaymentBody,
} from './payments/refunds.ts';
export {
  PaymentListItem,
  PAYMENTS_PAGE_DEFAULT,
  PAYMENTS_PAGE_MAX,
  CsvDialect,
  DailyReportExportQuery,
  PaymentsExportQuery,
  PaymentsFilterQuery,
  PaymentsListQuery,
  PaymentsListRequest,
  PaymentsPage,
  type PaymentsFilter,
} from './payments/payments-list.ts';
export { CheckoutView, PAYMENT_WINDOW_MS } from './payments/checkout.ts';
export {
  actionCodeOfDecline,
  declinedWithCode,
  FailureReasons,
} from './payments/failure-reasons.ts';

// Payments made at a partner's agency: product lookups and the attempts they start.
export { AttemptSource, AttemptStartRequest, PartnerProduct } from './agency.ts';

// The facts of payments published on the PAYMENTS stream.
export {
  PaymentEvent,
  PaymentEventType,
  PaymentEventTypes,
  PaymentStatus,
  ReferenceKind,
  RefundEventExtra,
} from './events.ts';

// The streams, the subject of each event on them, and the durable consumers that read them.
export {
  paymentEventsSubject,
  subjectOfEvent,
  webhookEventsSubject,
  type PaymentEventsSelector,
  type PaymentPhase,
} from './event-subjects.ts';
export {
  DurableConsumers,
  statusWebhooksDurable,
  Streams,
  type DurableConsumerSpec,
} from './streams.ts';

// The status of a reference, as status projects it from the events.
export {
  AttemptRevisions,
  ReferenceHeldReply,
  Stage,
  STATUS_CHANGED_CHANNEL,
  statusAsOf,
  statusChangeOf,
  statusKey,
  StatusPayment,
  StatusRecord,
  statusRecordOf,
  StatusReference,
  StatusReply,
  WebhookDelivery,
  type StatusChange,
  type StatusSubject,
} from './status.ts';

// Reports: a merchant's figures day by day.
export {
  addDays,
  algiersDay,
  DailyReportQuery,
  DailyReportReply,
  dailyReportView,
  DailyReportView,
  daysInRange,
  REPORT_TIME_ZONE,
  ReportDay,
  ReportFigures,
  resolveReportRange,
} from './reports.ts';

// QR codes: what each offers, and the merchant's codes listed and printed.
export {
  expiresAtInstant,
  QrConfigGetReply,
  QrConfigSetRequest,
  QrConfigState,
  QrConfiguration,
  QrMessages,
  QrToken,
  SetQrConfigBody,
  UnsetQrConfigBody,
} from './qr-codes/qr-config.ts';
export { parseSetQrConfig, type Parsed } from './qr-codes/qr-config-request.ts';
export {
  QR_CODES_PAGE_DEFAULT,
  QR_IMAGE_SIZE_DEFAULT,
  QrCodeRecordView,
  QrCodesListQuery,
  QrCodesListReply,
  QrCodesPage,
  QrCodeView,
  QrImageQuery,
} from './qr-codes/qr-codes-list.ts';

// Webhooks: their kinds, settings, the events log, and each delivery.
export { DEFAULT_WEBHOOK_EVENTS, WebhookEventKind, WebhookType } from './webhooks/webhook-types.ts';
export {
  MAX_GRACE_HOURS,
  SigningSecretRotate,
  WebhookSettingsUpdate,
  WebhookSettingsView,
  WebhookTestResult,
} from './webhooks/settings.ts';
export {
  EVENTS_PAGE_MAX,
  WebhookEventsPage,
  WebhookEventsQuery,
  WebhookEventView,
} from './webhooks/webhook-events.ts';
export {
  DeliveryView,
  WebhookDeliveriesQuery,
  WebhookDeliveryEvent,
  WebhookDeliveryEventTypes,
} from './webhooks/deliveries.ts';

// Merchants' partner servers, as the gateway publishes them for the other services.
export { Buckets, PartnerDirectoryEntry, partnerDirectoryKey } from './partner-directory.ts';

// Receipts sent by email, and reconciliation with the card network.
export {
  EmailReceiptBody,
  ReceiptEmailRequest,
  ReceiptEmailResult,
  ReceiptSender,
  type ReceiptPayment,
} from './receipts.ts';
export { DiscrepancyKind } from './reconciliation.ts';

// Payment links: a hosted page that makes payments, fixed or payer-chosen amounts.
export {
  CreatePaymentLinkBody,
  type CreatePaymentLinkInput,
  PAYMENT_LINK_LABEL_MAX,
  PAYMENT_LINKS_PAGE_DEFAULT,
  PAYMENT_LINKS_PAGE_MAX,
  PaymentLinkAttempt,
  PaymentLinkCreatedResponse,
  PaymentLinkCreateRequest,
  PaymentLinkPayReply,
  PaymentLinkPayRequest,
  PaymentLinkPublicView,
  paymentLinkReference,
  PaymentLinkRequest,
  PaymentLinkResponse,
  PaymentLinksListQuery,
  PaymentLinksListRequest,
  PaymentLinksListResponse,
  PaymentLinksPage,
  PaymentLinksRpc,
  PaymentLinkState,
  PaymentLinkToken,
  PaymentLinkTokenRequest,
  PaymentLinkView,
  PaymentLinkWriteReply,
} from './payment-links.ts';

// A merchant's balance, its payouts and monthly statements.
export {
  algiersMonth,
  BalanceDay,
  BalanceFigures,
  type BalanceFiguresView,
  BalanceGetRequest,
  BalanceQuery,
  BalanceReply,
  BalanceResponse,
  BalanceRpc,
  BalanceView,
  balanceView,
  dzdTextToCentimes,
  monthDays,
  PayoutItemView,
  payoutItemView,
  PayoutRecordReply,
  PayoutRecordRequest,
  PAYOUTS_PAGE_DEFAULT,
  PAYOUTS_PAGE_MAX,
  PayoutsListRequest,
  PayoutsPage,
  PayoutsPageView,
  PayoutsQuery,
  PayoutsResponse,
  PayoutView,
  StatementFormat,
  StatementMonth,
  statementMonthProblem,
  StatementQuery,
  StatementReply,
  StatementRequest,
} from './balance.ts';

// The audit log: who refunded, cancelled, issued a key, changed the team.
export {
  AUDIT_PAGE_DEFAULT,
  AUDIT_PAGE_MAX,
  AuditAction,
  AuditActions,
  AuditActorView,
  AuditEventsPage,
  AuditEventsQuery,
  AuditEventsResponse,
  AuditEventView,
  AuditFamilies,
  AuditFamily,
} from './audit.ts';
