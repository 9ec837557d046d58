"""Answering dzpay's product lookups: ``GET {API_URL}/{reference}`` on the partner's server.

When a payer opens a product reference (``/pay/{merchant}/{reference}`` or a product's
QR code), dzpay asks the partner's server for the product, with
``Authorization: Bearer <API_SECRET>`` and ``X-Timestamp``, and waits 4 s. The partner
answers 200 with the product (``reference``, ``amount`` in DZD with at most two
decimals, ``currency`` DZD, optional ``label``, ``description``, ``metadata``), or an
error in the partner shape ``{"error", "errorMessage"}``: 404 ``NOT_FOUND``,
409 ``ALREADY_PAID`` or 503 ``SERVICE_UNAVAILABLE``.
"""

from __future__ import annotations

import math
import re
import urllib.parse
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Dict, Optional, Union

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
    same_secret,
    utf16_length,
)
from .types import JsonObject, PartnerErrorCode

__all__ = [
    "PartnerResponse",
    "RequestVerification",
    "verify_dzpay_request",
    "product_response",
    "partner_error",
    "error_response",
    "answer_product_lookup",
    "reference_from_path",
]

_PARTNER_ERROR_STATUS: Dict[str, int] = {
    "NOT_FOUND": 404,
    "ALREADY_PAID": 409,
    "SERVICE_UNAVAILABLE": 503,
}


@dataclass(frozen=True)
class RequestVerification:
    """Whether a request comes from dzpay; truthy when it does. ``reason`` is
    ``missing_headers``, ``bad_secret`` or ``stale_timestamp`` otherwise."""

    ok: bool
    reason: Optional[str] = None
    message: Optional[str] = None

    def __bool__(self) -> bool:
        return self.ok


_BEARER = re.compile(r"Bearer ([^\n\r\u2028\u2029]+)", re.IGNORECASE)


def verify_dzpay_request(
    headers: Headers,
    api_secret: str,
    *,
    tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
    now: Now = None,
) -> RequestVerification:
    """Checks ``Authorization: Bearer <API_SECRET>`` (constant time) and an
    ``X-Timestamp`` within ``tolerance_seconds`` of now, either way."""
    if not isinstance(api_secret, str) or api_secret == "":
        raise ValueError("dzpay: api_secret must be a non-empty string")
    authorization = header(headers, "authorization")
    timestamp = header(headers, "x-timestamp")
    bearer = _BEARER.fullmatch(authorization) if authorization is not None else None
    if bearer is None or timestamp is None:
        return RequestVerification(
            False, "missing_headers", "Authorization and X-Timestamp are required"
        )
    if not same_secret(api_secret, bearer.group(1)):
        return RequestVerification(False, "bad_secret", "the API secret does not match")
    time_check = check_timestamp(timestamp, now, tolerance_seconds)
    if time_check == "malformed":
        return RequestVerification(False, "missing_headers", "X-Timestamp must be unix seconds")
    if time_check == "stale":
        return RequestVerification(
            False, "stale_timestamp", "the timestamp is too far from now"
        )
    return RequestVerification(True)


def _js_round(value: float) -> float:
    """``Math.round``: halves go up (Python's ``round`` goes to even)."""
    whole = math.floor(value)
    return whole + 1 if value - whole >= 0.5 else whole


def _has_at_most_two_decimals(dzd: float) -> bool:
    try:
        return _js_round(dzd * 100) / 100 == dzd
    except OverflowError:  # dzd * 100 is infinite: too large for dzpay (and for JavaScript)
        return False


def _decimal_places_at_most_two(amount: Decimal) -> bool:
    """Whether a finite ``Decimal`` has at most two decimal places, trailing zeros
    aside (``1500.50`` and ``1500.500`` do; ``1500.505`` does not). Exact, whatever the
    decimal context."""
    _sign, digits, exponent = amount.as_tuple()
    if not isinstance(exponent, int):  # NaN or infinity
        return False
    places = list(digits)
    while exponent < -2 and len(places) > 1 and places[-1] == 0:
        places.pop()
        exponent += 1
    return exponent >= -2 or places == [0]


def _json_amount(amount: Decimal) -> Union[int, float]:
    """A ``Decimal`` as the JSON number dzpay reads (JavaScript's nearest double)."""
    integral = amount.to_integral_value()
    return int(integral) if integral == amount else float(amount)


def product_response(
    reference: str,
    amount: Union[int, float, Decimal],
    *,
    label: Optional[str] = None,
    description: Optional[str] = None,
    metadata: Optional[JsonObject] = None,
    currency: str = "DZD",
) -> PartnerResponse:
    """200 with the product, checked as dzpay will check it: ``reference`` 1 to 255
    characters, ``amount`` in DZD, positive, at most two decimals (1500.5, never
    1500.505), ``label`` up to 200 and ``description`` up to 1000 characters.
    ``amount`` may be a ``decimal.Decimal`` (finite, at most two decimal places), sent as
    a JSON number. A product dzpay would refuse raises ``ValueError``: the bug is yours
    to fix."""
    problems = []
    if not isinstance(reference, str) or not 1 <= utf16_length(reference) <= 255:
        problems.append("reference must be 1 to 255 characters")
    sent: Any = amount
    if isinstance(amount, Decimal):
        if not amount.is_finite() or amount <= 0:
            problems.append("amount must be a positive, finite number of DZD")
            sent = None
        elif not _decimal_places_at_most_two(amount):
            problems.append("amount must have at most two decimals")
            sent = None
        else:
            sent = _json_amount(amount)
    if sent is None:
        pass
    elif not finite_number(sent) or sent <= 0:
        problems.append("amount must be a positive number of DZD")
    elif math.isinf(float(sent) * 100):
        problems.append("amount is too large")
    elif not _has_at_most_two_decimals(float(sent)):
        problems.append("amount must have at most two decimals")
    if currency != "DZD":
        problems.append("currency must be DZD")
    if label is not None and (not isinstance(label, str) or utf16_length(label) > 200):
        problems.append("label must be a string of at most 200 characters")
    if description is not None and (
        not isinstance(description, str) or utf16_length(description) > 1000
    ):
        problems.append("description must be a string of at most 1000 characters")
    if metadata is not None and (not isinstance(metadata, dict) or not finite_json(metadata)):
        problems.append("metadata must be a JSON object")
    if problems:
        raise ValueError("dzpay: a product dzpay would refuse: " + "; ".join(problems))
    body: Dict[str, Any] = {"reference": reference, "amount": sent, "currency": "DZD"}
    if label is not None:
        body["label"] = label
    if description is not None:
        body["description"] = description
    if metadata is not None:
        body["metadata"] = metadata
    return PartnerResponse(200, body)


def partner_error(code: PartnerErrorCode, message: str) -> PartnerResponse:
    """404 ``NOT_FOUND``, 409 ``ALREADY_PAID`` or 503 ``SERVICE_UNAVAILABLE``, in the
    partner error shape."""
    if code not in _PARTNER_ERROR_STATUS:
        raise ValueError(f"dzpay: {code!r} is not NOT_FOUND, ALREADY_PAID or SERVICE_UNAVAILABLE")
    return error_response(_PARTNER_ERROR_STATUS[code], code, message)


def answer_product_lookup(
    headers: Headers,
    reference: str,
    *,
    api_secret: str,
    lookup: Callable[[str], Optional[PartnerResponse]],
    on_error: Optional[Callable[[BaseException], Any]] = None,
    tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
    now: Now = None,
) -> PartnerResponse:
    """A whole product-lookup endpoint in one call, for any framework.

    Checks that dzpay sent the request (401 ``UNAUTHORIZED`` otherwise), then answers
    what ``lookup(reference)`` returns: ``product_response(...)`` or
    ``partner_error(...)``; ``None`` answers 404 ``NOT_FOUND``. A ``lookup`` that raises
    answers 503 ``SERVICE_UNAVAILABLE`` (and ``on_error(error)`` is told). ``reference``
    is the path segment already URL-decoded (see ``reference_from_path``).
    """
    verified = verify_dzpay_request(
        headers, api_secret, tolerance_seconds=tolerance_seconds, now=now
    )
    if not verified.ok:
        return error_response(401, "UNAUTHORIZED", verified.message or "")
    try:
        answer = lookup(reference)
    except Exception as error:  # noqa: BLE001 - any failure means "ask again later"
        if on_error is not None:
            on_error(error)
        return partner_error("SERVICE_UNAVAILABLE", "the product cannot be looked up right now")
    if answer is None:
        return partner_error("NOT_FOUND", "no product has this reference")
    if not isinstance(answer, PartnerResponse):
        raise TypeError("dzpay: lookup must return product_response(...), partner_error(...) or None")
    return answer


def reference_from_path(path: str, prefix: str = "") -> Optional[str]:
    """The product reference of a lookup's request path, URL-decoded
    (``/dzpay/BOOK%2F42%20%231`` under prefix ``/dzpay`` is ``BOOK/42 #1``), or ``None``
    when the path is not ``{prefix}/{one segment}`` or does not decode as UTF-8.

    Give it the raw path (``http.server``'s ``self.path``), query included or not.
    """
    raw = path.split("?", 1)[0].split("#", 1)[0]
    prefix = prefix.rstrip("/")
    if not raw.startswith(prefix + "/"):
        return None
    segment = raw[len(prefix) + 1 :]
    if segment == "" or "/" in segment:
        return None
    try:
        return urllib.parse.unquote(segment, errors="strict")
    except UnicodeDecodeError:
        return None
