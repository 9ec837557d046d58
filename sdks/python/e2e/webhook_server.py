"""A partner's webhook endpoint on http.server, written with the SDK, for
system/sdk-python.system.test.ts:

    DZPAY_WEBHOOK_SECRET=whsec_... DZPAY_E2E_EVENTS=/tmp/events.jsonl \
        PYTHONPATH=sdks/python/src python3 webhook_server.py [port]

Listens on 127.0.0.1 (port 0: any free one) and prints {"port": ...} once it does.
dzpay posts to {API_URL}/webhooks/platform, API_URL being http://127.0.0.1:<port>/dzpay.
Each verified event is appended to DZPAY_E2E_EVENTS as one JSON line, with the raw body
and headers it came with (so the test can send a tampered copy).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import dzpay

SIGNING_SECRET = os.environ["DZPAY_WEBHOOK_SECRET"]
EVENTS_FILE = os.environ["DZPAY_E2E_EVENTS"]
_write = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        if self.path != "/dzpay/webhooks/platform":
            self._send(404, b'{"error":"NOT_FOUND"}')
            return
        length = int(self.headers.get("content-length") or 0)
        raw_body = self.rfile.read(length)  # the bytes as received, never re-serialised

        def on_event(event: Any) -> None:
            line = {
                "id": event["id"],
                "type": event["type"],
                "createdAt": event["createdAt"],
                "paymentId": event["data"].get("paymentId"),
                "reference": event["data"].get("reference"),
                "data": event["data"],
                "rawBody": raw_body.decode("utf-8"),
                "headers": {name.lower(): value for name, value in self.headers.items()},
            }
            with _write, open(EVENTS_FILE, "a", encoding="utf-8") as file:
                file.write(json.dumps(line) + "\n")

        answer = dzpay.receive_webhook(
            raw_body, self.headers, signing_secret=SIGNING_SECRET, on_event=on_event
        )
        self._send(answer.status, answer.json_bytes())

    def do_GET(self) -> None:  # noqa: N802
        self._send(200 if self.path == "/health" else 404, b'{"ok":true}')

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
