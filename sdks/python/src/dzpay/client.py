"""dzpay's merchant API: one method per operation, standard library only.

    from dzpay import DzpayClient

    client = DzpayClient(api_key="pk_test_...", base_url="http://localhost:8080")
    payment = client.register_payment(amount=250000, reference="ORDER-1001")
    redirect_to(payment["checkoutUrl"])

Answers are the JSON ``data`` dzpay sent, typed with ``dzpay.types``; anything other than
the expected success raises a ``dzpay.DzpayError`` subclass.

Retries: an answer 429 (rate limited) or 503 (a backing service did not answer in time)
is sent again after the ``Retry-After`` dzpay gave (else a short backoff), at most
``max_retries`` times and never when dzpay asks to wait longer than ``max_retry_delay``.
Registrations and refunds always carry an ``Idempotency-Key`` (yours, or one made per
call) and every retry sends the same key with the same body, so a retry can never pay
or refund twice. 503 and lost connections (also a timeout or reset while an answer's body
is read) are retried only for operations that are safe to repeat, and so is a 409
``IDEMPOTENCY409_KEY_REUSED`` that says the key's first request is still running (a retry
overtook it: the answer comes once that request ends); 429 (refused before anything
happened) for every operation. Every ``DzpayError`` of a call that sent an
``Idempotency-Key`` carries it as ``error.idempotency_key``: after an
``APIConnectionError`` call again with that same key, never a new one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import platform
import random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import date, datetime
from email.message import Message
from email.utils import parsedate_to_datetime
from http.client import HTTPException
from typing import (
    Any,
    BinaryIO,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
    cast,
)

from . import errors
from ._version import __version__
from .types import (
    AuditEvent,
    AuditEventsPage,
    Balance,
    Channel,
    CheckoutStatus,
    CsvDialect,
    DailyReport,
    DeliveriesPage,
    Delivery,
    DeliveryListItem,
    EventRecord,
    EventsPage,
    JsonObject,
    Language,
    Payment,
    PaymentLink,
    PaymentLinksPage,
    PaymentListItem,
    PaymentsPage,
    Payout,
    PayoutsPage,
    QrCode,
    QrCodesPage,
    ReceiptEmailResult,
    RefundedPayment,
    RegisteredPayment,
    SigningSecretRotated,
    StatusRecord,
    WebhookEventKind,
    WebhookSettings,
    WebhookSettingsUpdated,
    WebhookTestResult,
    WebhookType,
)

__all__ = ["DzpayClient", "Image", "CsvExport", "DEFAULT_MAX_RETRIES", "DEFAULT_MAX_RETRY_DELAY"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_RETRY_DELAY = 60.0
"""The longest Retry-After the client waits for by itself (seconds)."""

_STILL_RUNNING_PREFIX = "a request with this Idempotency-Key is still running"
_NO_BODY: Any = object()
_UNSET: Any = object()

DateLike = Union[str, date]
"""A day (``YYYY-MM-DD``) as text or as a ``datetime.date``."""
InstantLike = Union[str, datetime, date]
"""An ISO 8601 instant with its offset, or a day, as text, ``datetime`` or ``date``."""


# ---- What the client keeps of dzpay's last answer ----


@dataclass(frozen=True)
class LastResponse:
    """The HTTP status and headers (lower-case names) of the last successful call made by
    this thread."""

    status: int
    headers: Mapping[str, str]

    @property
    def replayed(self) -> bool:
        """True when dzpay answered a kept answer for a repeated Idempotency-Key."""
        return self.headers.get("idempotent-replayed") == "true"


# ---- What non-JSON answers are returned as ----


@dataclass(frozen=True)
class Image:
    """An image dzpay answered (a QR code): its bytes, media type and ETag."""

    content_type: str
    etag: Optional[str]
    data: bytes

    @property
    def format(self) -> str:
        """``png`` or ``svg``."""
        return "png" if self.content_type.startswith("image/png") else "svg"

    @property
    def text(self) -> str:
        """The SVG as text."""
        return self.data.decode("utf-8")


class CsvExport:
    """A CSV export as it streams from dzpay: read it once, in any of these ways.

    Use it as a context manager (or call ``close``) unless you read it to the end::

        with client.export_payments(status="success") as export:
            for row in export.iter_dicts():
                ...

    dzpay answers a bad filter with an error before sending any CSV, so a
    ``DzpayError`` is raised by ``export_payments`` itself, never halfway through.
    """

    def __init__(
        self,
        response: Any,
        dialect: CsvDialect,
        headers: Dict[str, str],
        *,
        description: str = "GET /api/v1/payments/export",
        idempotency_key: Optional[str] = None,
    ) -> None:
        self._response = response
        self._description = description
        self._idempotency_key = idempotency_key
        self.dialect: CsvDialect = dialect
        self.headers = headers
        self.content_type: str = headers.get("content-type", "")
        self.filename: Optional[str] = _filename_of(headers.get("content-disposition"))
        self._consumed = False

    @property
    def delimiter(self) -> str:
        return ";" if self.dialect == "spreadsheet" else ","

    def _take(self) -> Any:
        if self._consumed:
            raise RuntimeError("this export was read already: ask dzpay for it again")
        self._consumed = True
        return self._response

    def _cut_off(self, lost: BaseException) -> errors.APIConnectionError:
        return errors.APIConnectionError(
            f"{self._description}: the CSV stopped before its end ({lost!r})",
            idempotency_key=self._idempotency_key,
        )

    def iter_bytes(self, chunk_size: int = 64 * 1024) -> Iterator[bytes]:
        """The file's bytes as they arrive (a spreadsheet-dialect file starts with a BOM).
        A timeout or reset halfway raises ``APIConnectionError``."""
        response = self._take()
        try:
            while True:
                try:
                    chunk = response.read(chunk_size)
                except (OSError, HTTPException) as lost:
                    raise self._cut_off(lost) from lost
                if not chunk:
                    return
                yield chunk
        finally:
            response.close()

    __iter__ = iter_bytes

    def iter_rows(self) -> Iterator[List[str]]:
        """Each record as a list of cells, the header row first (quoted line breaks kept)."""
        response = self._take()
        try:
            text = io.TextIOWrapper(response, encoding="utf-8-sig", newline="")
            rows = csv.reader(text, delimiter=self.delimiter)
            while True:
                try:
                    row = next(rows)
                except StopIteration:
                    return
                except (OSError, HTTPException) as lost:
                    raise self._cut_off(lost) from lost
                yield row
        finally:
            response.close()

    def iter_dicts(self) -> Iterator[Dict[str, str]]:
        """Each payment as ``{column: cell}`` (columns: ``id``, ``created_at``, …)."""
        rows = self.iter_rows()
        header = next(rows, None)
        if header is None:
            return
        for row in rows:
            yield dict(zip(header, row))

    def write_to(self, file: BinaryIO, chunk_size: int = 64 * 1024) -> int:
        """Copies the file into a binary file object; returns the number of bytes."""
        written = 0
        for chunk in self.iter_bytes(chunk_size):
            file.write(chunk)
            written += len(chunk)
        return written

    def read(self) -> bytes:
        """The whole file at once (holds it in memory)."""
        return b"".join(self.iter_bytes())

    def close(self) -> None:
        self._consumed = True
        self._response.close()

    def __enter__(self) -> "CsvExport":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _filename_of(disposition: Optional[str]) -> Optional[str]:
    if not disposition:
        return None
    message = Message()
    message["content-disposition"] = disposition
    name = message.get_filename()
    return str(name) if name is not None else None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """dzpay's API never redirects: a 3xx is answered as an error, and the API key is
    never sent on to another address."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


# ---- The client ----


class DzpayClient:
    """A client of dzpay's merchant API for one API key.

    :param api_key: a ``pk_test_…`` (sandbox) or ``pk_live_…`` key; default
        ``$DZPAY_API_KEY``.
    :param base_url: the gateway's base URL (``{gateway_base_url}`` of the spec), e.g.
        ``https://pay.example.dz``; default ``$DZPAY_BASE_URL``.
    :param partner_base_url: the spec's ``{base_url}`` of the partner API (QR
        configuration and status), when it differs; dzpay serves both from the gateway,
        so it defaults to ``base_url``.
    :param timeout: seconds to wait for each answer.
    :param max_retries: how many times a 429/503 (or a lost connection, when safe) is
        sent again.
    :param max_retry_delay: the longest ``Retry-After`` waited for by the client itself;
        a longer one is raised at once (``error.retry_after`` says how long).
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        partner_base_url: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
        user_agent: Optional[str] = None,
    ) -> None:
        api_key = api_key if api_key is not None else os.environ.get("DZPAY_API_KEY")
        base_url = base_url if base_url is not None else os.environ.get("DZPAY_BASE_URL")
        if not api_key:
            raise ValueError("dzpay: api_key is required (or set DZPAY_API_KEY)")
        if not base_url:
            raise ValueError("dzpay: base_url is required (or set DZPAY_BASE_URL)")
        if max_retries < 0:
            raise ValueError("dzpay: max_retries must not be negative")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.partner_base_url = (partner_base_url or base_url).rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.user_agent = user_agent or (
            f"dzpay-python/{__version__} python/{platform.python_version()}"
        )
        self._opener = urllib.request.build_opener(_NoRedirect())
        self._sleep: Callable[[float], None] = time.sleep
        self._local = threading.local()

    @property
    def last_response(self) -> Optional[LastResponse]:
        """The status and headers (``idempotent-replayed``, ``x-ratelimit-remaining``) of
        the last call this thread made, when it succeeded: each thread sees its own calls.
        ``None`` once a call starts, and after a call that failed (a call succeeds once
        its answer's body was read and parsed; ``export_payments`` once the CSV starts)."""
        return cast(Optional[LastResponse], getattr(self._local, "last_response", None))

    @last_response.setter
    def last_response(self, value: Optional[LastResponse]) -> None:
        self._local.last_response = value

    def __repr__(self) -> str:
        mode = "live" if self.api_key.startswith("pk_live_") else "test"
        return f"DzpayClient(base_url={self.base_url!r}, mode={mode!r})"

    # ---- Payments (hosted checkout) ----

    def register_payment(
        self,
        *,
        amount: int,
        reference: str,
        currency: str = "DZD",
        success_url: Optional[str] = None,
        failure_url: Optional[str] = None,
        language: Optional[Language] = None,
        metadata: Optional[JsonObject] = None,
        idempotency_key: Optional[str] = None,
    ) -> RegisteredPayment:
        """``POST /api/v1/payments``: a payment and its one-time ``checkoutUrl``.

        ``amount`` is integer **centimes** (dinars × 100) before the fee; ``reference``
        your order number, unique per key. Redirect the payer to ``checkoutUrl`` at once:
        it is shown only in this answer, and the payer has 15 minutes. dzpay appends
        ``reference=<reference>`` to ``success_url``/``failure_url`` when the payer
        returns. Pass your own ``idempotency_key`` (e.g. your order id) to make the call
        safe to repeat across restarts; otherwise one is made for this call's retries.
        """
        body: Dict[str, Any] = {
            "amount": _centimes("amount", amount),
            "currency": currency,
            "reference": reference,
        }
        _put(body, "successUrl", success_url)
        _put(body, "failureUrl", failure_url)
        _put(body, "language", language)
        _put(body, "metadata", metadata)
        return cast(
            RegisteredPayment,
            self._data(
                "POST",
                "/api/v1/payments",
                body=body,
                expected=(201,),
                idempotency_key=idempotency_key or _new_key(),
            ),
        )

    def get_payment(self, payment_id: str) -> Payment:
        """``GET /api/v1/payments/{id}`` (never the checkout link)."""
        return cast(Payment, self._data("GET", f"/api/v1/payments/{_segment(payment_id)}"))

    def refund_payment(
        self,
        payment_id: str,
        *,
        amount: Optional[int] = None,
        idempotency_key: Optional[str] = None,
    ) -> RefundedPayment:
        """``POST /api/v1/payments/{id}/refund``: the whole remaining amount, or ``amount``
        centimes.

        ``result["refund"]["status"]`` is ``succeeded`` (HTTP 200) or ``pending`` (HTTP
        202: the card network's answer was lost). For a pending refund call again later
        with the **same** ``idempotency_key`` to learn its outcome; so keep the key you
        pass (one is made for this call's retries when you pass none). The same holds
        when the call raises ``APIConnectionError`` (no answer: the refund may have been
        made): call again with the same key, which every error carries as
        ``error.idempotency_key``; a new key could refund twice.
        """
        body: Dict[str, Any] = {}
        if amount is not None:
            body["amount"] = _centimes("amount", amount)
        return cast(
            RefundedPayment,
            self._data(
                "POST",
                f"/api/v1/payments/{_segment(payment_id)}/refund",
                body=body,
                expected=(200, 202),
                idempotency_key=idempotency_key or _new_key(),
            ),
        )

    def cancel_payment(self, payment_id: str) -> Payment:
        """``POST /api/v1/payments/{id}/cancel``: a checkout not paid yet ends ``cancelled``
        (cancelling a cancelled payment answers it again)."""
        return cast(
            Payment,
            self._data("POST", f"/api/v1/payments/{_segment(payment_id)}/cancel", safe=True),
        )

    def email_receipt(
        self, payment_id: str, *, email: str, language: Optional[Language] = None
    ) -> ReceiptEmailResult:
        """``POST /api/v1/payments/{id}/receipt/email``: the receipt of a succeeded payment
        (at most 20 an hour). Not retried on 503: the email may have left."""
        body: Dict[str, Any] = {"email": email}
        _put(body, "language", language)
        return cast(
            ReceiptEmailResult,
            self._data(
                "POST",
                f"/api/v1/payments/{_segment(payment_id)}/receipt/email",
                body=body,
                # The spec labels the status line 201 in one place and the body says 200.
                expected=(200, 201),
                safe=False,
            ),
        )

    def list_payments(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        status: Optional[CheckoutStatus] = None,
        channel: Optional[Channel] = None,
        reference: Optional[str] = None,
        reference_prefix: Optional[str] = None,
        created_from: Optional[InstantLike] = None,
        created_to: Optional[InstantLike] = None,
        metadata_key: Optional[str] = None,
        metadata_value: Optional[str] = None,
        payment_link_id: Optional[str] = None,
    ) -> PaymentsPage:
        """``GET /api/v1/payments``: one page, newest first. Pass ``nextCursor`` back as
        ``cursor``, or use ``iter_payments`` which does it for you."""
        query = _payment_filters(
            status,
            channel,
            reference,
            reference_prefix,
            created_from,
            created_to,
            metadata_key,
            metadata_value,
            payment_link_id,
        )
        query.update(limit=limit, cursor=cursor)
        return cast(PaymentsPage, self._data("GET", "/api/v1/payments", query=query))

    def iter_payments(
        self,
        *,
        page_size: Optional[int] = None,
        status: Optional[CheckoutStatus] = None,
        channel: Optional[Channel] = None,
        reference: Optional[str] = None,
        reference_prefix: Optional[str] = None,
        created_from: Optional[InstantLike] = None,
        created_to: Optional[InstantLike] = None,
        metadata_key: Optional[str] = None,
        metadata_value: Optional[str] = None,
        payment_link_id: Optional[str] = None,
    ) -> Iterator[PaymentListItem]:
        """Every payment the filters match, newest first, a page at a time (``page_size``
        1 to 100). The cursor is a keyset: new payments never shift the pages."""
        # Checked now, not at the first page.
        created_from = _instant(created_from, "created_from")
        created_to = _instant(created_to, "created_to")
        return _paginate(
            lambda cursor: self.list_payments(
                limit=page_size,
                cursor=cursor,
                status=status,
                channel=channel,
                reference=reference,
                reference_prefix=reference_prefix,
                created_from=created_from,
                created_to=created_to,
                metadata_key=metadata_key,
                metadata_value=metadata_value,
                payment_link_id=payment_link_id,
            ),
            "payments",
        )

    def export_payments(
        self,
        *,
        dialect: Optional[CsvDialect] = None,
        status: Optional[CheckoutStatus] = None,
        channel: Optional[Channel] = None,
        reference: Optional[str] = None,
        reference_prefix: Optional[str] = None,
        created_from: Optional[InstantLike] = None,
        created_to: Optional[InstantLike] = None,
        metadata_key: Optional[str] = None,
        metadata_value: Optional[str] = None,
        payment_link_id: Optional[str] = None,
    ) -> CsvExport:
        """``GET /api/v1/payments/export``: every matching payment as CSV, **streamed**
        (any size, one chunk in memory at a time). ``dialect="spreadsheet"`` for an
        accountant's French or Arabic Excel (BOM, ``;``, decimal commas, Algiers times)."""
        query = _payment_filters(
            status,
            channel,
            reference,
            reference_prefix,
            created_from,
            created_to,
            metadata_key,
            metadata_value,
            payment_link_id,
        )
        query["dialect"] = dialect
        answered, headers, response = self._send(
            "GET", self.base_url, "/api/v1/payments/export", query=query, stream=True, read=False
        )
        self.last_response = LastResponse(answered, headers)
        return CsvExport(
            response,
            dialect or "standard",
            headers,
            description="GET /api/v1/payments/export",
        )

    def export_payments_xlsx(
        self,
        *,
        status: Optional[CheckoutStatus] = None,
        channel: Optional[Channel] = None,
        reference: Optional[str] = None,
        reference_prefix: Optional[str] = None,
        created_from: Optional[InstantLike] = None,
        created_to: Optional[InstantLike] = None,
        metadata_key: Optional[str] = None,
        metadata_value: Optional[str] = None,
        payment_link_id: Optional[str] = None,
    ) -> bytes:
        """``GET /api/v1/payments/export?format=xlsx``: an Excel workbook's bytes (at most
        100 000 payments; export CSV beyond)."""
        query = _payment_filters(
            status,
            channel,
            reference,
            reference_prefix,
            created_from,
            created_to,
            metadata_key,
            metadata_value,
            payment_link_id,
        )
        query["format"] = "xlsx"
        return self._bytes("/api/v1/payments/export", query)

    # ---- Status of a product reference (partner API) ----

    def reference_status(self, reference: str) -> StatusRecord:
        """``GET /partner/payments/v1/{reference}/status``: whether dzpay holds a lock on
        the reference and whether it was paid. Branch on ``stage`` (``locked``, ``paid``,
        ``released``, ``refunded``, ``not_found``); only ``released``, ``refunded`` and
        ``not_found`` mean nothing is held. An unknown reference is ``not_found``, never
        an error; on any error keep the lock. At most 60 a minute per key."""
        return cast(
            StatusRecord,
            self._data(
                "GET",
                f"/partner/payments/v1/{_segment(reference)}/status",
                base=self.partner_base_url,
            ),
        )

    # ---- QR codes ----

    def set_qr_config(
        self,
        token: str,
        amounts: Sequence[float],
        *,
        single_use: bool,
        expires_at: Optional[InstantLike] = None,
    ) -> None:
        """``POST /set-qr-config``: the DZD amounts a static QR code offers (one: paid
        directly; several: the payer picks), replacing any previous configuration.
        ``single_use`` clears it after the first successful payment; ``expires_at``
        (ISO 8601 with its offset, or an aware ``datetime``) ends it, ``None`` keeps it
        until removed.

        Sent again after a 503 or a lost connection only when ``single_use`` is not
        ``True``: a single-use configuration may have been paid and cleared in between,
        and sending it again would offer the amounts a second time."""
        body: Dict[str, Any] = {
            "token": token,
            "amounts": list(amounts),
            "expiresAt": _instant(expires_at, "expires_at"),
            "singleUse": single_use,
        }
        self._data(
            "POST",
            "/set-qr-config",
            body=body,
            base=self.partner_base_url,
            data=False,
            safe=single_use is not True,
        )

    def unset_qr_config(self, token: str) -> None:
        """``POST /un-set-qr-config``: the QR code offers no amount any more (204)."""
        self._data(
            "POST",
            "/un-set-qr-config",
            body={"token": token},
            expected=(204,),
            base=self.partner_base_url,
            data=False,
            safe=True,
        )

    def list_qr_codes(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> QrCodesPage:
        """``GET /api/v1/qr-codes``: one page of the key's QR codes, newest first."""
        return cast(
            QrCodesPage,
            self._data("GET", "/api/v1/qr-codes", query={"limit": limit, "cursor": cursor}),
        )

    def iter_qr_codes(self, *, page_size: Optional[int] = None) -> Iterator[QrCode]:
        """Every QR code of the key, newest first."""
        return _paginate(
            lambda cursor: self.list_qr_codes(limit=page_size, cursor=cursor), "qrCodes"
        )

    def qr_code_image(
        self, token: str, *, format: Optional[str] = None, size: Optional[int] = None
    ) -> Image:
        """``GET /api/v1/qr-codes/{token}/image``: the code to print, SVG unless
        ``format="png"`` (``size`` 128 to 1024 pixels)."""
        return self._image(
            f"/api/v1/qr-codes/{_segment(token)}/image", {"format": format, "size": size}
        )

    # ---- Payment links ----

    def create_payment_link(
        self,
        *,
        label: str,
        amount: Optional[int] = None,
        min_amount: Optional[int] = None,
        max_amount: Optional[int] = None,
        single_use: Optional[bool] = None,
        expires_at: Optional[InstantLike] = None,
        language: Optional[Language] = None,
        metadata: Optional[JsonObject] = None,
        currency: Optional[str] = None,
    ) -> PaymentLink:
        """``POST /api/v1/payment-links``: a fixed ``amount``, or ``min_amount`` and
        ``max_amount`` for the payer to choose (centimes); share ``link["url"]``."""
        body: Dict[str, Any] = {"label": label}
        _put(body, "amount", _centimes("amount", amount, optional=True))
        _put(body, "minAmount", _centimes("min_amount", min_amount, optional=True))
        _put(body, "maxAmount", _centimes("max_amount", max_amount, optional=True))
        _put(body, "currency", currency)
        _put(body, "singleUse", single_use)
        _put(body, "expiresAt", _instant(expires_at, "expires_at"))
        _put(body, "language", language)
        _put(body, "metadata", metadata)
        return cast(
            PaymentLink,
            self._data("POST", "/api/v1/payment-links", body=body, expected=(201,), safe=False),
        )

    def list_payment_links(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> PaymentLinksPage:
        """``GET /api/v1/payment-links``: one page, newest first."""
        return cast(
            PaymentLinksPage,
            self._data("GET", "/api/v1/payment-links", query={"limit": limit, "cursor": cursor}),
        )

    def iter_payment_links(self, *, page_size: Optional[int] = None) -> Iterator[PaymentLink]:
        """Every payment link of the key, newest first."""
        return _paginate(
            lambda cursor: self.list_payment_links(limit=page_size, cursor=cursor), "links"
        )

    def get_payment_link(self, link_id: str) -> PaymentLink:
        """``GET /api/v1/payment-links/{id}``."""
        return cast(
            PaymentLink, self._data("GET", f"/api/v1/payment-links/{_segment(link_id)}")
        )

    def deactivate_payment_link(self, link_id: str) -> PaymentLink:
        """``POST /api/v1/payment-links/{id}/deactivate``: for good (again: the link as is)."""
        return cast(
            PaymentLink,
            self._data(
                "POST", f"/api/v1/payment-links/{_segment(link_id)}/deactivate", safe=True
            ),
        )

    def payment_link_image(
        self, link_id: str, *, format: Optional[str] = None, size: Optional[int] = None
    ) -> Image:
        """``GET /api/v1/payment-links/{id}/image``: the link's QR code (SVG by default)."""
        return self._image(
            f"/api/v1/payment-links/{_segment(link_id)}/image", {"format": format, "size": size}
        )

    # ---- Balance, payouts, statements ----

    def get_balance(
        self, *, from_: Optional[DateLike] = None, to: Optional[DateLike] = None
    ) -> Balance:
        """``GET /api/v1/balance``: overall and per Algiers day from ``from_`` to ``to``
        (default: the last 30 days), in DZD and in centimes."""
        return cast(
            Balance,
            self._data("GET", "/api/v1/balance", query={"from": _day(from_), "to": _day(to)}),
        )

    def list_payouts(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> PayoutsPage:
        """``GET /api/v1/payouts``: one page, newest first."""
        return cast(
            PayoutsPage,
            self._data("GET", "/api/v1/payouts", query={"limit": limit, "cursor": cursor}),
        )

    def iter_payouts(self, *, page_size: Optional[int] = None) -> Iterator[Payout]:
        """Every payout, newest first."""
        return _paginate(
            lambda cursor: self.list_payouts(limit=page_size, cursor=cursor), "payouts"
        )

    def download_statement(
        self,
        month: str,
        *,
        format: Optional[str] = None,
        dialect: Optional[CsvDialect] = None,
        language: Optional[Language] = None,
    ) -> bytes:
        """``GET /api/v1/statements/{month}`` (``YYYY-MM``): PDF unless ``format`` says
        ``csv`` or ``xlsx``."""
        return self._bytes(
            f"/api/v1/statements/{_segment(month)}",
            {"format": format, "dialect": dialect, "language": language},
        )

    # ---- Reports ----

    def daily_report(
        self, *, from_: Optional[DateLike] = None, to: Optional[DateLike] = None
    ) -> DailyReport:
        """``GET /api/v1/reports/daily``: per Algiers day, both days included."""
        return cast(
            DailyReport,
            self._data(
                "GET", "/api/v1/reports/daily", query={"from": _day(from_), "to": _day(to)}
            ),
        )

    def export_daily_report(
        self,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        dialect: Optional[CsvDialect] = None,
    ) -> str:
        """``GET /api/v1/reports/daily/export``: the report as CSV text (a row per day)."""
        data = self._bytes(
            "/api/v1/reports/daily/export",
            {"from": _day(from_), "to": _day(to), "format": "csv", "dialect": dialect},
        )
        return data.decode("utf-8")

    def export_daily_report_xlsx(
        self, *, from_: Optional[DateLike] = None, to: Optional[DateLike] = None
    ) -> bytes:
        """``GET /api/v1/reports/daily/export?format=xlsx``: an Excel workbook's bytes."""
        return self._bytes(
            "/api/v1/reports/daily/export",
            {"from": _day(from_), "to": _day(to), "format": "xlsx"},
        )

    # ---- Webhooks: settings, events, deliveries ----

    def get_webhook_settings(self) -> WebhookSettings:
        """``GET /api/v1/webhooks/settings``: where webhooks go and which kinds."""
        return cast(WebhookSettings, self._data("GET", "/api/v1/webhooks/settings"))

    def set_webhook_settings(
        self, *, url: Optional[str] = _UNSET, events: Optional[Sequence[WebhookEventKind]] = None
    ) -> WebhookSettingsUpdated:
        """``PUT /api/v1/webhooks/settings``: what you leave out is kept; ``url=None``
        goes back to ``{API_URL}/webhooks/platform``. The first call answers the new
        ``signingSecret``, once: store it."""
        body: Dict[str, Any] = {}
        if url is not _UNSET:
            body["url"] = url
        if events is not None:
            body["events"] = list(events)
        return cast(
            WebhookSettingsUpdated,
            self._data("PUT", "/api/v1/webhooks/settings", body=body, safe=False),
        )

    def rotate_signing_secret(self, *, grace_hours: Optional[int] = None) -> SigningSecretRotated:
        """``POST /api/v1/webhooks/signing-secret/rotate``: a new secret, shown once; the
        previous one keeps signing ``webhook-signature`` for ``grace_hours`` (default 24)."""
        body: Dict[str, Any] = {}
        _put(body, "graceHours", grace_hours)
        return cast(
            SigningSecretRotated,
            self._data("POST", "/api/v1/webhooks/signing-secret/rotate", body=body, safe=False),
        )

    def send_test_webhook(self) -> WebhookTestResult:
        """``POST /api/v1/webhooks/test``: a signed ``webhook.test`` sent now; its attempt."""
        return cast(
            WebhookTestResult,
            self._data("POST", "/api/v1/webhooks/test", body={}, safe=False),
        )

    def list_events(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        type: Optional[WebhookType] = None,
        payment_id: Optional[str] = None,
    ) -> EventsPage:
        """``GET /api/v1/events``: the events dzpay took in for the key, newest first."""
        query = {"limit": limit, "cursor": cursor, "type": type, "paymentId": payment_id}
        return cast(EventsPage, self._data("GET", "/api/v1/events", query=query))

    def iter_events(
        self,
        *,
        page_size: Optional[int] = None,
        type: Optional[WebhookType] = None,
        payment_id: Optional[str] = None,
    ) -> Iterator[EventRecord]:
        """Every event, newest first."""
        return _paginate(
            lambda cursor: self.list_events(
                limit=page_size, cursor=cursor, type=type, payment_id=payment_id
            ),
            "events",
        )

    def replay_event(self, event_id: str) -> EventRecord:
        """``POST /api/v1/events/{id}/replay``: the event delivered again, same id."""
        return cast(
            EventRecord,
            self._data("POST", f"/api/v1/events/{_segment(event_id)}/replay", safe=False),
        )

    def payment_webhooks(self, payment_id: str) -> List[Delivery]:
        """``GET /api/v1/payments/{id}/webhooks``: the payment's deliveries, oldest first."""
        data = self._data("GET", f"/api/v1/payments/{_segment(payment_id)}/webhooks")
        return cast(List[Delivery], data["deliveries"])

    def list_webhook_deliveries(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        outcome: Optional[str] = None,
        type: Optional[WebhookType] = None,
        payment_id: Optional[str] = None,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
    ) -> DeliveriesPage:
        """``GET /api/v1/webhooks/deliveries``: newest first; ``outcome`` is ``delivered``,
        ``failing`` or ``given_up``; days in Algiers, both included."""
        query = {
            "limit": limit,
            "cursor": cursor,
            "outcome": outcome,
            "type": type,
            "paymentId": payment_id,
            "from": _day(from_),
            "to": _day(to),
        }
        return cast(DeliveriesPage, self._data("GET", "/api/v1/webhooks/deliveries", query=query))

    def iter_webhook_deliveries(
        self,
        *,
        page_size: Optional[int] = None,
        outcome: Optional[str] = None,
        type: Optional[WebhookType] = None,
        payment_id: Optional[str] = None,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
    ) -> Iterator[DeliveryListItem]:
        """Every delivery the filters match, newest first."""
        return _paginate(
            lambda cursor: self.list_webhook_deliveries(
                limit=page_size,
                cursor=cursor,
                outcome=outcome,
                type=type,
                payment_id=payment_id,
                from_=from_,
                to=to,
            ),
            "deliveries",
        )

    def replay_delivery(self, delivery_id: str) -> Delivery:
        """``POST /api/v1/webhooks/deliveries/{id}/replay``: same event id, fresh schedule."""
        return cast(
            Delivery,
            self._data(
                "POST", f"/api/v1/webhooks/deliveries/{_segment(delivery_id)}/replay", safe=False
            ),
        )

    # ---- Audit log ----

    def list_audit_events(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        action: Optional[str] = None,
    ) -> AuditEventsPage:
        """``GET /api/v1/audit-events``: one page, newest first; ``action`` is a family
        (``payment``, ``team``, …) or one action (``payment.refund``, …)."""
        query = {"limit": limit, "cursor": cursor, "action": action}
        return cast(AuditEventsPage, self._data("GET", "/api/v1/audit-events", query=query))

    def iter_audit_events(
        self, *, page_size: Optional[int] = None, action: Optional[str] = None
    ) -> Iterator[AuditEvent]:
        """Every audit event, newest first."""
        return _paginate(
            lambda cursor: self.list_audit_events(limit=page_size, cursor=cursor, action=action),
            "events",
        )

    # ---- Transport ----

    def _data(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = _NO_BODY,
        expected: Tuple[int, ...] = (200,),
        idempotency_key: Optional[str] = None,
        base: Optional[str] = None,
        data: bool = True,
        safe: Optional[bool] = None,
    ) -> Any:
        """A JSON call: the success body's ``data`` (``None`` when ``data`` is False)."""
        status, headers, raw = self._send(
            method,
            base or self.base_url,
            path,
            query=query,
            body=body,
            idempotency_key=idempotency_key,
            safe=safe,
            retry_read=True,
        )
        if status not in expected:
            raise errors.UnexpectedResponseError(
                f"{method} {path} answered {status}, expected {' or '.join(map(str, expected))}",
                status=status,
                body=_parse_lenient(raw),
                headers=headers,
                idempotency_key=idempotency_key,
            )
        result: Any = None
        if data:
            parsed = _parse_lenient(raw)
            if not isinstance(parsed, dict) or "data" not in parsed:
                raise errors.UnexpectedResponseError(
                    f"{method} {path} answered {status} without a JSON data field",
                    status=status,
                    body=parsed,
                    headers=headers,
                    idempotency_key=idempotency_key,
                )
            result = parsed["data"]
        self.last_response = LastResponse(status, headers)
        return result

    def _bytes(self, path: str, query: Mapping[str, Any]) -> bytes:
        status, headers, raw = self._send("GET", self.base_url, path, query=query, stream=True)
        self.last_response = LastResponse(status, headers)
        return cast(bytes, raw)

    def _image(self, path: str, query: Mapping[str, Any]) -> Image:
        status, headers, raw = self._send("GET", self.base_url, path, query=query, stream=True)
        self.last_response = LastResponse(status, headers)
        return Image(
            content_type=headers.get("content-type", ""), etag=headers.get("etag"), data=raw
        )

    def _send(
        self,
        method: str,
        base: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = _NO_BODY,
        idempotency_key: Optional[str] = None,
        safe: Optional[bool] = None,
        stream: bool = False,
        read: bool = True,
        retry_read: bool = False,
    ) -> Tuple[int, Dict[str, str], Any]:
        """Sends a request, retrying as the module says; returns a 2xx answer's status,
        headers (lower-case names) and body bytes (the open response when ``read`` is
        False), or raises the error it answered, with ``idempotency_key``.

        A body cut off by a timeout or reset raises ``APIConnectionError``; with
        ``retry_read`` it is first sent again like a lost connection when safe."""
        self.last_response = None
        url = base + path + _query_string(query)
        headers = {
            "x-api-key": self.api_key,
            "accept": "application/json" if not stream else "*/*",
            "user-agent": self.user_agent,
        }
        payload: Optional[bytes] = None
        if body is not _NO_BODY:
            payload = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
            headers["content-type"] = "application/json"
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        # Safe to send again after a 503 or a lost connection: reads, and writes that
        # carry an Idempotency-Key or are idempotent by definition.
        if safe is None:
            safe = method == "GET" or idempotency_key is not None

        attempt = 0
        while True:
            request = urllib.request.Request(url, data=payload, headers=headers, method=method)
            try:
                response = self._opener.open(request, timeout=self.timeout)
            except urllib.error.HTTPError as failure:
                response = failure
            except (OSError, HTTPException) as lost:
                # URLError, a refused or reset connection, a timeout waiting for the answer.
                if safe and attempt < self.max_retries:
                    self._sleep(_backoff(attempt))
                    attempt += 1
                    continue
                reason = getattr(lost, "reason", lost)
                raise errors.APIConnectionError(
                    f"{method} {path}: no answer from {base} ({reason})",
                    idempotency_key=idempotency_key,
                ) from lost

            status = getattr(response, "status", None) or response.getcode()
            answer_headers = {k.lower(): v for k, v in response.headers.items()}
            if 200 <= status < 300:
                if not read:
                    return status, answer_headers, response
                try:
                    with response:
                        raw = response.read()
                except (OSError, HTTPException) as cut:
                    if retry_read and safe and attempt < self.max_retries:
                        self._sleep(_backoff(attempt))
                        attempt += 1
                        continue
                    raise errors.APIConnectionError(
                        f"{method} {path}: the answer from {base} was cut off ({cut!r})",
                        idempotency_key=idempotency_key,
                    ) from cut
                return status, answer_headers, raw

            raw = _read_and_close(response)
            parsed = _parse_lenient(raw)
            retry_after = _retry_after(answer_headers.get("retry-after"))
            # 503: not done, retry later. A 409 whose key's first request still runs (a
            # retry overtook it) is waited out the same way. Any other 409 is final.
            busy = status == 503 or (status == 409 and _still_running(parsed))
            if attempt < self.max_retries and (status == 429 or (busy and safe)):
                delay = retry_after if retry_after is not None else _backoff(attempt)
                if delay <= self.max_retry_delay:
                    self._sleep(delay)
                    attempt += 1
                    continue
            raise errors.error_from_response(
                status, parsed, answer_headers, retry_after, idempotency_key=idempotency_key
            )


# ---- Helpers ----


def _new_key() -> str:
    return str(uuid.uuid4())


def _put(body: Dict[str, Any], name: str, value: Any) -> None:
    if value is not None:
        body[name] = value


def _centimes(name: str, value: Any, *, optional: bool = False) -> Any:
    """An amount in centimes, checked before anything is sent: a positive ``int``
    (neither ``bool`` nor ``float``, even 1500.0, nor ``Decimal``)."""
    if value is None and optional:
        return None
    if type(value) is not int or value <= 0:
        raise ValueError(
            f"dzpay: {name} must be a positive int of centimes (dinars x 100), "
            f"not {type(value).__name__} {value!r}"
        )
    return value


def _segment(value: str) -> str:
    """A path parameter, encoded as encodeURIComponent does."""
    if not isinstance(value, str) or value == "":
        raise ValueError("dzpay: a path parameter (id, reference, token) must be a non-empty string")
    return urllib.parse.quote(value, safe="!*'()")


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    if not query:
        return ""
    pairs = []
    for name, value in query.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        pairs.append((name, str(value)))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _day(value: Optional[DateLike]) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _instant(value: Optional[InstantLike], name: str) -> Optional[str]:
    """An instant as ISO 8601. A naive ``datetime`` (no time zone) is refused: dzpay
    could only guess its offset, and a guess shifts it by hours."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(
                f"dzpay: {name} is a naive datetime; pass an aware datetime, "
                "e.g. datetime.now(timezone.utc) or dt.replace(tzinfo=ZoneInfo('Africa/Algiers'))"
            )
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _payment_filters(
    status: Optional[str],
    channel: Optional[str],
    reference: Optional[str],
    reference_prefix: Optional[str],
    created_from: Optional[InstantLike],
    created_to: Optional[InstantLike],
    metadata_key: Optional[str],
    metadata_value: Optional[str],
    payment_link_id: Optional[str],
) -> Dict[str, Any]:
    return {
        "status": status,
        "channel": channel,
        "reference": reference,
        "referencePrefix": reference_prefix,
        "createdFrom": _instant(created_from, "created_from"),
        "createdTo": _instant(created_to, "created_to"),
        "metadataKey": metadata_key,
        "metadataValue": metadata_value,
        "paymentLinkId": payment_link_id,
    }


def _paginate(fetch: Callable[[Optional[str]], Any], key: str) -> Iterator[Any]:
    cursor: Optional[str] = None
    seen = set()
    while True:
        page = fetch(cursor)
        yield from page[key]
        cursor = page.get("nextCursor")
        if not cursor:
            return
        if cursor in seen:
            raise errors.UnexpectedResponseError(f"dzpay gave the cursor {cursor!r} twice")
        seen.add(cursor)


def _backoff(attempt: int) -> float:
    """0.5 s, 1 s, 2 s … up to 8 s, with a little jitter."""
    base = min(0.5 * float(2**attempt), 8.0)
    return base + random.uniform(0, base / 4)


def _retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date."""
    if value is None or value.strip() == "":
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _still_running(body: Any) -> bool:
    """Whether an error body is the 409 ``IDEMPOTENCY409_KEY_REUSED`` of a key whose first
    request still runs: ``details.inProgress``, or older servers' message."""
    if not isinstance(body, dict) or body.get("errorCode") != "IDEMPOTENCY409_KEY_REUSED":
        return False
    details = body.get("details")
    if isinstance(details, dict) and details.get("inProgress") is True:
        return True
    message = body.get("message")
    return isinstance(message, str) and message.startswith(_STILL_RUNNING_PREFIX)


def _read_and_close(response: Any) -> bytes:
    try:
        return cast(bytes, response.read())
    except (OSError, HTTPException):
        return b""
    finally:
        response.close()


def _parse_lenient(raw: bytes) -> Any:
    """The JSON body, ``None`` when empty, or the text when it is not JSON."""
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text
