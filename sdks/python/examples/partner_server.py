"""A complete dzpay partner on the standard library's http.server: a bookshop.

dzpay calls two endpoints under your API_URL (here API_URL = http://<host>:8000/dzpay):

    GET  /dzpay/{reference}          the product lookup: what does this book cost?
    POST /dzpay/webhooks/platform    the webhook receiver: this book was paid (or not)

Run it:

    DZPAY_API_SECRET=...  DZPAY_WEBHOOK_SECRET=whsec_...  python3 examples/partner_server.py

Optional: DZPAY_WEBHOOK_SECRET_PREVIOUS (while rotating), PORT (8000), PREFIX (/dzpay).
In production put it behind TLS, and keep processed event ids in a database table with a
unique constraint, written in the same transaction as the sale.
"""

from __future__ import annotations

import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Set, Tuple

import dzpay
from dzpay.types import WebhookEvent

MAX_BODY_BYTES = 1024 * 1024  # dzpay's events are a few kilobytes


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


class Bookshop:
    """The shop's own data: the books, and the webhook events already handled."""

    def __init__(self) -> None:
        self.books: Dict[str, Dict[str, Any]] = {
            "BOOK-42": {"title": "Nedjma", "price_dzd": 1500.5, "sold": False},
            "BOOK-43": {"title": "L'Incendie", "price_dzd": 1200, "sold": False},
        }
        self.processed: Set[str] = set()
        self.lock = threading.Lock()

    def lookup(self, reference: str) -> Optional[dzpay.PartnerResponse]:
        """dzpay asks what a reference costs (answer within 4 s)."""
        book = self.books.get(reference)
        if book is None:
            return dzpay.partner_error("NOT_FOUND", "No book has this reference")
        if book["sold"]:
            return dzpay.partner_error("ALREADY_PAID", "This book is already sold")
        return dzpay.product_response(reference, book["price_dzd"], label=book["title"])

    def on_event(self, event: WebhookEvent) -> None:
        """A verified event (answer within 15 s: store it, do slow work afterwards)."""
        with self.lock:
            # At least once: the same event can come again (a retry, a replay), always
            # with the same id. In production: a unique constraint, in one transaction.
            if event["id"] in self.processed:
                return
            book = self.books.get(event["data"]["reference"])
            # A payment.fail of one attempt may arrive after another attempt's success:
            # never undo a sale because of it.
            if book is not None and event["type"] == "payment.success":
                book["sold"] = True
            self.processed.add(event["id"])
        print(f"dzpay event {event['id']}: {event['type']} {event['data']['reference']}", file=sys.stderr)


def make_handler(
    shop: Bookshop,
    *,
    api_secret: str,
    signing_secrets: List[str],
    prefix: str = "/dzpay",
) -> type:
    prefix = prefix.rstrip("/")

    class PartnerHandler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reference = dzpay.reference_from_path(self.path, prefix)
            if reference is None:
                self._send(dzpay.partner_error("NOT_FOUND", "No such route"))
                return
            self._send(
                dzpay.answer_product_lookup(
                    self.headers,
                    reference,
                    api_secret=api_secret,
                    lookup=shop.lookup,
                    on_error=lambda error: self.log_error("lookup failed: %r", error),
                )
            )

        def do_POST(self) -> None:
            if self.path.split("?", 1)[0] != f"{prefix}/webhooks/platform":
                self._send(dzpay.error_response(404, "NOT_FOUND", "No such route"))
                return
            problem = content_length_problem(
                self.headers.get_all("content-length"), MAX_BODY_BYTES
            )
            if problem is not None:
                status, why = problem
                error = "PAYLOAD_TOO_LARGE" if status == 413 else "BAD_REQUEST"
                self.close_connection = True  # the body, if any, is left unread
                self._send(dzpay.error_response(status, error, why))
                return
            length = int(self.headers["content-length"])
            # The raw bytes, exactly as received: verify them before any JSON parsing.
            raw_body = self.rfile.read(length)
            self._send(
                dzpay.receive_webhook(
                    raw_body,
                    self.headers,
                    signing_secrets=signing_secrets,
                    on_event=shop.on_event,
                    on_error=lambda error, event: self.log_error(
                        "event %s failed: %r", event["id"], error
                    ),
                )
            )

        def _send(self, answer: dzpay.PartnerResponse) -> None:
            body = answer.json_bytes()
            self.send_response(answer.status)
            self.send_header("content-type", "application/json; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return PartnerHandler


def main() -> None:
    api_secret = os.environ["DZPAY_API_SECRET"]
    secrets = [os.environ["DZPAY_WEBHOOK_SECRET"]]
    if os.environ.get("DZPAY_WEBHOOK_SECRET_PREVIOUS"):
        secrets.append(os.environ["DZPAY_WEBHOOK_SECRET_PREVIOUS"])
    port = int(os.environ.get("PORT", "8000"))
    prefix = os.environ.get("PREFIX", "/dzpay")
    handler = make_handler(Bookshop(), api_secret=api_secret, signing_secrets=secrets, prefix=prefix)
    server = ThreadingHTTPServer(("0.0.0.0", port), handler)
    print(f"partner listening: API_URL = http://<this host>:{port}{prefix}", file=sys.stderr)
    server.serve_forever()


if __name__ == "__main__":
    main()
