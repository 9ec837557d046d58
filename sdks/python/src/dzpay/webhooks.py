"""Verifying the webhooks dzpay sends to ``POST {API_URL}/webhooks/platform``.

dzpay signs every request twice, with the partner's **webhook signing secret** (not the
API secret, which travels in ``Authorization`` and proves nothing about the body):

* ``X-Signature``: hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, of the raw body
  bytes followed by ``X-Timestamp`` (unix seconds, decimal), no separator;
* Standard Webhooks: ``webhook-signature`` holds space-separated ``v1,<base64>`` entries,
  each the HMAC-SHA256 of ``{webhook-id}.{webhook-timestamp}.{raw body}``; a secret
  written ``whsec_<base64>`` is keyed with the decoded bytes, any other with its UTF-8
  bytes. During a rotation it carries one entry per valid secret. A ``whsec_`` secret
  whose base64 decodes to fewer than 16 bytes (``whsec_``, a truncated copy) is refused
  with ``ValueError`` wherever a secret is taken: with it anyone could sign.

A request is accepted when either scheme verifies with any of your secrets, its
timestamp within the tolerance (300 s either way) of your clock. Signatures are compared
in constant time, on the **raw body bytes as received**: never parse and re-serialise the
JSON before verifying.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Union

from ._common import (
    DEFAULT_TOLERANCE_SECONDS,
    Headers,
    Now,
    PartnerResponse,
    check_timestamp,
    error_response,
    finite_json,
    finite_number,
    header,
    utf8,
)
from .errors import WebhookVerificationError
from .types import WebhookEvent, WebhookTestEvent

__all__ = [
    "RawBody",
    "WebhookVerification",
    "WebhookEventTypes",
    "verify_webhook",
    "construct_event",
    "receive_webhook",
    "sign_webhook",
    "standard_webhook_signature",
    "PaymentLinkRef",
    "payment_link_of",
    "DEFAULT_TOLERANCE_SECONDS",
]

RawBody = Union[bytes, bytearray, memoryview, str]
"""The request body exactly as received; a ``str`` is taken as its UTF-8 bytes."""

AnyEvent = Union[WebhookEvent, WebhookTestEvent]


class WebhookEventTypes:
    """The event types dzpay sends."""

    SUCCESS = "payment.success"
    FAIL = "payment.fail"
    REFUNDED = "payment.refunded"
    TEST = "webhook.test"


_MESSAGES = {
    "missing_headers": (
        "X-Signature and X-Timestamp (or the webhook-* headers) are required, "
        "with the timestamp in unix seconds"
    ),
    "stale_timestamp": "the timestamp is too far from now",
    "bad_signature": "the signature does not match",
    "malformed_body": "the body is not a dzpay event",
}


@dataclass(frozen=True)
class WebhookVerification:
    """The outcome of ``verify_webhook``: truthy when it verified.

    ``event`` is the parsed event when ``ok``; otherwise ``reason`` is
    ``missing_headers``, ``stale_timestamp``, ``bad_signature`` or ``malformed_body``
    and ``message`` says it in words.
    """

    ok: bool
    event: Optional[AnyEvent] = None
    reason: Optional[str] = None
    message: Optional[str] = None

    def __bool__(self) -> bool:
        return self.ok


def _body_bytes(raw_body: RawBody) -> bytes:
    if isinstance(raw_body, str):
        return utf8(raw_body)
    if isinstance(raw_body, (bytes, bytearray, memoryview)):
        return bytes(raw_body)
    raise TypeError(
        "dzpay: raw_body must be the request body as received (bytes or str), "
        "not parsed JSON"
    )


def sign_webhook(raw_body: RawBody, timestamp: Union[int, str], secret: str) -> str:
    """The ``X-Signature`` dzpay sends: hex HMAC-SHA256 of the body then the timestamp."""
    mac = hmac.new(utf8(secret), _body_bytes(raw_body), hashlib.sha256)
    mac.update(str(timestamp).encode("ascii"))
    return mac.hexdigest()


def standard_webhook_signature(
    webhook_id: str, timestamp: Union[int, str], raw_body: RawBody, secret: str
) -> str:
    """One ``webhook-signature`` entry: ``v1,`` and the base64 HMAC-SHA256 of
    ``{id}.{timestamp}.{body}``."""
    mac = hmac.new(_standard_key(secret), utf8(f"{webhook_id}.{timestamp}."), hashlib.sha256)
    mac.update(_body_bytes(raw_body))
    return "v1," + base64.b64encode(mac.digest()).decode("ascii")


_BASE64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

MIN_WHSEC_KEY_BYTES = 16
"""The fewest bytes a ``whsec_`` secret's base64 part may decode to (dzpay's hold 32)."""


def _standard_key(secret: str) -> bytes:
    if not secret.startswith("whsec_"):
        return utf8(secret)
    key = _whsec_key(secret)
    if len(key) < MIN_WHSEC_KEY_BYTES:
        # 'whsec_', 'whsec_x' or 'whsec_===' would key the HMAC with (almost) nothing,
        # and anyone could sign. Never put the secret in the message.
        raise ValueError(
            "dzpay: a whsec_ webhook signing secret must decode to at least "
            f"{MIN_WHSEC_KEY_BYTES} bytes of base64 after 'whsec_'; this one does not "
            "(copy the whole secret dzpay showed)"
        )
    return key


def _whsec_key(secret: str) -> bytes:
    # Decoded as Node's Buffer.from(…, 'base64') does (dzpay signs with it): URL-safe
    # letters read as standard ones, other characters skipped, stop at the padding.
    chars: List[str] = []
    for char in secret[6:]:
        if char == "=":
            break
        char = {"-": "+", "_": "/"}.get(char, char)
        if char in _BASE64_ALPHABET:
            chars.append(char)
    text = "".join(chars)
    if len(text) % 4 == 1:
        text = text[:-1]
    text += "=" * (-len(text) % 4)
    return base64.b64decode(text)


def _secrets_of(signing_secret: Optional[str], signing_secrets: Optional[Sequence[str]]) -> List[str]:
    if signing_secret is not None and signing_secrets is not None:
        raise ValueError("dzpay: give signing_secret or signing_secrets, not both")
    secrets = [signing_secret] if signing_secrets is None else list(signing_secrets)
    if isinstance(signing_secrets, str):
        raise ValueError("dzpay: signing_secrets is a list of secrets")
    if not secrets or any(not isinstance(s, str) or s == "" for s in secrets):
        # An empty key would let anyone sign: a setup error, not a request's.
        raise ValueError("dzpay: the webhook signing secret(s) must be non-empty strings")
    checked = [secret for secret in secrets if isinstance(secret, str)]
    for secret in checked:
        _standard_key(secret)  # raises for a whsec_ secret too short to be a key
    return checked


_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
_V1_ENTRY = re.compile(r"v1,[A-Za-z0-9+/]{43}=")


def _timestamp_check(result: str) -> str:
    return {"ok": "ok", "stale": "stale_timestamp"}.get(result, "missing_headers")


def _dzpay_signature_matches(
    body: bytes, timestamp: str, received: str, secrets: Sequence[str]
) -> str:
    if not _HEX64.fullmatch(received):
        return "bad_signature"
    digest = bytes.fromhex(received)
    for secret in secrets:
        expected = bytes.fromhex(sign_webhook(body, timestamp, secret))
        if hmac.compare_digest(expected, digest):
            return "ok"
    return "bad_signature"


def _standard_signature_matches(
    webhook_id: str, timestamp: str, body: bytes, received: str, secrets: Sequence[str]
) -> str:
    # Several space-separated entries during a rotation; versions other than v1 are skipped.
    digests = [
        base64.b64decode(entry[3:]) for entry in received.split(" ") if _V1_ENTRY.fullmatch(entry)
    ]
    for secret in secrets:
        expected = base64.b64decode(
            standard_webhook_signature(webhook_id, timestamp, body, secret)[3:]
        )
        for digest in digests:
            if hmac.compare_digest(expected, digest):
                return "ok"
    return "bad_signature"


def verify_webhook(
    raw_body: RawBody,
    headers: Headers,
    *,
    signing_secret: Optional[str] = None,
    signing_secrets: Optional[Sequence[str]] = None,
    tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
    now: Now = None,
) -> WebhookVerification:
    """Checks a webhook request from its raw body and headers, then parses the event.

    Accepts dzpay's own headers (``X-Signature``, ``X-Timestamp``) and the Standard
    Webhooks ones (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``); either
    verifying with any secret is enough (pass ``signing_secrets=[new, old]`` while
    rotating). Never raises because of what a request holds; raises ``ValueError`` when
    no usable secret is configured.
    """
    secrets = _secrets_of(signing_secret, signing_secrets)
    body = _body_bytes(raw_body)
    signature = header(headers, "x-signature")
    timestamp = header(headers, "x-timestamp")
    webhook_id = header(headers, "webhook-id")
    standard_timestamp = header(headers, "webhook-timestamp")
    standard_signatures = header(headers, "webhook-signature")

    check: Optional[str] = None
    if signature is not None and timestamp is not None:
        check = _timestamp_check(check_timestamp(timestamp, now, tolerance_seconds))
        if check == "ok":
            check = _dzpay_signature_matches(body, timestamp, signature, secrets)
    if (
        check != "ok"
        and webhook_id is not None
        and standard_timestamp is not None
        and standard_signatures is not None
    ):
        standard = _timestamp_check(check_timestamp(standard_timestamp, now, tolerance_seconds))
        if standard == "ok":
            standard = _standard_signature_matches(
                webhook_id, standard_timestamp, body, standard_signatures, secrets
            )
        # The first scheme's reason stands unless the second one passes.
        if check is None or standard == "ok":
            check = standard
    if check is None:
        return _failure("missing_headers")
    if check != "ok":
        return _failure(check)
    return _parse_event(raw_body, body)


def construct_event(
    raw_body: RawBody,
    headers: Headers,
    *,
    signing_secret: Optional[str] = None,
    signing_secrets: Optional[Sequence[str]] = None,
    tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
    now: Now = None,
) -> AnyEvent:
    """``verify_webhook`` that returns the event or raises ``WebhookVerificationError``
    (its ``reason``: answer 400 for ``malformed_body``, 401 otherwise)."""
    result = verify_webhook(
        raw_body,
        headers,
        signing_secret=signing_secret,
        signing_secrets=signing_secrets,
        tolerance_seconds=tolerance_seconds,
        now=now,
    )
    if not result.ok or result.event is None:
        raise WebhookVerificationError(result.reason or "bad_signature", result.message or "")
    return result.event


def receive_webhook(
    raw_body: RawBody,
    headers: Headers,
    *,
    on_event: Callable[[WebhookEvent], Any],
    signing_secret: Optional[str] = None,
    signing_secrets: Optional[Sequence[str]] = None,
    on_test: Optional[Callable[[WebhookTestEvent], Any]] = None,
    on_error: Optional[Callable[[BaseException, WebhookEvent], Any]] = None,
    tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
    now: Now = None,
) -> PartnerResponse:
    """A whole webhook endpoint in one call, for any framework: verifies the request,
    hands the event to ``on_event`` and says what to answer dzpay.

    * verified: ``on_event(event)``, then 200 ``{"success": true}``;
    * a verified ``webhook.test``: ``on_test(event)`` when given, 200, never ``on_event``;
    * bad or missing signature, stale timestamp: 401 ``UNAUTHORIZED``;
    * a signed body that is not an event: 400 ``BAD_REQUEST``;
    * ``on_event`` raised: ``on_error(error, event)``, 503 ``SERVICE_UNAVAILABLE``, and
      dzpay sends the event again later; ``on_test`` or ``on_error`` raising answers 503
      too (``on_error`` is not told of an ``on_test`` failure).

    The callbacks are plain functions: one that returns an awaitable (an ``async def``)
    raises ``TypeError`` (its coroutine closed, never run), since answering 200 would
    tell dzpay an event was handled that never was. In an async framework call
    ``verify_webhook`` and await your handler yourself.

    dzpay waits 15 s and delivers at least once: store the event keyed on ``event["id"]``
    (a unique constraint, with its effect in one transaction) and return quickly.
    Raises ``ValueError`` when no usable secret is configured.
    """
    verified = verify_webhook(
        raw_body,
        headers,
        signing_secret=signing_secret,
        signing_secrets=signing_secrets,
        tolerance_seconds=tolerance_seconds,
        now=now,
    )
    if not verified.ok or verified.event is None:
        if verified.reason == "malformed_body":
            return error_response(400, "BAD_REQUEST", verified.message or "")
        return error_response(401, "UNAUTHORIZED", verified.message or "")
    event = verified.event
    if event["type"] == WebhookEventTypes.TEST:
        if on_test is not None:
            try:
                returned = on_test(event)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - any failure means "send it again"
                return _send_again()
            _refuse_awaitable(returned, "on_test")
        return PartnerResponse(200, {"success": True})
    try:
        returned = on_event(event)  # type: ignore[arg-type]
    except Exception as error:  # noqa: BLE001 - any failure means "send it again"
        if on_error is not None:
            try:
                told = on_error(error, event)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - the event still failed: 503
                told = None
            _refuse_awaitable(told, "on_error")
        return _send_again()
    _refuse_awaitable(returned, "on_event")
    return PartnerResponse(200, {"success": True})


def _send_again() -> PartnerResponse:
    return error_response(
        503, "SERVICE_UNAVAILABLE", "the event could not be processed; send it again"
    )


def _refuse_awaitable(returned: Any, name: str) -> None:
    """A callback that returned an awaitable did nothing yet: close it and say so."""
    if not inspect.isawaitable(returned):
        return
    close = getattr(returned, "close", None)
    if callable(close):
        close()  # no "coroutine was never awaited" warning, and it can never run
    raise TypeError(
        f"dzpay: receive_webhook's {name} returned an awaitable (an async def?); it must "
        "be a plain function that has handled the event when it returns. In async code "
        "call verify_webhook and await your handler, then answer dzpay yourself."
    )


# ---- The event's shape (what @dzpay/partner-sdk's schemas accept) ----

_DATETIME = re.compile(
    r"(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29"
    r"|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)"
    r"|(?:02)-(?:0[1-9]|1\d|2[0-8])))"
    r"T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))",
    re.ASCII,
)


def _is_datetime(value: Any) -> bool:
    return isinstance(value, str) and _DATETIME.fullmatch(value) is not None


def _is_text(value: Any, min_length: int = 0) -> bool:
    return isinstance(value, str) and len(value) >= min_length


def _nullable(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


def _is_record(value: Any) -> bool:
    return isinstance(value, dict) and finite_json(value)


_EVENT_DATA_FIELDS: Dict[str, Callable[[Any], bool]] = {
    "paymentId": lambda v: _is_text(v, 1),
    "reference": _is_text,
    "channel": lambda v: v in ("AGENCY", "CHECKOUT"),
    "amount": finite_number,
    "currency": lambda v: isinstance(v, str) and v == "DZD",
    "status": _is_text,
    "orderId": _nullable(_is_text),
    "paidAt": _nullable(_is_datetime),
    "metadata": _nullable(_is_record),
    "failureReason": _nullable(_is_text),
}


def _problem(json_value: Any) -> Optional[str]:
    """What keeps a parsed body from being a dzpay event, or ``None``."""
    if not isinstance(json_value, dict):
        return "the body is not a JSON object"
    if not _is_text(json_value.get("id"), 1):
        return "id must be a non-empty string"
    kind = json_value.get("type")
    if not _is_datetime(json_value.get("createdAt")):
        return "createdAt must be an ISO 8601 date-time with offset"
    data = json_value.get("data")
    if not isinstance(data, dict):
        return "data must be an object"
    if kind == WebhookEventTypes.TEST:
        return None if isinstance(data.get("message"), str) else "data.message must be a string"
    if kind not in (WebhookEventTypes.SUCCESS, WebhookEventTypes.FAIL, WebhookEventTypes.REFUNDED):
        return f"type {kind!r} is not a dzpay event type"
    for name, check in _EVENT_DATA_FIELDS.items():
        if name not in data or not check(data[name]):
            return f"data.{name} is missing or malformed"
    if "refundedAmount" in data and not finite_number(data["refundedAmount"]):
        return "data.refundedAmount must be a number"
    return None


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_event(raw_body: RawBody, body: bytes) -> WebhookVerification:
    try:
        if isinstance(raw_body, str):
            text = raw_body
        else:
            text = body.decode("utf-8")
            if text.startswith("\ufeff"):  # a decoder drops one leading byte-order mark
                text = text[1:]
        parsed = json.loads(text, parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _failure("malformed_body", "the body is not JSON")
    problem = _problem(parsed)
    if problem is not None:
        return _failure("malformed_body", f"the body is not a dzpay event: {problem}")
    return WebhookVerification(ok=True, event=parsed)


def _failure(reason: str, message: Optional[str] = None) -> WebhookVerification:
    return WebhookVerification(ok=False, reason=reason, message=message or _MESSAGES[reason])


# ---- Payment links ----


class PaymentLinkRef(NamedTuple):
    payment_link_id: str
    number: int
    """The link's n-th payment."""


_LINK_REFERENCE = re.compile(
    r"link-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([1-9][0-9]{0,15})"
)


def payment_link_of(reference: str) -> Optional[PaymentLinkRef]:
    """The payment link a webhook's payment was made through, read from its reference
    (``link-{paymentLinkId}-{n}``); ``None`` for any other reference."""
    match = _LINK_REFERENCE.fullmatch(reference)
    return PaymentLinkRef(match.group(1), int(match.group(2))) if match else None
