"""Product lookups: checking dzpay's request and the answers a partner gives."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, List

import pytest

import dzpay

NOW = 1741944600
TS = str(NOW)


def check(headers: dict, tolerance: int = 300) -> dzpay.RequestVerification:
    return dzpay.verify_dzpay_request(headers, "api-secret", now=NOW, tolerance_seconds=tolerance)


def test_accepts_the_bearer_secret_with_a_fresh_timestamp() -> None:
    assert check({"Authorization": "Bearer api-secret", "X-Timestamp": TS}).ok
    assert check({"authorization": "bearer api-secret", "x-timestamp": TS}).ok


@pytest.mark.parametrize("sent", ["other", "api-", "api-secret-and-more"])
def test_rejects_another_secret(sent: str) -> None:
    assert check({"authorization": f"Bearer {sent}", "x-timestamp": TS}).reason == "bad_secret"


@pytest.mark.parametrize(
    "headers",
    [
        {"x-timestamp": TS},
        {"authorization": "Basic YTpi", "x-timestamp": TS},
        {"authorization": "Bearer api-secret"},
        {"authorization": "Bearer ", "x-timestamp": TS},
        {"authorization": "Bearer api-secret", "x-timestamp": "soon"},
    ],
)
def test_rejects_missing_headers(headers: dict) -> None:
    assert check(headers).reason == "missing_headers"


def test_rejects_a_stale_timestamp_either_way() -> None:
    for offset in (-301, 301):
        assert check({"authorization": "Bearer api-secret", "x-timestamp": str(NOW + offset)}).reason == "stale_timestamp"
    assert check({"authorization": "Bearer api-secret", "x-timestamp": str(NOW - 31)}, 30).reason == "stale_timestamp"


def test_an_empty_api_secret_is_a_setup_error() -> None:
    with pytest.raises(ValueError):
        dzpay.verify_dzpay_request({}, "")


def test_product_response_fills_in_the_currency() -> None:
    answer = dzpay.product_response("BOOK-42", 1500.5, label="Nedjma")
    assert (answer.status, answer.body) == (200, {"reference": "BOOK-42", "amount": 1500.5, "currency": "DZD", "label": "Nedjma"})


@pytest.mark.parametrize(
    ("reference", "amount", "extra"),
    [
        ("B", 1.005, {}),
        ("B", 0, {}),
        ("B", -1, {}),
        ("B", True, {}),
        ("B", float("inf"), {}),
        ("", 1, {}),
        ("x" * 256, 1, {}),
        ("B", 1, {"label": "x" * 201}),
        ("B", 1, {"description": "x" * 1001}),
        ("B", 1, {"currency": "EUR"}),
        ("B", 1, {"metadata": [1]}),
    ],
)
def test_product_response_refuses_what_dzpay_would_refuse(reference: str, amount: Any, extra: dict) -> None:
    with pytest.raises(ValueError):
        dzpay.product_response(reference, amount, **extra)


def test_amounts_that_only_look_imprecise_in_binary_are_fine() -> None:
    for amount in (0.29, 1.1, 1500.5, 19.99, 100):
        assert dzpay.product_response("B", amount).body["amount"] == amount


def test_partner_errors_pair_each_code_with_its_status() -> None:
    assert dzpay.partner_error("NOT_FOUND", "no such book").status == 404
    assert dzpay.partner_error("ALREADY_PAID", "sold").status == 409
    assert dzpay.partner_error("SERVICE_UNAVAILABLE", "maintenance").body == {
        "error": "SERVICE_UNAVAILABLE",
        "errorMessage": "maintenance",
    }
    with pytest.raises(ValueError):
        dzpay.partner_error("GONE", "x")  # type: ignore[arg-type]


def test_answer_product_lookup() -> None:
    headers = {"authorization": "Bearer api-secret", "x-timestamp": TS}
    books = {"BOOK-42": 1500.5}

    def lookup(reference: str) -> Any:
        if reference == "BOOK-SOLD":
            return dzpay.partner_error("ALREADY_PAID", "sold")
        if reference == "BOOK-BROKEN":
            raise RuntimeError("database down")
        return dzpay.product_response(reference, books[reference]) if reference in books else None

    def answer(reference: str, sent: dict = headers) -> dzpay.PartnerResponse:
        return dzpay.answer_product_lookup(sent, reference, api_secret="api-secret", lookup=lookup, now=NOW, on_error=errors.append)

    errors: List[BaseException] = []
    assert answer("BOOK-42").status == 200
    assert answer("BOOK-SOLD").status == 409
    assert answer("NOPE").body == {"error": "NOT_FOUND", "errorMessage": "no product has this reference"}
    assert answer("BOOK-BROKEN").status == 503 and len(errors) == 1
    refused = answer("BOOK-42", {"authorization": "Bearer wrong", "x-timestamp": TS})
    assert refused.status == 401 and refused.body["error"] == "UNAUTHORIZED"


def test_reference_from_path() -> None:
    assert dzpay.reference_from_path("/dzpay/BOOK%2F42%20%231", "/dzpay") == "BOOK/42 #1"
    assert dzpay.reference_from_path("/dzpay/BOOK-42?x=1", "/dzpay/") == "BOOK-42"
    assert dzpay.reference_from_path("/BOOK+42") == "BOOK+42"
    assert dzpay.reference_from_path("/dzpay/%D9%83%D8%AA%D8%A7%D8%A8", "/dzpay") == "كتاب"
    assert dzpay.reference_from_path("/dzpay/a/b", "/dzpay") is None
    assert dzpay.reference_from_path("/dzpay/", "/dzpay") is None
    assert dzpay.reference_from_path("/other/BOOK", "/dzpay") is None
    assert dzpay.reference_from_path("/dzpay/%FF", "/dzpay") is None


def test_product_response_takes_a_decimal_with_two_places_as_a_json_number() -> None:
    answer = dzpay.product_response("BOOK-42", Decimal("1500.50"))
    assert answer.body["amount"] == 1500.5
    assert answer.json_bytes() == b'{"reference":"BOOK-42","amount":1500.5,"currency":"DZD"}'
    assert dzpay.product_response("B", Decimal("19.99")).json_bytes() == b'{"reference":"B","amount":19.99,"currency":"DZD"}'
    assert dzpay.product_response("B", Decimal("1200")).json_bytes() == b'{"reference":"B","amount":1200,"currency":"DZD"}'
    assert dzpay.product_response("B", Decimal("0.290")).body["amount"] == 0.29


@pytest.mark.parametrize(
    "amount",
    [Decimal("1.005"), Decimal("0.001"), Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-1"), Decimal("0"), Decimal("1e400")],
)
def test_product_response_refuses_decimals_dzpay_would_refuse(amount: Decimal) -> None:
    with pytest.raises(ValueError):
        dzpay.product_response("B", amount)


@pytest.mark.parametrize("amount", [1e308, 1.7976931348623157e308, 10**307])
def test_huge_amounts_are_a_value_error_not_an_overflow(amount: Any) -> None:
    with pytest.raises(ValueError):
        dzpay.product_response("B", amount)


def test_lookup_headers_as_bytes() -> None:
    assert check([(b"authorization", b"Bearer api-secret"), (b"x-timestamp", TS.encode())]).ok
    assert check({b"Authorization": b"Bearer api-secret", b"X-Timestamp": TS.encode()}).ok
