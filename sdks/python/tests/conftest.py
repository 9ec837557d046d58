"""A scripted dzpay on a local http.server: it records every request the client sends
and answers what each test tells it to."""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

import dzpay  # noqa: E402


@dataclass
class Recorded:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def route(self) -> str:
        return self.path.split("?", 1)[0]

    @property
    def query(self) -> Dict[str, List[str]]:
        from urllib.parse import parse_qs

        return parse_qs(self.path.split("?", 1)[1]) if "?" in self.path else {}


@dataclass
class Cut:
    """An answer whose body stops short: the headers announce more than ``sent`` (as a
    Content-Length, or as chunks never ended), ``delay`` seconds of silence follow (a
    timeout, for a client that waits less), then the connection is closed (a reset)."""

    sent: bytes = b""
    delay: float = 0.0
    chunked: bool = False


Body = Union[bytes, str, dict, list, None, Iterable[bytes], Cut]
Answer = Tuple[int, Dict[str, str], Body]


@dataclass
class FakeDzpay:
    url: str = ""
    requests: List[Recorded] = field(default_factory=list)
    answers: List[Union[Answer, Callable[[Recorded], Answer]]] = field(default_factory=list)
    default: Optional[Callable[[Recorded], Answer]] = None

    def answer(self, status: int, body: Body = None, headers: Optional[Dict[str, str]] = None) -> None:
        self.answers.append((status, headers or {}, body))

    def ok(self, data: Any, status: int = 200, headers: Optional[Dict[str, str]] = None) -> None:
        self.answer(status, {"statusCode": status, "message": "ok", "data": data}, headers)

    def error(
        self,
        status: int,
        error_code: str,
        message: str = "refused",
        details: Optional[dict] = None,
        headers: Optional[Dict[str, str]] = None,
    ) -> None:
        body: Dict[str, Any] = {
            "statusCode": status,
            "message": message,
            "errorCode": error_code,
            "timestamp": "2026-11-21T10:00:00.000Z",
        }
        if details is not None:
            body["details"] = details
        self.answer(status, body, headers)

    def next_answer(self, request: Recorded) -> Answer:
        if self.answers:
            answer = self.answers.pop(0)
            return answer(request) if callable(answer) else answer
        if self.default is not None:
            return self.default(request)
        return (500, {}, {"statusCode": 500, "message": "no answer scripted", "errorCode": "INTERNAL500_ERROR", "timestamp": "2026-11-21T10:00:00.000Z"})


def _handler(fake: FakeDzpay) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            request = Recorded(
                self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
            fake.requests.append(request)
            status, headers, answer = fake.next_answer(request)
            self.send_response(status)
            headers = {k.lower(): v for k, v in headers.items()}
            if isinstance(answer, Cut):
                for name, value in headers.items():
                    self.send_header(name, value)
                if answer.chunked:
                    self.send_header("transfer-encoding", "chunked")
                else:
                    self.send_header("content-length", str(len(answer.sent) + 1000))
                self.end_headers()
                if answer.chunked and answer.sent:
                    self.wfile.write(f"{len(answer.sent):x}\r\n".encode() + answer.sent + b"\r\n")
                else:
                    self.wfile.write(answer.sent)
                self.wfile.flush()
                if answer.delay:
                    time.sleep(answer.delay)
                self.close_connection = True
                return
            chunked = isinstance(answer, list) and bool(answer) and all(isinstance(c, bytes) for c in answer)
            if isinstance(answer, (dict, list)) and not chunked:
                payload: Optional[bytes] = json.dumps(answer).encode()
                headers.setdefault("content-type", "application/json; charset=utf-8")
            elif isinstance(answer, str):
                payload = answer.encode()
            elif isinstance(answer, bytes) or answer is None:
                payload = answer or b""
            else:
                payload = None  # an iterable of chunks: chunked transfer
            for name, value in headers.items():
                self.send_header(name, value)
            if payload is not None:
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            else:
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for chunk in answer:  # type: ignore[union-attr]
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

        do_GET = do_POST = do_PUT = do_DELETE = _serve

    return Handler


@pytest.fixture
def fake() -> Iterable[FakeDzpay]:
    state = FakeDzpay()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def client(fake: FakeDzpay) -> dzpay.DzpayClient:
    made = dzpay.DzpayClient(api_key="pk_test_abc", base_url=fake.url + "/", timeout=5)
    made._sleep = Sleeps()  # type: ignore[assignment]
    return made
