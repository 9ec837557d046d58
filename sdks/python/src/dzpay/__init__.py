"""dzpay for Python: the merchant API client, webhook verification and product lookups.

Standard library only, Python 3.10 or later.

* ``DzpayClient``: register hosted-checkout payments, read, list, export, refund and
  cancel them, email receipts, query a product reference's status, configure QR codes,
  payment links, balance, reports and webhook settings.
* ``verify_webhook`` / ``construct_event`` / ``receive_webhook``: check the two
  signatures dzpay puts on every webhook, on the raw body.
* ``answer_product_lookup``, ``product_response``, ``partner_error``: the partner's
  ``GET {API_URL}/{reference}`` endpoint.
"""

from ._version import __version__
from .client import CsvExport, DzpayClient, Image, LastResponse
from .errors import (
    APIConnectionError,
    AuthenticationError,
    BadGatewayError,
    BadRequestError,
    ConflictError,
    DzpayError,
    GoneError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    UnexpectedResponseError,
    UnprocessableEntityError,
    WebhookVerificationError,
)
from .products import (
    PartnerResponse,
    RequestVerification,
    answer_product_lookup,
    error_response,
    partner_error,
    product_response,
    reference_from_path,
    verify_dzpay_request,
)
from .webhooks import (
    DEFAULT_TOLERANCE_SECONDS,
    PaymentLinkRef,
    WebhookEventTypes,
    WebhookVerification,
    construct_event,
    payment_link_of,
    receive_webhook,
    sign_webhook,
    standard_webhook_signature,
    verify_webhook,
)

__all__ = [
    "__version__",
    # Merchant API
    "DzpayClient",
    "CsvExport",
    "Image",
    "LastResponse",
    # Errors
    "DzpayError",
    "BadRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "GoneError",
    "UnprocessableEntityError",
    "RateLimitError",
    "InternalServerError",
    "BadGatewayError",
    "ServiceUnavailableError",
    "APIConnectionError",
    "UnexpectedResponseError",
    "WebhookVerificationError",
    # Webhooks
    "verify_webhook",
    "construct_event",
    "receive_webhook",
    "sign_webhook",
    "standard_webhook_signature",
    "WebhookVerification",
    "WebhookEventTypes",
    "DEFAULT_TOLERANCE_SECONDS",
    "payment_link_of",
    "PaymentLinkRef",
    # Product lookups
    "answer_product_lookup",
    "verify_dzpay_request",
    "product_response",
    "partner_error",
    "error_response",
    "reference_from_path",
    "PartnerResponse",
    "RequestVerification",
]
