"""The examples the README points to, run against a scripted dzpay and signed requests."""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import dzpay
from conftest import FakeDzpay

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import checkout  # noqa: E402
import partner_server  # noqa: E402

API_SECRET = "partner-api-secret"
SIGNING_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def serve(handler: type) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:  # type: ignore[override]
        return None


def call(method: str, url: str, body: bytes = b"", headers: Optional[Dict[str, str]] = None) -> Tuple[int, Dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body if method == "POST" else None, method=method, headers=headers or {})
    opener = urllib.request.build_opener(NoRedirect())
    try:
        with opener.open(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def signed(body: bytes, event_id: str) -> Dict[str, str]:
    now = int(time.time())
    return {
        "content-type": "application/json",
        "authorization": f"Bearer {API_SECRET}",
        "x-timestamp": str(now),
        "x-signature": dzpay.sign_webhook(body, now, SIGNING_SECRET),
        "webhook-id": event_id,
        "webhook-timestamp": str(now),
        "webhook-signature": dzpay.standard_webhook_signature(event_id, now, body, SIGNING_SECRET),
    }


def paid_event(reference: str, event_id: str = "evt-1", channel: str = "AGENCY") -> bytes:
    return json.dumps(
        {
            "id": event_id,
            "type": "payment.success",
            "createdAt": "2025-03-14T09:26:53.000Z",
            "data": {
                "paymentId": "5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71",
                "reference": reference,
                "channel": channel,
                "amount": 1500.5,
                "currency": "DZD",
                "status": "success",
                "orderId": "1000000001",
                "paidAt": "2025-03-14T09:26:52.000Z",
                "metadata": None,
                "failureReason": None,
            },
        },
        indent=1,
    ).encode()


@pytest.fixture
def partner() -> Iterator[Tuple[str, partner_server.Bookshop]]:
    shop = partner_server.Bookshop()
    handler = partner_server.make_handler(shop, api_secret=API_SECRET, signing_secrets=[SIGNING_SECRET])
    for url in serve(handler):
        yield url, shop


def test_partner_server_answers_lookups_and_webhooks(partner: Tuple[str, partner_server.Bookshop]) -> None:
    url, shop = partner
    lookup_headers = {"authorization": f"Bearer {API_SECRET}", "x-timestamp": str(int(time.time()))}
    status, _, body = call("GET", f"{url}/dzpay/BOOK-42", headers=lookup_headers)
    assert (status, json.loads(body)) == (200, {"reference": "BOOK-42", "amount": 1500.5, "currency": "DZD", "label": "Nedjma"})
    status, _, body = call("GET", f"{url}/dzpay/BOOK-42", headers={"x-timestamp": lookup_headers["x-timestamp"]})
    assert status == 401 and json.loads(body)["error"] == "UNAUTHORIZED"
    status, _, body = call("GET", f"{url}/dzpay/NO%20SUCH%2FBOOK", headers=lookup_headers)
    assert status == 404 and json.loads(body)["error"] == "NOT_FOUND"

    event = paid_event("BOOK-42")
    for _ in range(2):  # the same event twice: processed once
        status, _, body = call("POST", f"{url}/dzpay/webhooks/platform", event, signed(event, "evt-1"))
        assert (status, json.loads(body)) == (200, {"success": True})
    assert shop.books["BOOK-42"]["sold"] and shop.processed == {"evt-1"}

    status, _, body = call("GET", f"{url}/dzpay/BOOK-42", headers=lookup_headers)
    assert status == 409 and json.loads(body)["error"] == "ALREADY_PAID"

    forged = paid_event("BOOK-43", "evt-2")
    headers = signed(paid_event("BOOK-42", "evt-2"), "evt-2")
    status, _, body = call("POST", f"{url}/dzpay/webhooks/platform", forged, headers)
    assert status == 401 and not shop.books["BOOK-43"]["sold"]


def test_checkout_registers_redirects_and_reads_the_outcome(fake: FakeDzpay) -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=fake.url)
    orders = checkout.Orders()
    handler = checkout.make_handler(client, orders, public_url="http://shop.example", signing_secret=SIGNING_SECRET)
    for url in serve(handler):
        status, _, page = call("GET", f"{url}/")
        assert status == 200
        reference = page.decode().split('name="reference" value="', 1)[1].split('"', 1)[0]

        payment_id = "3f1c2b9e-7a41-4d0b-9c55-2e8f6a1d4b70"
        fake.ok({"id": payment_id, "checkoutUrl": "http://dzpay.test/checkout/tok", "reference": reference}, status=201)
        status, headers, _ = call("POST", f"{url}/pay", f"reference={reference}".encode(), {"content-type": "application/x-www-form-urlencoded"})
        assert status == 303 and headers["location"] == "http://dzpay.test/checkout/tok"
        register = fake.requests[-1]
        assert register.json["amount"] == 150050 and register.json["reference"] == reference
        assert register.json["successUrl"] == "http://shop.example/return"
        assert register.headers["idempotency-key"] == reference

        event = paid_event(reference, "evt-9", "CHECKOUT")
        status, _, _ = call("POST", f"{url}/webhooks/platform", event, signed(event, "evt-9"))
        assert status == 200 and orders.paid[reference]

        fake.ok({"id": payment_id, "status": "success"})
        status, _, page = call("GET", f"{url}/return?reference={reference}")
        assert status == 200 and "is paid" in page.decode()
        assert fake.requests[-1].path == f"/api/v1/payments/{payment_id}"


# ---- Content-Length: checked, never truncated ----


def raw_post(url: str, path: str, headers: List[str], body: bytes = b"") -> int:
    """A POST with exactly these header lines (urllib would fix Content-Length); its status."""
    host, port = url.split("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        head = f"POST {path} HTTP/1.1\r\nHost: {host}\r\n" + "".join(f"{line}\r\n" for line in headers) + "\r\n"
        conn.sendall(head.encode() + body)
        answer = b""
        while b"\r\n" not in answer:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1])


BAD_LENGTHS = [
    ([], 400),
    (["Content-Length: -1"], 400),
    (["Content-Length: abc"], 400),
    (["Content-Length: +5"], 400),
    (["Content-Length: 5", "Content-Length: 5"], 400),
    ([f"Content-Length: {1024 * 1024 + 1}"], 413),
]


@pytest.mark.parametrize(("headers", "status"), BAD_LENGTHS)
def test_partner_server_checks_the_content_length(partner: Tuple[str, partner_server.Bookshop], headers: List[str], status: int) -> None:
    url, shop = partner
    assert raw_post(url, "/dzpay/webhooks/platform", headers) == status
    assert shop.processed == set()


@pytest.mark.parametrize(("headers", "status"), BAD_LENGTHS)
def test_checkout_checks_the_content_length(fake: FakeDzpay, headers: List[str], status: int) -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=fake.url)
    handler = checkout.make_handler(client, checkout.Orders(), public_url="http://shop.example", signing_secret=SIGNING_SECRET)
    for url in serve(handler):
        assert raw_post(url, "/webhooks/platform", headers) == status
        assert raw_post(url, "/pay", headers) == status
    assert fake.requests == []


def test_checkout_answers_an_error_page_when_dzpay_cannot_be_read(fake: FakeDzpay) -> None:
    client = dzpay.DzpayClient(api_key="pk_test_abc", base_url=fake.url, max_retries=0)
    orders = checkout.Orders()
    orders.payment_ids["ORDER-1"] = "3f1c2b9e-7a41-4d0b-9c55-2e8f6a1d4b70"
    handler = checkout.make_handler(client, orders, public_url="http://shop.example", signing_secret=SIGNING_SECRET)
    for url in serve(handler):
        fake.error(500, "INTERNAL500_ERROR")
        status, _, page = call("GET", f"{url}/return?reference=ORDER-1")
        assert status == 502 and "reload" in page.decode()


# ---- The README's code ----


README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> List[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), re.S)


def test_readme_snippets_import_what_they_use() -> None:
    blocks = python_blocks()
    assert any("os.environ" in block for block in blocks)
    for block in blocks:
        if "os.environ" in block:
            assert re.search(r"^import os$", block, re.M), block


def test_readme_refunds_pass_a_key_and_say_to_reuse_it() -> None:
    refunds = [block for block in python_blocks() if "refund_payment(" in block]
    assert refunds
    for block in refunds:
        assert re.search(r"idempotency_key=\w", block), block
    text = " ".join(README.read_text("utf-8").split())
    assert "call again with the SAME key, never a new one" in text
    assert "error.idempotency_key" in text


def test_readme_says_a_not_found_status_has_no_payment() -> None:
    text = " ".join(README.read_text("utf-8").split())
    assert 'for `not_found`, `status["payment"]` is `None`' in text
