"""DzpayClient against a scripted dzpay: requests, retries, errors, paging, streaming."""

from __future__ import annotations

import io
import socket
import threading
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any, List, Optional

import pytest

import dzpay
from conftest import Cut, FakeDzpay

PAYMENT_ID = "3f1c2b9e-7a41-4d0b-9c55-2e8f6a1d4b70"

REGISTERED = {
    "id": PAYMENT_ID,
    "reference": "ORDER-1001",
    "amount": 250000,
    "fees": 50,
    "total": 255000,
    "currency": "DZD",
    "language": "ar",
    "status": "created",
    "expiresAt": "2026-11-21T10:15:00.000Z",
    "checkoutUrl": "http://localhost:8080/checkout/tok",
}

PAYMENT = {
    "id": PAYMENT_ID,
    "reference": "ORDER-1001",
    "amount": 250000,
    "fees": 50,
    "total": 255000,
    "currency": "DZD",
    "language": "ar",
    "expiresAt": "2026-11-21T10:15:00.000Z",
    "status": "success",
    "successUrl": None,
    "failureUrl": None,
    "metadata": {"cart": 7},
    "orderId": "1000000001",
    "approvalCode": "123456",
    "maskedPan": "6280****1234",
    "failureReason": None,
    "refundedAmount": 0,
    "pendingRefundAmount": 0,
    "paidAt": "2026-11-21T10:03:00.000Z",
    "createdAt": "2026-11-21T10:00:00.000Z",
    "updatedAt": "2026-11-21T10:03:00.000Z",
}


# ---- Requests ----


def test_register_payment_sends_the_spec_request_and_returns_data(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok(REGISTERED, status=201)
    payment = client.register_payment(
        amount=250000,
        reference="ORDER-1001",
        success_url="https://shop.example/ok?cart=7",
        failure_url="https://shop.example/ko",
        language="ar",
        metadata={"cart": 7},
        idempotency_key="order-1001",
    )
    assert payment == REGISTERED
    (request,) = fake.requests
    assert request.method == "POST" and request.path == "/api/v1/payments"
    assert request.headers["x-api-key"] == "pk_test_abc"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["idempotency-key"] == "order-1001"
    assert request.headers["user-agent"].startswith("dzpay-python/")
    assert request.json == {
        "amount": 250000,
        "currency": "DZD",
        "reference": "ORDER-1001",
        "successUrl": "https://shop.example/ok?cart=7",
        "failureUrl": "https://shop.example/ko",
        "language": "ar",
        "metadata": {"cart": 7},
    }


def test_last_response_says_when_a_registration_was_replayed(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    assert client.last_response is None
    fake.ok(REGISTERED, status=201)
    fake.ok(REGISTERED, status=201, headers={"Idempotent-Replayed": "true", "X-RateLimit-Remaining": "58"})
    client.register_payment(amount=250000, reference="ORDER-1001", idempotency_key="order-1001")
    first = client.last_response
    assert first is not None and first.status == 201 and not first.replayed
    client.register_payment(amount=250000, reference="ORDER-1001", idempotency_key="order-1001")
    again = client.last_response
    assert again is not None and again.replayed
    assert again.headers["x-ratelimit-remaining"] == "58"


def test_register_payment_leaves_unset_fields_out_and_makes_an_idempotency_key(
    fake: FakeDzpay, client: dzpay.DzpayClient
) -> None:
    fake.ok(REGISTERED, status=201)
    client.register_payment(amount=5000, reference="R-1")
    (request,) = fake.requests
    assert request.json == {"amount": 5000, "currency": "DZD", "reference": "R-1"}
    assert len(request.headers["idempotency-key"]) == 36


def test_get_refund_cancel_and_receipt(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok(PAYMENT)
    assert client.get_payment(PAYMENT_ID)["status"] == "success"
    pending = {**PAYMENT, "pendingRefundAmount": 1000, "refund": {"id": PAYMENT_ID, "amount": 1000, "status": "pending"}}
    fake.ok(pending, status=202)
    refunded = client.refund_payment(PAYMENT_ID, amount=1000, idempotency_key="refund-1")
    assert refunded["refund"]["status"] == "pending"
    fake.ok({**PAYMENT, "status": "cancelled"})
    assert client.cancel_payment(PAYMENT_ID)["status"] == "cancelled"
    fake.ok({"sent": True, "language": "fr"})
    assert client.email_receipt(PAYMENT_ID, email="payer@example.dz", language="fr") == {
        "sent": True,
        "language": "fr",
    }
    get, refund, cancel, receipt = fake.requests
    assert (get.method, get.path) == ("GET", f"/api/v1/payments/{PAYMENT_ID}")
    assert "content-type" not in get.headers
    assert (refund.method, refund.path) == ("POST", f"/api/v1/payments/{PAYMENT_ID}/refund")
    assert refund.json == {"amount": 1000} and refund.headers["idempotency-key"] == "refund-1"
    assert (cancel.method, cancel.path, cancel.body) == ("POST", f"/api/v1/payments/{PAYMENT_ID}/cancel", b"")
    assert "idempotency-key" not in cancel.headers
    assert receipt.path == f"/api/v1/payments/{PAYMENT_ID}/receipt/email"
    assert receipt.json == {"email": "payer@example.dz", "language": "fr"}


def test_a_whole_refund_sends_an_empty_object(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok({**PAYMENT, "status": "refunded", "refund": {"id": PAYMENT_ID, "amount": 250000, "status": "succeeded"}})
    client.refund_payment(PAYMENT_ID)
    assert fake.requests[0].json == {}
    assert fake.requests[0].headers["idempotency-key"]


def test_reference_status_encodes_the_reference_and_uses_the_partner_base_url(fake: FakeDzpay) -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url="http://127.0.0.1:9", partner_base_url=fake.url)
    record = {
        "reference": "BOOK/42 #1",
        "stage": "not_found",
        "locked": False,
        "paid": False,
        "lockReleaseTime": None,
        "paymentId": None,
        "channel": "AGENCY",
        "currency": "DZD",
        "amount": None,
        "payment": None,
    }
    fake.ok(record)
    assert client.reference_status("BOOK/42 #1")["stage"] == "not_found"
    assert fake.requests[0].path == "/partner/payments/v1/BOOK%2F42%20%231/status"
    with pytest.raises(ValueError):
        client.reference_status("")


def test_qr_configuration(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(200, {"statusCode": 200, "message": "QR configuration set"})
    fake.answer(204)
    assert client.set_qr_config("QR-1", [1500.5, 2000], single_use=True, expires_at=datetime(2026, 12, 1, tzinfo=timezone.utc)) is None
    assert client.unset_qr_config("QR-1") is None
    set_request, unset_request = fake.requests
    assert (set_request.method, set_request.path) == ("POST", "/set-qr-config")
    assert set_request.json == {
        "token": "QR-1",
        "amounts": [1500.5, 2000],
        "expiresAt": "2026-12-01T00:00:00+00:00",
        "singleUse": True,
    }
    assert (unset_request.path, unset_request.json) == ("/un-set-qr-config", {"token": "QR-1"})


def test_qr_validation_list_is_a_bad_request_with_every_message(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(400, {"statusCode": 400, "message": ["amounts must contain at least 1 element", "singleUse must be a boolean"], "error": "Bad Request"})
    with pytest.raises(dzpay.BadRequestError) as caught:
        client.set_qr_config("QR-1", [], single_use=True)
    assert caught.value.error_code is None
    assert caught.value.messages == ["amounts must contain at least 1 element", "singleUse must be a boolean"]


def test_images_and_binary_downloads(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    png = b"\x89PNG\r\n\x1a\nrest"
    fake.answer(200, png, {"content-type": "image/png", "etag": '"v1"'})
    image = client.qr_code_image("QR 1", format="png", size=256)
    assert (image.format, image.etag, image.data) == ("png", '"v1"', png)
    assert fake.requests[0].path == "/api/v1/qr-codes/QR%201/image?format=png&size=256"
    fake.answer(200, "<svg/>", {"content-type": "image/svg+xml"})
    assert client.payment_link_image(PAYMENT_ID).text == "<svg/>"
    fake.answer(200, b"%PDF-1.7", {"content-type": "application/pdf"})
    assert client.download_statement("2026-11", language="ar") == b"%PDF-1.7"
    assert fake.requests[2].path == "/api/v1/statements/2026-11?language=ar"


def test_webhook_settings_keep_what_is_left_out_and_send_null_to_reset(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok({"url": None, "events": ["payment.success"]})
    fake.ok({"url": None, "events": ["payment.success"]})
    client.set_webhook_settings(events=["payment.success"])
    client.set_webhook_settings(url=None)
    assert fake.requests[0].method == "PUT"
    assert fake.requests[0].json == {"events": ["payment.success"]}
    assert fake.requests[1].json == {"url": None}


def test_balance_and_report_days_accept_dates(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok({"from": "2026-11-01", "to": "2026-11-30"})
    fake.answer(200, "day,success_count\r\n", {"content-type": "text/csv"})
    client.get_balance(from_=date(2026, 11, 1), to="2026-11-30")
    assert client.export_daily_report(from_="2026-11-01", dialect="spreadsheet").startswith("day,")
    assert fake.requests[0].path == "/api/v1/balance?from=2026-11-01&to=2026-11-30"
    assert fake.requests[1].path == "/api/v1/reports/daily/export?from=2026-11-01&format=csv&dialect=spreadsheet"


# ---- Retries ----


def test_503_is_retried_after_retry_after_with_the_same_idempotency_key_and_body(
    fake: FakeDzpay, client: dzpay.DzpayClient
) -> None:
    fake.error(503, "SERVICE503_UNAVAILABLE", "payments did not answer in time", headers={"retry-after": "2"})
    fake.error(503, "SERVICE503_UNAVAILABLE", headers={"retry-after": "1"})
    fake.ok(REGISTERED, status=201)
    assert client.register_payment(amount=250000, reference="ORDER-1001")["id"] == PAYMENT_ID
    assert len(fake.requests) == 3
    keys = {r.headers["idempotency-key"] for r in fake.requests}
    bodies = {r.body for r in fake.requests}
    assert len(keys) == 1 and len(bodies) == 1
    assert client._sleep == [2.0, 1.0]  # type: ignore[comparison-overlap]


def test_429_is_retried_honouring_retry_after(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(429, {"statusCode": 429, "message": "Too many requests"}, {"retry-after": "3"})
    fake.ok({"payments": [], "nextCursor": None})
    assert client.list_payments()["payments"] == []
    assert client._sleep == [3.0]  # type: ignore[comparison-overlap]


def test_retry_after_as_an_http_date(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(429, {"statusCode": 429, "message": "slow down"}, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})
    fake.ok(PAYMENT)
    client.get_payment(PAYMENT_ID)
    assert client._sleep == [0.0]  # type: ignore[comparison-overlap]


def test_retries_stop_after_max_retries_and_raise_the_last_error(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    for _ in range(3):
        fake.error(503, "SERVICE503_UNAVAILABLE", details={"reason": "payments"}, headers={"retry-after": "1"})
    with pytest.raises(dzpay.ServiceUnavailableError) as caught:
        client.refund_payment(PAYMENT_ID, idempotency_key="k")
    assert len(fake.requests) == 3
    assert caught.value.status == 503
    assert caught.value.error_code == "SERVICE503_UNAVAILABLE"
    assert caught.value.details == {"reason": "payments"}
    assert caught.value.retry_after == 1.0


def test_a_retry_after_beyond_the_limit_is_raised_at_once(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(429, "RATE429_LIMIT_EXCEEDED", "20 receipts an hour", headers={"retry-after": "3600"})
    with pytest.raises(dzpay.RateLimitError) as caught:
        client.email_receipt(PAYMENT_ID, email="payer@example.dz")
    assert len(fake.requests) == 1
    assert caught.value.retry_after == 3600.0
    assert caught.value.error_code == "RATE429_LIMIT_EXCEEDED"


def test_503_is_not_retried_for_operations_that_are_not_safe_to_repeat(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(503, "SERVICE503_UNAVAILABLE", headers={"retry-after": "1"})
    with pytest.raises(dzpay.ServiceUnavailableError):
        client.create_payment_link(label="Book", amount=150050)
    assert len(fake.requests) == 1
    # …but a 429 (refused before anything happened) is.
    fake.answer(429, {"statusCode": 429, "message": "slow down"}, {"retry-after": "1"})
    fake.ok({"id": PAYMENT_ID}, status=201)
    client.create_payment_link(label="Book", amount=150050)
    assert len(fake.requests) == 3


def test_without_retry_after_the_client_backs_off(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(503, "SERVICE503_UNAVAILABLE")
    fake.ok(PAYMENT)
    client.get_payment(PAYMENT_ID)
    (delay,) = client._sleep  # type: ignore[misc]
    assert 0.5 <= delay <= 0.625


def test_no_retries_when_disabled(fake: FakeDzpay) -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=fake.url, max_retries=0)
    fake.error(503, "SERVICE503_UNAVAILABLE", headers={"retry-after": "1"})
    with pytest.raises(dzpay.ServiceUnavailableError):
        client.get_payment(PAYMENT_ID)
    assert len(fake.requests) == 1


# ---- Errors ----


@pytest.mark.parametrize(
    ("status", "code", "kind"),
    [
        (400, "VALIDATION400_BAD_REQUEST", dzpay.BadRequestError),
        (401, "AUTH401_UNAUTHORIZED_ACCESS", dzpay.AuthenticationError),
        (403, "PARTNER_API403_MERCHANT_INACTIVE", dzpay.PermissionDeniedError),
        (404, "PAYMENT_INSTANCE404_NOT_FOUND", dzpay.NotFoundError),
        (409, "PAYMENT_INSTANCE409_DUPLICATE_REFERENCE", dzpay.ConflictError),
        (410, "PAYMENT_LINK410_EXPIRED", dzpay.GoneError),
        (422, "SETTLEMENT422_MERCHANT_WALLET_MISSING", dzpay.UnprocessableEntityError),
        (500, "INTERNAL500_ERROR", dzpay.InternalServerError),
        (502, "CARDNET502_REGISTRATION_FAILED", dzpay.BadGatewayError),
    ],
)
def test_errors_carry_the_status_error_code_and_details(
    fake: FakeDzpay, client: dzpay.DzpayClient, status: int, code: str, kind: type
) -> None:
    fake.error(status, code, "what happened", details={"failures": [{"field": "amount", "message": "amount must be an integer number of centimes"}]})
    with pytest.raises(kind) as caught:
        client.register_payment(amount=1, reference="R")
    error = caught.value
    assert isinstance(error, dzpay.DzpayError)
    assert (error.status, error.error_code, error.message) == (status, code, "what happened")
    assert error.details["failures"][0]["field"] == "amount"
    assert error.timestamp == "2026-11-21T10:00:00.000Z"
    assert code in str(error)
    assert len(fake.requests) == 1


def test_an_answer_that_is_not_json_keeps_its_text(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(502, "<html>bad gateway</html>", {"content-type": "text/html"})
    with pytest.raises(dzpay.BadGatewayError) as caught:
        client.get_payment(PAYMENT_ID)
    assert caught.value.body == "<html>bad gateway</html>"
    assert caught.value.error_code is None


def test_an_unexpected_success_status_or_body_is_refused(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok(REGISTERED, status=200)
    with pytest.raises(dzpay.UnexpectedResponseError):
        client.register_payment(amount=5000, reference="R")
    fake.answer(200, "not json")
    with pytest.raises(dzpay.UnexpectedResponseError):
        client.get_payment(PAYMENT_ID)


def test_redirects_are_not_followed(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(302, None, {"location": "http://elsewhere.example/"})
    with pytest.raises(dzpay.UnexpectedResponseError) as caught:
        client.get_payment(PAYMENT_ID)
    assert caught.value.status == 302
    assert len(fake.requests) == 1


def test_no_answer_is_a_connection_error_after_the_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=f"http://127.0.0.1:{port}", timeout=2)
    sleeps: list = []
    client._sleep = sleeps.append  # type: ignore[assignment]
    with pytest.raises(dzpay.APIConnectionError) as caught:
        client.get_payment(PAYMENT_ID)
    assert caught.value.status is None
    assert len(sleeps) == 2
    sleeps.clear()
    with pytest.raises(dzpay.APIConnectionError):
        client.send_test_webhook()
    assert sleeps == []


def test_the_client_needs_a_key_and_a_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DZPAY_API_KEY", raising=False)
    monkeypatch.delenv("DZPAY_BASE_URL", raising=False)
    with pytest.raises(ValueError):
        dzpay.DzpayClient(base_url="http://x")
    with pytest.raises(ValueError):
        dzpay.DzpayClient(api_key="pk_test_x")
    monkeypatch.setenv("DZPAY_API_KEY", "pk_live_x")
    monkeypatch.setenv("DZPAY_BASE_URL", "https://pay.example.dz/")
    made = dzpay.DzpayClient()
    assert made.base_url == "https://pay.example.dz" and "live" in repr(made)
    assert "pk_live_x" not in repr(made)


# ---- Paging ----


def test_iter_payments_follows_the_cursor_with_the_filters(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    def item(n: int) -> dict:
        return {**PAYMENT, "id": f"id-{n}", "channel": "CHECKOUT"}

    fake.ok({"payments": [item(1), item(2)], "nextCursor": "c1"})
    fake.ok({"payments": [item(3)], "nextCursor": "c2"})
    fake.ok({"payments": [], "nextCursor": None})
    ids = [
        p["id"]
        for p in client.iter_payments(
            page_size=2,
            status="success",
            reference_prefix="ORDER-",
            created_from=date(2026, 11, 1),
            metadata_key="cart",
            metadata_value="7",
        )
    ]
    assert ids == ["id-1", "id-2", "id-3"]
    first, second, third = fake.requests
    assert first.route == "/api/v1/payments"
    assert first.query == {
        "limit": ["2"],
        "status": ["success"],
        "referencePrefix": ["ORDER-"],
        "createdFrom": ["2026-11-01"],
        "metadataKey": ["cart"],
        "metadataValue": ["7"],
    }
    assert "cursor" not in first.query
    assert second.query["cursor"] == ["c1"] and third.query["cursor"] == ["c2"]
    assert second.query["status"] == ["success"]


def test_iterators_are_lazy(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok({"links": [{"id": "a"}, {"id": "b"}], "nextCursor": "next"})
    links = client.iter_payment_links()
    assert fake.requests == []
    assert next(links)["id"] == "a"
    assert len(fake.requests) == 1


def test_a_repeated_cursor_stops_the_iterator(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok({"events": [{"id": "1"}], "nextCursor": "same"})
    fake.ok({"events": [{"id": "2"}], "nextCursor": "same"})
    with pytest.raises(dzpay.UnexpectedResponseError):
        list(client.iter_events())


# ---- CSV export, streamed ----


def _csv_rows(count: int) -> list:
    header = "id,created_at,paid_at,reference,channel,status,amount_centimes,amount_dzd,metadata\r\n"
    rows = [
        f'id-{n},2026-11-21T10:00:00.000Z,,"ORDER-{n}, ""gift""",CHECKOUT,success,150050,1500.50,"{{""note"":""line1\nline2""}}"\r\n'
        for n in range(count)
    ]
    return [header, *rows]


def test_export_payments_streams_the_csv_in_chunks(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    lines = _csv_rows(3000)
    chunks = [("".join(lines[i : i + 100])).encode() for i in range(0, len(lines), 100)]
    fake.answer(200, chunks, {"content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="payments-test-2026-11-21.csv"'})
    with client.export_payments(status="success", created_from="2026-11-01") as export:
        assert export.filename == "payments-test-2026-11-21.csv"
        rows = list(export.iter_dicts())
    assert len(rows) == 3000
    assert rows[0]["reference"] == 'ORDER-0, "gift"'
    assert rows[0]["metadata"] == '{"note":"line1\nline2"}'
    assert rows[-1]["id"] == "id-2999"
    assert fake.requests[0].path == "/api/v1/payments/export?status=success&createdFrom=2026-11-01"


def test_export_payments_copies_bytes_to_a_file(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    payload = "".join(_csv_rows(10)).encode()
    fake.answer(200, [payload[:7], payload[7:]], {"content-type": "text/csv"})
    sink = io.BytesIO()
    export = client.export_payments()
    assert export.write_to(sink) == len(payload)
    assert sink.getvalue() == payload
    with pytest.raises(RuntimeError):
        export.read()


def test_spreadsheet_dialect_has_a_bom_and_semicolons(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    body = "\ufeffid;amount_dzd;reference\r\nid-1;1500,50;كتاب\r\n".encode("utf-8")
    fake.answer(200, [body], {"content-type": "text/csv; charset=utf-8"})
    rows = list(client.export_payments(dialect="spreadsheet").iter_rows())
    assert rows == [["id", "amount_dzd", "reference"], ["id-1", "1500,50", "كتاب"]]
    assert fake.requests[0].query == {"dialect": ["spreadsheet"]}


def test_a_bad_export_filter_raises_before_any_csv(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(400, "VALIDATION400_BAD_REQUEST", details={"failures": [{"field": "status", "message": "status must be one of …"}]})
    with pytest.raises(dzpay.BadRequestError) as caught:
        client.export_payments(status="paid")  # type: ignore[arg-type]
    assert caught.value.details["failures"][0]["field"] == "status"


def test_xlsx_exports_are_bytes(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(200, b"PK\x03\x04xlsx", {"content-type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"})
    assert client.export_payments_xlsx(channel="AGENCY") == b"PK\x03\x04xlsx"
    assert fake.requests[0].path == "/api/v1/payments/export?channel=AGENCY&format=xlsx"


# ---- The Idempotency-Key travels with every error ----


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_every_error_of_a_call_with_an_idempotency_key_carries_it(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(409, "PAYMENT_INSTANCE409_NOT_REFUNDABLE", "not refundable")
    with pytest.raises(dzpay.ConflictError) as conflict:
        client.refund_payment(PAYMENT_ID, amount=1000, idempotency_key="refund-ORDER-7-1")
    assert conflict.value.idempotency_key == "refund-ORDER-7-1"

    fake.error(400, "VALIDATION400_BAD_REQUEST")
    with pytest.raises(dzpay.BadRequestError) as refused:
        client.register_payment(amount=5000, reference="R-1")
    made = fake.requests[-1].headers["idempotency-key"]
    assert refused.value.idempotency_key == made and len(made) == 36

    fake.ok(REGISTERED, status=200)  # registrations answer 201
    with pytest.raises(dzpay.UnexpectedResponseError) as unexpected:
        client.register_payment(amount=5000, reference="R-1", idempotency_key="order-r-1")
    assert unexpected.value.idempotency_key == "order-r-1"

    fake.error(404, "PAYMENT_INSTANCE404_NOT_FOUND")
    with pytest.raises(dzpay.NotFoundError) as missing:
        client.get_payment(PAYMENT_ID)
    assert missing.value.idempotency_key is None


def test_a_refund_without_an_answer_says_which_key_to_send_again() -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=f"http://127.0.0.1:{_closed_port()}", timeout=2)
    client._sleep = lambda _seconds: None  # type: ignore[assignment]
    with pytest.raises(dzpay.APIConnectionError) as lost:
        client.refund_payment(PAYMENT_ID, idempotency_key="refund-ORDER-7-1")
    assert lost.value.idempotency_key == "refund-ORDER-7-1"
    with pytest.raises(dzpay.APIConnectionError) as made:
        client.register_payment(amount=5000, reference="R-1")
    assert made.value.idempotency_key is not None and len(made.value.idempotency_key) == 36
    with pytest.raises(dzpay.APIConnectionError) as read:
        client.get_payment(PAYMENT_ID)
    assert read.value.idempotency_key is None


# ---- 409: the key's first request is still running ----


def test_a_409_in_progress_is_waited_out_like_a_503(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(
        409,
        "IDEMPOTENCY409_KEY_REUSED",
        "a request with this Idempotency-Key is still running; retry shortly",
        details={"inProgress": True},
        headers={"retry-after": "2"},
    )
    fake.ok(REGISTERED, status=201)
    assert client.register_payment(amount=250000, reference="ORDER-1001", idempotency_key="order-1001")["id"] == PAYMENT_ID
    assert len(fake.requests) == 2
    assert {r.headers["idempotency-key"] for r in fake.requests} == {"order-1001"}
    assert client._sleep == [2.0]  # type: ignore[comparison-overlap]


def test_a_409_in_progress_from_an_older_server_is_known_by_its_message(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(409, "IDEMPOTENCY409_KEY_REUSED", "a request with this Idempotency-Key is still running; retry shortly")
    fake.ok({**PAYMENT, "refund": {"id": PAYMENT_ID, "amount": 1000, "status": "succeeded"}})
    client.refund_payment(PAYMENT_ID, amount=1000, idempotency_key="refund-1")
    assert len(fake.requests) == 2
    (delay,) = client._sleep  # type: ignore[misc]
    assert 0.5 <= delay <= 0.625


def test_a_409_in_progress_stops_after_max_retries(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    for _ in range(3):
        fake.error(409, "IDEMPOTENCY409_KEY_REUSED", "still busy", details={"inProgress": True}, headers={"retry-after": "1"})
    with pytest.raises(dzpay.ConflictError) as caught:
        client.refund_payment(PAYMENT_ID, idempotency_key="refund-1")
    assert len(fake.requests) == 3 and caught.value.details == {"inProgress": True}
    fake.error(409, "IDEMPOTENCY409_KEY_REUSED", "still busy", details={"inProgress": True}, headers={"retry-after": "3600"})
    with pytest.raises(dzpay.ConflictError):
        client.refund_payment(PAYMENT_ID, idempotency_key="refund-1")
    assert len(fake.requests) == 4


@pytest.mark.parametrize(
    ("code", "message", "details"),
    [
        ("IDEMPOTENCY409_KEY_REUSED", "this Idempotency-Key was used with another body", None),
        ("IDEMPOTENCY409_KEY_REUSED", "this Idempotency-Key was used with another body", {"inProgress": False}),
        ("IDEMPOTENCY409_KEY_REUSED", "a request with this idempotency-key is STILL running", {"inProgress": "true"}),
        ("PAYMENT_INSTANCE409_DUPLICATE_REFERENCE", "duplicate", None),
        ("PAYMENT_INSTANCE409_REFUND_PENDING", "a refund is pending", None),
    ],
)
def test_any_other_409_is_never_retried(
    fake: FakeDzpay, client: dzpay.DzpayClient, code: str, message: str, details: Any
) -> None:
    fake.error(409, code, message, details=details, headers={"retry-after": "1"})
    with pytest.raises(dzpay.ConflictError):
        client.refund_payment(PAYMENT_ID, idempotency_key="refund-1")
    assert len(fake.requests) == 1


def test_a_409_in_progress_is_not_retried_where_repeating_is_unsafe(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(409, "IDEMPOTENCY409_KEY_REUSED", "busy", details={"inProgress": True})
    with pytest.raises(dzpay.ConflictError):
        client.create_payment_link(label="Book", amount=150050)
    assert len(fake.requests) == 1


# ---- set_qr_config: single-use configurations are not sent twice ----


def test_a_single_use_qr_config_is_not_sent_again_after_a_503(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.error(503, "SERVICE503_UNAVAILABLE", headers={"retry-after": "1"})
    with pytest.raises(dzpay.ServiceUnavailableError):
        client.set_qr_config("QR-1", [1500], single_use=True)
    assert len(fake.requests) == 1
    fake.error(503, "SERVICE503_UNAVAILABLE", headers={"retry-after": "1"})
    fake.answer(200, {"statusCode": 200, "message": "QR configuration set"})
    client.set_qr_config("QR-1", [1500], single_use=False)
    assert len(fake.requests) == 3
    # A 429 was refused before anything happened: retried even when single-use.
    fake.answer(429, {"statusCode": 429, "message": "slow down"}, {"retry-after": "1"})
    fake.answer(200, {"statusCode": 200, "message": "QR configuration set"})
    client.set_qr_config("QR-1", [1500], single_use=True)
    assert len(fake.requests) == 5


def test_a_single_use_qr_config_is_not_sent_again_after_a_lost_connection() -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=f"http://127.0.0.1:{_closed_port()}", timeout=2)
    sleeps: List[float] = []
    client._sleep = sleeps.append  # type: ignore[assignment]
    with pytest.raises(dzpay.APIConnectionError):
        client.set_qr_config("QR-1", [1500], single_use=True)
    assert sleeps == []
    with pytest.raises(dzpay.APIConnectionError):
        client.set_qr_config("QR-1", [1500], single_use=False)
    assert len(sleeps) == 2


# ---- last_response: per thread, only for a call that succeeded ----


def test_last_response_belongs_to_the_thread_that_made_the_call(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok(PAYMENT, headers={"x-ratelimit-remaining": "7"})
    seen: List[Optional[dzpay.LastResponse]] = []

    def other_thread() -> None:
        client.get_payment(PAYMENT_ID)
        seen.append(client.last_response)

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join(10)
    assert seen[0] is not None and seen[0].headers["x-ratelimit-remaining"] == "7"
    assert client.last_response is None


def test_last_response_is_reset_when_a_call_starts_and_kept_only_for_a_parsed_answer(
    fake: FakeDzpay, client: dzpay.DzpayClient
) -> None:
    fake.ok(PAYMENT)
    client.get_payment(PAYMENT_ID)
    assert client.last_response is not None
    fake.error(404, "PAYMENT_INSTANCE404_NOT_FOUND")
    with pytest.raises(dzpay.NotFoundError):
        client.get_payment(PAYMENT_ID)
    assert client.last_response is None
    fake.answer(200, "<html>a proxy</html>", {"content-type": "text/html"})
    with pytest.raises(dzpay.UnexpectedResponseError):
        client.get_payment(PAYMENT_ID)
    assert client.last_response is None
    fake.ok(REGISTERED, status=200)  # not the 201 a registration answers
    with pytest.raises(dzpay.UnexpectedResponseError):
        client.register_payment(amount=5000, reference="R-1")
    assert client.last_response is None


def test_last_response_is_not_set_for_a_body_cut_off(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.ok(PAYMENT)
    client.get_payment(PAYMENT_ID)
    fake.answer(200, Cut(b'{"statusCode":200,"data":'), {"content-type": "application/json"})
    with pytest.raises(dzpay.APIConnectionError):
        client.send_test_webhook()
    assert client.last_response is None


# ---- A body cut off by a timeout or a reset ----


def test_a_json_body_cut_off_is_retried_when_safe(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(200, Cut(b'{"statusCode":200,"data":{"id"'), {"content-type": "application/json"})
    fake.ok(PAYMENT)
    assert client.get_payment(PAYMENT_ID)["id"] == PAYMENT_ID
    assert len(fake.requests) == 2 and len(client._sleep) == 1  # type: ignore[arg-type]
    assert client.last_response is not None and client.last_response.status == 200


def test_a_json_body_cut_off_raises_a_connection_error_with_the_key(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    for _ in range(3):
        fake.answer(202, Cut(b'{"statusCode":202'), {"content-type": "application/json"})
    with pytest.raises(dzpay.APIConnectionError) as caught:
        client.refund_payment(PAYMENT_ID, idempotency_key="refund-ORDER-7-1")
    assert caught.value.idempotency_key == "refund-ORDER-7-1" and caught.value.status is None
    assert len(fake.requests) == 3
    # Not safe to repeat: raised at once.
    fake.answer(200, Cut(b'{"statusCode":200'), {"content-type": "application/json"})
    with pytest.raises(dzpay.APIConnectionError):
        client.send_test_webhook()
    assert len(fake.requests) == 4


def test_a_timeout_while_reading_the_body_is_a_connection_error(fake: FakeDzpay) -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=fake.url, timeout=0.3, max_retries=0)
    fake.answer(200, Cut(b'{"statusCode":200', delay=1.0), {"content-type": "application/json"})
    with pytest.raises(dzpay.APIConnectionError) as caught:
        client.get_payment(PAYMENT_ID)
    assert isinstance(caught.value.__cause__, OSError)


def test_binary_downloads_cut_off_are_connection_errors(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    fake.answer(200, Cut(b"%PDF-1.7 and then"), {"content-type": "application/pdf"})
    with pytest.raises(dzpay.APIConnectionError):
        client.download_statement("2026-11")
    fake.answer(200, Cut(b"\x89PNG"), {"content-type": "image/png"})
    with pytest.raises(dzpay.APIConnectionError):
        client.qr_code_image("QR-1", format="png")
    fake.answer(200, Cut(b"PK\x03\x04"), {"content-type": "application/vnd.ms-excel"})
    with pytest.raises(dzpay.APIConnectionError):
        client.export_payments_xlsx()
    assert client.last_response is None


@pytest.mark.parametrize("read", ["iter_bytes", "iter_rows", "iter_dicts", "read", "write_to"])
def test_a_csv_export_cut_off_is_a_connection_error(fake: FakeDzpay, client: dzpay.DzpayClient, read: str) -> None:
    fake.answer(200, Cut(b"id,reference\r\nid-1,ORDER-1\r\nid-2,ORD", chunked=True), {"content-type": "text/csv"})
    export = client.export_payments()
    with pytest.raises(dzpay.APIConnectionError):
        if read == "write_to":
            export.write_to(io.BytesIO())
        else:
            result = getattr(export, read)()
            if read != "read":
                list(result)


# ---- Amounts in centimes are positive ints ----


@pytest.mark.parametrize("amount", [1500.0, 1500.5, True, "150050", Decimal("150050"), 0, -100, None])
def test_amounts_in_centimes_must_be_positive_ints(fake: FakeDzpay, client: dzpay.DzpayClient, amount: Any) -> None:
    with pytest.raises(ValueError, match="centimes"):
        client.register_payment(amount=amount, reference="R-1")
    if amount is not None:
        with pytest.raises(ValueError, match="centimes"):
            client.refund_payment(PAYMENT_ID, amount=amount)
        with pytest.raises(ValueError, match="centimes"):
            client.create_payment_link(label="Book", amount=amount)
        with pytest.raises(ValueError, match="centimes"):
            client.create_payment_link(label="Book", min_amount=amount, max_amount=900000)
        with pytest.raises(ValueError, match="centimes"):
            client.create_payment_link(label="Book", min_amount=100, max_amount=amount)
    assert fake.requests == []


# ---- Naive datetimes are refused ----


def test_naive_datetimes_are_refused_before_sending(fake: FakeDzpay, client: dzpay.DzpayClient) -> None:
    naive = datetime(2026, 12, 1, 10, 0)
    with pytest.raises(ValueError, match="aware datetime"):
        client.set_qr_config("QR-1", [1500], single_use=False, expires_at=naive)
    with pytest.raises(ValueError, match="aware datetime"):
        client.create_payment_link(label="Book", amount=150050, expires_at=naive)
    with pytest.raises(ValueError, match="created_from"):
        client.list_payments(created_from=naive)
    with pytest.raises(ValueError, match="created_to"):
        client.iter_payments(created_to=naive)
    with pytest.raises(ValueError, match="aware datetime"):
        client.export_payments(created_from=naive)
    with pytest.raises(ValueError, match="aware datetime"):
        client.export_payments_xlsx(created_to=naive)
    assert fake.requests == []
    fake.ok({"payments": [], "nextCursor": None})
    client.list_payments(created_from=datetime(2026, 11, 1, 10, 0, tzinfo=timezone.utc), created_to=date(2026, 11, 30))
    assert fake.requests[0].query == {"createdFrom": ["2026-11-01T10:00:00+00:00"], "createdTo": ["2026-11-30"]}
