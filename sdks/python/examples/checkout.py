"""A merchant's checkout with dzpay's hosted payment page, on the standard library's
http.server.

    GET  /                      a checkout button for one order
    POST /pay                   registers the payment, redirects the payer to checkoutUrl
    GET  /return?reference=…    where dzpay sends the payer back: reads the payment
    POST /webhooks/platform     dzpay's webhook: the payment's outcome, signed

Run it (a pk_test_ key pays against dzpay's sandbox):

    DZPAY_API_KEY=pk_test_...  DZPAY_BASE_URL=http://localhost:8080 \\
    DZPAY_WEBHOOK_SECRET=whsec_...  PUBLIC_URL=http://localhost:8001 \\
    python3 examples/checkout.py

then open http://localhost:8001/ and pay with a sandbox test card.
"""

from __future__ import annotations

import html
import os
import sys
import threading
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Set, Tuple

import dzpay
from dzpay.types import WebhookEvent

PRICE_CENTIMES = 150050  # 1 500,50 DA: the payments API counts in centimes
MAX_BODY_BYTES = 1024 * 1024


def content_length_problem(values: Optional[List[str]], limit: int) -> Optional[Tuple[int, str]]:
    """What is wrong with a request's Content-Length: ``(400, why)`` when it is missing,
    sent twice or not a plain decimal number, ``(413, why)`` above ``limit`` bytes; else
    ``None``. A body is never cut short: a truncated body could not verify anyway."""
    if not values or len(values) != 1:
        return 400, "Content-Length is required, once"
    value = values[0].strip()
    if not value.isascii() or not value.isdigit():
        return 400, "Content-Length must be a number of bytes"
    if int(value) > limit:
        return 413, "the body is too large"
    return None


class Orders:
    """The shop's orders: reference → dzpay payment id and what the webhook said."""

    def __init__(self) -> None:
        self.payment_ids: Dict[str, str] = {}
        self.paid: Dict[str, bool] = {}
        self.seen_events: Set[str] = set()
        self.lock = threading.Lock()

    def on_event(self, event: WebhookEvent) -> None:
        with self.lock:
            if event["id"] in self.seen_events:  # delivered at least once: dedup on the id
                return
            self.seen_events.add(event["id"])
            if event["type"] == "payment.success":
                self.paid[event["data"]["reference"]] = True


def make_handler(client: dzpay.DzpayClient, orders: Orders, *, public_url: str, signing_secret: str) -> type:
    public_url = public_url.rstrip("/")

    class CheckoutHandler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/":
                reference = f"ORDER-{uuid.uuid4().hex[:10].upper()}"
                self._page(
                    200,
                    f"<h1>Order {html.escape(reference)}</h1><p>Nedjma, Kateb Yacine: 1 500,50 DA</p>"
                    f'<form method="post" action="/pay"><input type="hidden" name="reference" '
                    f'value="{html.escape(reference)}"><button>Pay by card (CIB / Edahabia)</button></form>',
                )
            elif url.path == "/return":
                reference = urllib.parse.parse_qs(url.query).get("reference", [""])[0]
                try:
                    outcome = self._outcome(reference)
                except dzpay.DzpayError as error:
                    # dzpay unreachable or refusing: say so, and let the payer reload.
                    self.log_error("get_payment failed: %r", error)
                    self._page(
                        502,
                        "<h1>We could not check your payment yet</h1>"
                        f"<p>Order {html.escape(reference)}: please reload this page in a "
                        "moment. If you paid, your order will be confirmed.</p>",
                    )
                    return
                self._page(200, outcome)
            else:
                self._page(404, "<p>Not found</p>")

        def do_POST(self) -> None:
            problem = content_length_problem(
                self.headers.get_all("content-length"), MAX_BODY_BYTES
            )
            if problem is not None:
                status, why = problem
                self.close_connection = True  # the body, if any, is left unread
                self._page(status, f"<p>{html.escape(why)}</p>")
                return
            length = int(self.headers["content-length"])
            # Every byte announced (a webhook's signature covers them all), never fewer.
            raw_body = self.rfile.read(length)
            if self.path == "/webhooks/platform":
                answer = dzpay.receive_webhook(
                    raw_body, self.headers, signing_secret=signing_secret, on_event=orders.on_event
                )
                body = answer.json_bytes()
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif self.path == "/pay":
                form = urllib.parse.parse_qs(raw_body.decode("utf-8", "replace"))
                self._pay(form.get("reference", [""])[0])
            else:
                self._page(404, "<p>Not found</p>")

        def _pay(self, reference: str) -> None:
            if not reference:
                self._page(400, "<p>No order</p>")
                return
            try:
                payment = client.register_payment(
                    amount=PRICE_CENTIMES,
                    reference=reference,
                    success_url=f"{public_url}/return",
                    failure_url=f"{public_url}/return",
                    language="fr",
                    metadata={"shop": "example"},
                    # The order's reference as the key: a double click or a retry after a
                    # timeout answers the same payment (and the same checkoutUrl).
                    idempotency_key=reference,
                )
            except dzpay.DzpayError as error:
                self.log_error("register failed: %r", error)
                self._page(502, f"<p>The payment could not start ({html.escape(str(error.error_code or error.status))}).</p>")
                return
            with orders.lock:
                orders.payment_ids[reference] = payment["id"]
            # checkoutUrl is shown only once: send the payer there now.
            self.send_response(303)
            self.send_header("location", payment["checkoutUrl"])
            self.send_header("content-length", "0")
            self.end_headers()

        def _outcome(self, reference: str) -> str:
            payment_id: Optional[str] = orders.payment_ids.get(reference)
            if payment_id is None:
                return "<p>Unknown order.</p>"
            # The return is not proof of payment: ask dzpay (the webhook says it too).
            payment = client.get_payment(payment_id)
            if payment["status"] == "success":
                return f"<h1>Thank you!</h1><p>Order {html.escape(reference)} is paid.</p>"
            return f"<h1>Not paid</h1><p>Status: {html.escape(payment['status'])}.</p><p><a href=\"/\">Try again</a></p>"

        def _page(self, status: int, content: str) -> None:
            body = f"<!doctype html><meta charset=utf-8><title>Shop</title>{content}".encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return CheckoutHandler


def main() -> None:
    client = dzpay.DzpayClient()  # DZPAY_API_KEY and DZPAY_BASE_URL
    port = int(os.environ.get("PORT", "8001"))
    public_url = os.environ.get("PUBLIC_URL", f"http://localhost:{port}")
    handler = make_handler(
        client, Orders(), public_url=public_url, signing_secret=os.environ["DZPAY_WEBHOOK_SECRET"]
    )
    print(f"shop on {public_url}", file=sys.stderr)
    ThreadingHTTPServer(("0.0.0.0", port), handler).serve_forever()


if __name__ == "__main__":
    main()
