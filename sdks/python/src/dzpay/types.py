"""The shapes dzpay answers with, as typed dictionaries.

Every answer is the JSON dzpay sent, unchanged: a plain ``dict`` you can index, store or
serialise again, typed here for editors and type checkers. Field names are dzpay's
(camelCase). dzpay may add fields later; they are kept, never refused.

Money: the payments API speaks integer **centimes** (``amount``, ``total``,
``refundedAmount``; ``fees`` is whole DZD), QR amounts, status amounts, product lookups
and webhook events speak **DZD** numbers with at most two decimals. Balance and report
figures carry both (``captured`` in DZD, ``capturedCentimes``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
    "Language",
    "CheckoutStatus",
    "Channel",
    "Stage",
    "AttemptStatus",
    "WebhookDeliveryState",
    "WebhookType",
    "WebhookEventKind",
    "CsvDialect",
    "ErrorCode",
    "PartnerErrorCode",
    "RegisteredPayment",
    "Payment",
    "PaymentListItem",
    "PaymentsPage",
    "Refund",
    "RefundedPayment",
    "ReceiptEmailResult",
    "StatusPayment",
    "StatusRecord",
    "QrCodeConfig",
    "QrCode",
    "QrCodesPage",
    "PaymentLink",
    "PaymentLinksPage",
    "BalanceFigures",
    "BalanceDay",
    "Balance",
    "Payout",
    "PayoutsPage",
    "ReportFigures",
    "ReportDay",
    "DailyReport",
    "WebhookSettings",
    "WebhookSettingsUpdated",
    "SigningSecretRotated",
    "WebhookTestResult",
    "EventDeliverySummary",
    "EventRecord",
    "EventsPage",
    "DeliveryAttempt",
    "Delivery",
    "DeliveryListItem",
    "DeliveriesPage",
    "AuditActor",
    "AuditEvent",
    "AuditEventsPage",
    "WebhookEventData",
    "WebhookEvent",
    "WebhookTestEventData",
    "WebhookTestEvent",
    "Product",
    "PartnerErrorBody",
    "JsonObject",
    "AnyWebhookEvent",
]

JsonObject = Dict[str, Any]

Language = Literal["ar", "fr", "en"]
"""A payer's language: Arabic, French (dzpay's default) or English."""

CheckoutStatus = Literal[
    "created", "processing", "success", "failed", "expired", "cancelled", "refunded"
]
"""A hosted-checkout payment's status as the merchant API shows it."""

Channel = Literal["CHECKOUT", "AGENCY"]

Stage = Literal["locked", "paid", "released", "refunded", "not_found"]
"""The field of a status record to branch on (the spec's stable contract)."""

AttemptStatus = Literal["pending", "processing", "success", "failed", "refunded"]
"""Diagnostics only; the set may grow."""

WebhookDeliveryState = Literal["success", "fail", "pending"]

WebhookEventKind = Literal["payment.success", "payment.fail", "payment.refunded"]
"""The webhook kinds a merchant may ask for in its webhook settings."""

WebhookType = Literal["payment.success", "payment.fail", "payment.refunded", "webhook.test"]
"""Every webhook type dzpay sends."""

CsvDialect = Literal["standard", "spreadsheet"]
"""``standard``: RFC 4180 for programs. ``spreadsheet``: BOM, ``;``, decimal commas."""

ErrorCode = Literal[
    # The spec's codes
    "AUTH401_UNAUTHORIZED_ACCESS",
    "QR_CODE404_NOT_FOUND",
    "VALIDATION400",
    "PARTNER_API401_UNAUTHORIZED",
    "PARTNER_API403_MERCHANT_INACTIVE",
    "VALIDATION400_BAD_REQUEST",
    "PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE",
    "PAYMENT_INSTANCE400_UNSUPPORTED_CURRENCY",
    "VALIDATION422_UNPROCESSABLE_ENTITY",
    "PAYMENT_INSTANCE409_DUPLICATE_REFERENCE",
    "SETTLEMENT422_MERCHANT_WALLET_MISSING",
    "CARDNET502_REGISTRATION_FAILED",
    "PAYMENT_INSTANCE404_NOT_FOUND",
    "RECEIPT409_NOT_AVAILABLE",
    "RATE429_LIMIT_EXCEEDED",
    "RECEIPT502_EMAIL_FAILED",
    # dzpay's own codes
    "ROUTE404_NOT_FOUND",
    "QR_CODE409_ALREADY_EXISTS",
    "IDEMPOTENCY409_KEY_REUSED",
    "PAYMENT_INSTANCE409_NOT_REFUNDABLE",
    "PAYMENT_INSTANCE409_REFUND_PENDING",
    "CHECKOUT404_NOT_FOUND",
    "PARTNER404_PRODUCT_NOT_FOUND",
    "PARTNER409_ALREADY_PAID",
    "PARTNER503_UNAVAILABLE",
    "REFERENCE409_LOCKED",
    "WEBHOOK404_DELIVERY_NOT_FOUND",
    "PAYMENT_INSTANCE409_NOT_CANCELLABLE",
    "WEBHOOK404_EVENT_NOT_FOUND",
    "WEBHOOK409_ENDPOINT_MISSING",
    "PAYMENT_LINK404_NOT_FOUND",
    "PAYMENT_LINK409_ALREADY_PAID",
    "PAYMENT_LINK409_BEING_PAID",
    "PAYMENT_LINK410_DEACTIVATED",
    "PAYMENT_LINK410_EXPIRED",
    "PAYOUT422_OVER_BALANCE",
    "PAYOUT409_REFERENCE_TAKEN",
    "SERVICE503_UNAVAILABLE",
    "INTERNAL500_ERROR",
]
"""dzpay's stable error identifiers (``errorCode`` of the standard error envelope).
Branch on these, never on ``message``. New codes may appear: compare as strings."""

PartnerErrorCode = Literal["NOT_FOUND", "ALREADY_PAID", "SERVICE_UNAVAILABLE"]


# ---- Payments ----


class RegisteredPayment(TypedDict):
    """``data`` of ``POST /api/v1/payments`` (201): exactly the spec's fields."""

    id: str
    reference: str
    amount: int
    """Centimes, before the fee."""
    fees: int
    """The merchant's gateway fee, whole DZD."""
    total: int
    """Centimes, fee included: what the card is charged."""
    currency: str
    language: Language
    status: Literal["created"]
    expiresAt: str
    """End of the 15-minute payment window (ISO 8601 UTC)."""
    checkoutUrl: str
    """Shown in this answer only: redirect the payer to it straight away."""


class _PaymentRequired(TypedDict):
    id: str
    reference: str
    amount: int
    fees: int
    total: int
    currency: str
    language: Language
    expiresAt: str
    status: CheckoutStatus
    successUrl: Optional[str]
    failureUrl: Optional[str]
    metadata: Optional[JsonObject]
    orderId: Optional[str]
    approvalCode: Optional[str]
    maskedPan: Optional[str]
    failureReason: Optional[str]
    refundedAmount: int
    pendingRefundAmount: int
    paidAt: Optional[str]
    createdAt: str
    updatedAt: str


class Payment(_PaymentRequired, total=False):
    """A payment as ``GET /api/v1/payments/{id}`` answers it (never the checkout link)."""

    paymentLinkId: str
    """The payment link the payment was made through; absent for any other payment."""


class PaymentListItem(Payment):
    """A payment of ``GET /api/v1/payments``: the payment and its channel."""

    channel: Channel


class PaymentsPage(TypedDict):
    payments: List[PaymentListItem]
    nextCursor: Optional[str]
    """Pass it back as ``cursor`` for the next (older) page; ``None`` on the last page."""


class Refund(TypedDict):
    id: str
    amount: int
    """Centimes."""
    status: Literal["pending", "succeeded"]
    """``pending`` (HTTP 202): asked of the card network, outcome not known yet."""


class RefundedPayment(Payment):
    """``data`` of ``POST /api/v1/payments/{id}/refund``: the payment and the refund."""

    refund: Refund


class ReceiptEmailResult(TypedDict):
    sent: bool
    language: Language


# ---- Status of a product reference ----


class StatusPayment(TypedDict):
    paymentId: str
    status: AttemptStatus
    amount: float
    currency: str
    paidAt: Optional[str]
    orderId: Optional[str]
    webhookDelivery: Optional[WebhookDeliveryState]
    createdAt: str
    updatedAt: str


class StatusRecord(TypedDict):
    """``data`` of ``GET /partner/payments/v1/{reference}/status``. Branch on ``stage``."""

    reference: str
    stage: Stage
    locked: bool
    paid: bool
    lockReleaseTime: Optional[str]
    paymentId: Optional[str]
    channel: Literal["AGENCY"]
    currency: str
    amount: Optional[float]
    """DZD."""
    payment: Optional[StatusPayment]


# ---- QR codes ----


class QrCodeConfig(TypedDict):
    amounts: List[float]
    """DZD."""
    expiresAt: Optional[str]
    singleUse: bool
    version: int
    updatedAt: str


class QrCode(TypedDict):
    token: str
    createdAt: str
    payerUrl: str
    state: Literal["none", "configured", "expired"]
    config: Optional[QrCodeConfig]


class QrCodesPage(TypedDict):
    qrCodes: List[QrCode]
    nextCursor: Optional[str]


# ---- Payment links ----


class PaymentLink(TypedDict):
    id: str
    url: str
    """The payer's page; share it."""
    label: str
    amount: Optional[int]
    """Centimes for a fixed amount; ``None`` when the payer chooses."""
    minAmount: Optional[int]
    maxAmount: Optional[int]
    currency: Literal["DZD"]
    singleUse: bool
    expiresAt: Optional[str]
    language: Language
    metadata: Optional[JsonObject]
    state: Literal["active", "expired", "deactivated", "used"]
    paidCount: int
    paidAmount: int
    deactivatedAt: Optional[str]
    createdAt: str
    updatedAt: str


class PaymentLinksPage(TypedDict):
    links: List[PaymentLink]
    nextCursor: Optional[str]


# ---- Balance, payouts, reports ----


class BalanceFigures(TypedDict):
    capturedCount: int
    captured: float
    capturedCentimes: int
    fees: float
    feesCentimes: int
    refundCount: int
    refunds: float
    refundsCentimes: int
    net: float
    netCentimes: int
    payoutCount: int
    paidOut: float
    paidOutCentimes: int
    balance: float
    balanceCentimes: int


class BalanceDay(BalanceFigures):
    date: str


# ``data`` of ``GET /api/v1/balance``: balance = captured − fees − refunds − paidOut.
# Functional syntax because one field is named ``from``.
Balance = TypedDict(
    "Balance",
    {
        "timeZone": Literal["Africa/Algiers"],
        "utcOffset": Literal["+01:00"],
        "currency": Literal["DZD"],
        "asOf": str,
        "overall": BalanceFigures,
        "pendingRefunds": float,
        "pendingRefundsCentimes": int,
        "available": float,
        "availableCentimes": int,
        "from": str,
        "to": str,
        "openingBalance": float,
        "openingBalanceCentimes": int,
        "days": List[BalanceDay],
        "totals": BalanceFigures,
    },
)


class Payout(TypedDict):
    id: str
    mode: Literal["test", "live"]
    amount: float
    amountCentimes: int
    wallet: str
    reference: str
    recordedAt: str


class PayoutsPage(TypedDict):
    payouts: List[Payout]
    nextCursor: Optional[str]


class ReportFigures(TypedDict):
    successCount: int
    successAmount: float
    successAmountCentimes: int
    refundCount: int
    refundAmount: float
    refundAmountCentimes: int
    feeAmount: float
    feeAmountCentimes: int
    net: float
    netCentimes: int


class ReportDay(ReportFigures):
    date: str


# ``data`` of ``GET /api/v1/reports/daily``: a row per Algiers day, then totals.
DailyReport = TypedDict(
    "DailyReport",
    {
        "timeZone": Literal["Africa/Algiers"],
        "utcOffset": Literal["+01:00"],
        "currency": Literal["DZD"],
        "from": str,
        "to": str,
        "days": List[ReportDay],
        "totals": ReportFigures,
    },
)


# ---- Webhook settings, events and deliveries ----


class _WebhookSettingsRequired(TypedDict):
    url: Optional[str]
    events: List[WebhookEventKind]


class WebhookSettings(_WebhookSettingsRequired, total=False):
    signingSecretCreatedAt: str
    previousSecretValidUntil: str


class WebhookSettingsUpdated(WebhookSettings, total=False):
    signingSecret: str
    """The new signing secret, present once: the first time one was made."""


class _SigningSecretRotatedRequired(TypedDict):
    signingSecret: str
    signingSecretCreatedAt: str


class SigningSecretRotated(_SigningSecretRotatedRequired, total=False):
    previousSecretValidUntil: str


class WebhookTestResult(TypedDict):
    eventId: str
    url: str
    ok: bool
    statusCode: Optional[int]
    latencyMs: int
    error: Optional[str]


class EventDeliverySummary(TypedDict):
    id: str
    status: WebhookDeliveryState
    attempts: int
    lastStatusCode: Optional[int]


class EventRecord(TypedDict):
    """An event of ``GET /api/v1/events``: the webhook's id, type and ``data``."""

    id: str
    type: WebhookType
    createdAt: str
    paymentId: Optional[str]
    data: JsonObject
    delivery: Optional[EventDeliverySummary]


class EventsPage(TypedDict):
    events: List[EventRecord]
    nextCursor: Optional[str]


class DeliveryAttempt(TypedDict):
    number: int
    startedAt: str
    statusCode: Optional[int]
    latencyMs: Optional[int]
    responseExcerpt: Optional[str]
    error: Optional[str]


class Delivery(TypedDict):
    id: str
    eventId: str
    eventType: WebhookType
    paymentId: str
    reference: str
    state: WebhookDeliveryState
    attempts: List[DeliveryAttempt]
    nextAttemptAt: Optional[str]
    createdAt: str
    updatedAt: str


class DeliveryListItem(TypedDict):
    """A delivery of ``GET /api/v1/webhooks/deliveries``; a test event's has no payment."""

    id: str
    eventId: str
    eventType: WebhookType
    paymentId: Optional[str]
    reference: Optional[str]
    state: WebhookDeliveryState
    attempts: List[DeliveryAttempt]
    nextAttemptAt: Optional[str]
    createdAt: str
    updatedAt: str


class DeliveriesPage(TypedDict):
    deliveries: List[DeliveryListItem]
    nextCursor: Optional[str]


# ---- Audit log ----


class AuditActor(TypedDict):
    kind: Literal["user", "api_key", "operator"]
    id: str
    label: str


class AuditEvent(TypedDict):
    id: str
    at: str
    mode: Optional[Literal["test", "live"]]
    actor: AuditActor
    action: str
    target: Optional[str]
    details: JsonObject


class AuditEventsPage(TypedDict):
    events: List[AuditEvent]
    nextCursor: Optional[str]


# ---- What dzpay sends to a partner's server ----


class _WebhookEventDataRequired(TypedDict):
    paymentId: str
    reference: str
    """The product reference (AGENCY) or the merchant's order reference (CHECKOUT)."""
    channel: Channel
    amount: float
    """DZD (dinars, at most two decimals), before dzpay's fee. On payment.refunded: this refund."""
    currency: Literal["DZD"]
    status: str
    orderId: Optional[str]
    paidAt: Optional[str]
    metadata: Optional[JsonObject]
    failureReason: Optional[str]


class WebhookEventData(_WebhookEventDataRequired, total=False):
    refundedAmount: float
    """payment.refunded only: the payment's refunded total after this refund (DZD)."""


class WebhookEvent(TypedDict):
    """The body of a payment webhook. Deduplicate on ``id``."""

    id: str
    type: Literal["payment.success", "payment.fail", "payment.refunded"]
    createdAt: str
    data: WebhookEventData


class WebhookTestEventData(TypedDict):
    message: str


class WebhookTestEvent(TypedDict):
    """``webhook.test``: sent when the merchant asks for a test; about no payment."""

    id: str
    type: Literal["webhook.test"]
    createdAt: str
    data: WebhookTestEventData


class _ProductRequired(TypedDict):
    reference: str
    amount: float
    """DZD, positive, at most two decimals."""
    currency: Literal["DZD"]


class Product(_ProductRequired, total=False):
    """What a partner's ``GET {API_URL}/{reference}`` answers with 200."""

    label: str
    description: str
    metadata: JsonObject


class PartnerErrorBody(TypedDict):
    """The spec's partner error shape."""

    error: str
    errorMessage: str


AnyWebhookEvent = Union[WebhookEvent, WebhookTestEvent]
