"""Exceptions: every answer of dzpay that is not the expected success raises one.

``DzpayError`` carries the HTTP ``status``, the standard envelope's ``error_code`` (the
stable identifier to branch on), ``details``, the ``message``, the parsed ``body`` and
``retry_after`` (seconds) when dzpay said when to come back. A subclass per HTTP status
lets you catch broadly (``except dzpay.ConflictError``) or branch on ``error_code``.

The spec's four error shapes are all read: the standard envelope (``errorCode``,
``details``), the validation list of the QR endpoints (``messages``), the bare rate-limit
body, and anything else (``body`` keeps it).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Type

__all__ = [
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
    "error_from_response",
]


class DzpayError(Exception):
    """An answer of dzpay that is not the expected success."""

    status: Optional[int]
    """The HTTP status; ``None`` when no answer came (``APIConnectionError``)."""
    error_code: Optional[str]
    """``errorCode`` of the standard envelope; ``None`` for the validation-list and
    rate-limit shapes. One of ``dzpay.types.ErrorCode``; new codes may appear."""
    message: str
    """The envelope's message (joined when it is a list). Its wording may change."""
    messages: List[str]
    """Every message of the validation-list shape (one per failed rule); else ``[message]``."""
    details: Dict[str, Any]
    """The envelope's ``details`` (``{}`` when absent)."""
    body: Any
    """The parsed JSON body, or its text when it is not JSON."""
    retry_after: Optional[float]
    """Seconds dzpay asked to wait (``Retry-After``), when it did."""
    headers: Dict[str, str]
    """The answer's headers, names in lower case."""
    timestamp: Optional[str]
    """The envelope's ``timestamp`` (ISO 8601 UTC)."""
    idempotency_key: Optional[str]
    """The ``Idempotency-Key`` the failed call sent (yours, or the one made for it);
    ``None`` when it sent none. After an ``APIConnectionError`` or a pending refund, call
    again with this same key, never a new one: dzpay then answers what the first request
    did instead of doing it twice."""

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        error_code: Optional[str] = None,
        messages: Optional[List[str]] = None,
        details: Optional[Dict[str, Any]] = None,
        body: Any = None,
        retry_after: Optional[float] = None,
        headers: Optional[Mapping[str, str]] = None,
        timestamp: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> None:
        label = f"dzpay answered {status}" if status is not None else "dzpay"
        code = f" {error_code}" if error_code else ""
        super().__init__(f"{label}{code}: {message}")
        self.status = status
        self.error_code = error_code
        self.message = message
        self.messages = list(messages) if messages is not None else [message]
        self.details = dict(details or {})
        self.body = body
        self.retry_after = retry_after
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        self.timestamp = timestamp
        self.idempotency_key = idempotency_key

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, error_code={self.error_code!r}, "
            f"message={self.message!r})"
        )


class BadRequestError(DzpayError):
    """400: a field is missing or malformed (``details.failures`` names it), an amount
    out of range, an unsupported currency, metadata too large; on the QR endpoints, the
    validation list (``messages``)."""


class AuthenticationError(DzpayError):
    """401: the API key is missing, unknown or revoked, or its merchant is inactive."""


class PermissionDeniedError(DzpayError):
    """403: the key is valid but the merchant is not active (status endpoint)."""


class NotFoundError(DzpayError):
    """404: no such payment, QR code, link, event or delivery for the key's merchant and mode."""


class ConflictError(DzpayError):
    """409: duplicate reference, Idempotency-Key reused with another body, not refundable,
    refund pending, not cancellable, receipt not available, … An
    ``IDEMPOTENCY409_KEY_REUSED`` whose first request is still running
    (``details["inProgress"]``) is retried by the client first, like a 503."""


class GoneError(DzpayError):
    """410: a payment link deactivated or expired."""


class UnprocessableEntityError(DzpayError):
    """422: the merchant has no wallet to settle into."""


class RateLimitError(DzpayError):
    """429: too many requests; ``retry_after`` says when to come back."""


class InternalServerError(DzpayError):
    """500: a fault of dzpay."""


class BadGatewayError(DzpayError):
    """502: the card network or the mail server failed (a registration's reference is
    used up: retry with a new one)."""


class ServiceUnavailableError(DzpayError):
    """503: a backing service did not answer in time; safe to retry."""


class APIConnectionError(DzpayError):
    """No answer, or not all of it: the connection failed, was reset or timed out (also
    while the answer's body was being read). ``status`` is ``None``. dzpay may have acted
    on the request: send it again with ``idempotency_key``, when it had one."""


class UnexpectedResponseError(DzpayError):
    """A success status this operation does not answer with, or a body that is not the
    JSON dzpay documents (a proxy's page, a redirect)."""


class WebhookVerificationError(Exception):
    """A webhook request that does not verify (``construct_event``).

    ``reason`` is one of ``missing_headers``, ``stale_timestamp``, ``bad_signature`` and
    ``malformed_body``: answer 400 for ``malformed_body``, 401 otherwise.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


_BY_STATUS: Dict[int, Type[DzpayError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    500: InternalServerError,
    502: BadGatewayError,
    503: ServiceUnavailableError,
}


def _class_for(status: int) -> Type[DzpayError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if 500 <= status < 600:
        return InternalServerError
    if 200 <= status < 400:
        return UnexpectedResponseError
    return DzpayError


def error_from_response(
    status: int,
    body: Any,
    headers: Optional[Mapping[str, str]] = None,
    retry_after: Optional[float] = None,
    idempotency_key: Optional[str] = None,
) -> DzpayError:
    """The exception for an answer: ``body`` is the parsed JSON (or the text)."""
    error_code: Optional[str] = None
    details: Optional[Dict[str, Any]] = None
    timestamp: Optional[str] = None
    messages: Optional[List[str]] = None
    message = f"HTTP {status}"
    if isinstance(body, dict):
        raw_message = body.get("message")
        if isinstance(raw_message, str):
            message = raw_message
        elif isinstance(raw_message, list) and all(isinstance(m, str) for m in raw_message):
            messages = list(raw_message)
            message = "; ".join(messages)
        if isinstance(body.get("errorCode"), str):
            error_code = body["errorCode"]
        if isinstance(body.get("details"), dict):
            details = body["details"]
        if isinstance(body.get("timestamp"), str):
            timestamp = body["timestamp"]
        # The partner error shape, should a proxy or partner answer with it.
        if error_code is None and isinstance(body.get("error"), str) and "errorMessage" in body:
            message = str(body.get("errorMessage"))
    return _class_for(status)(
        message,
        status=status,
        error_code=error_code,
        messages=messages,
        details=details,
        body=body,
        retry_after=retry_after,
        headers=headers,
        timestamp=timestamp,
        idempotency_key=idempotency_key,
    )
