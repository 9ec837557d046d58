"""Webhook verification: the worked example of docs/webhooks.md, the shared signature
vectors (sdks/signature-vectors.json, when present) and the cases the Node SDK checks."""

from __future__ import annotations

import base64
import gc
import hashlib
import hmac
import inspect
import json
import re
import warnings
from datetime import datetime, timezone
from email.message import Message
from pathlib import Path
from typing import Any, Dict, List

import pytest

import dzpay

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO / "sdks" / "signature-vectors.json"
WEBHOOKS_DOC = REPO / "docs" / "webhooks.md"

# docs/webhooks.md, "Worked example" (checked against the document below when it is here).
EXAMPLE_BODY = (
    '{"id":"0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10","type":"payment.success",'
    '"createdAt":"2025-03-14T09:26:53.000Z","data":{"paymentId":"5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71",'
    '"reference":"BOOK-42","channel":"AGENCY","amount":1500.5,"currency":"DZD","status":"success",'
    '"orderId":"7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e","paidAt":"2025-03-14T09:26:52.000Z",'
    '"metadata":null,"failureReason":null}}'
)
EXAMPLE_SECRET = "partner-signing-secret"
EXAMPLE_TIMESTAMP = 1741944413
EXAMPLE_X_SIGNATURE = "794c93b1adf7bf172f511c863e9712f4b2abfd9c9bd52939dd6e498d92d9100f"
EXAMPLE_WEBHOOK_ID = "0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10"
EXAMPLE_WEBHOOK_SIGNATURE = "v1,Cox1psW33dgBuFg9aOY3ZQvHha/GJPskcrQ2+s2f1qI="

SECRET = "whsk-partner-current"
NOW = 1741944600  # 2025-03-14T09:30:00Z


def event(**data: Any) -> Dict[str, Any]:
    return {
        "id": "evt-42",
        "type": "payment.success",
        "createdAt": "2025-03-14T09:26:53.000Z",
        "data": {
            "paymentId": "5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71",
            "reference": "BOOK-42",
            "channel": "AGENCY",
            "amount": 1500.5,
            "currency": "DZD",
            "status": "success",
            "orderId": "7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e",
            "paidAt": "2025-03-14T09:26:52.000Z",
            "metadata": None,
            "failureReason": None,
            **data,
        },
    }


BODY = json.dumps(event(), separators=(",", ":"))


def x_headers(body: Any, secret: str = SECRET, timestamp: int = NOW) -> Dict[str, str]:
    return {"x-timestamp": str(timestamp), "x-signature": dzpay.sign_webhook(body, timestamp, secret)}


def standard_headers(body: Any, secrets: List[str], timestamp: int = NOW, webhook_id: str = "evt-42") -> Dict[str, str]:
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(
            dzpay.standard_webhook_signature(webhook_id, timestamp, body, s) for s in secrets
        ),
    }


def reason(result: dzpay.WebhookVerification) -> str:
    return "ok" if result.ok else str(result.reason)


def verify(body: Any = BODY, headers: Any = None, **options: Any) -> dzpay.WebhookVerification:
    options.setdefault("now", NOW)
    if "signing_secrets" not in options:
        options.setdefault("signing_secret", SECRET)
    return dzpay.verify_webhook(body, headers if headers is not None else x_headers(BODY), **options)


# ---- The worked example ----


def test_the_worked_example_of_the_docs() -> None:
    assert len(EXAMPLE_BODY.encode()) == 384
    assert dzpay.sign_webhook(EXAMPLE_BODY, EXAMPLE_TIMESTAMP, EXAMPLE_SECRET) == EXAMPLE_X_SIGNATURE
    assert (
        dzpay.standard_webhook_signature(EXAMPLE_WEBHOOK_ID, EXAMPLE_TIMESTAMP, EXAMPLE_BODY, EXAMPLE_SECRET)
        == EXAMPLE_WEBHOOK_SIGNATURE
    )
    for headers in (
        {"X-Signature": EXAMPLE_X_SIGNATURE, "X-Timestamp": str(EXAMPLE_TIMESTAMP)},
        {
            "webhook-id": EXAMPLE_WEBHOOK_ID,
            "webhook-timestamp": str(EXAMPLE_TIMESTAMP),
            "webhook-signature": EXAMPLE_WEBHOOK_SIGNATURE,
        },
    ):
        result = dzpay.verify_webhook(
            EXAMPLE_BODY.encode(), headers, signing_secret=EXAMPLE_SECRET, now=EXAMPLE_TIMESTAMP + 300
        )
        assert result.ok, result
        assert result.event is not None and result.event["data"]["reference"] == "BOOK-42"


def test_the_worked_example_is_the_one_the_docs_publish() -> None:
    if not WEBHOOKS_DOC.exists():
        pytest.skip("docs/webhooks.md is not here")
    doc = WEBHOOKS_DOC.read_text("utf-8")
    section = doc[doc.index("### Worked example") :]
    body = re.search(r"```text\n(\{.*?\})\n```", section, re.S)
    assert body is not None and body.group(1) == EXAMPLE_BODY

    def row(name: str) -> str:
        match = re.search(rf"\| {re.escape(name)}\s*\| `([^`]+)`", section)
        assert match is not None, name
        return match.group(1)

    assert row("signing secret") == EXAMPLE_SECRET
    assert row("timestamp") == str(EXAMPLE_TIMESTAMP)
    assert row("X-Signature") == EXAMPLE_X_SIGNATURE
    assert row("webhook-id") == EXAMPLE_WEBHOOK_ID
    assert row("webhook-signature") == EXAMPLE_WEBHOOK_SIGNATURE


# ---- The shared vectors ----


def _vectors() -> List[Dict[str, Any]]:
    if not VECTORS.exists():
        return []
    loaded = json.loads(VECTORS.read_text("utf-8"))
    return loaded["vectors"] if isinstance(loaded, dict) else loaded


# The file's reasons, mapped to the four this SDK shares with the Node SDK (sdks/README.md).
VECTOR_REASONS = {
    "bad-signature": "bad_signature",
    "stale": "stale_timestamp",
    "future": "stale_timestamp",
    "missing-header": "missing_headers",
    "duplicate-header": "missing_headers",
    "malformed-header": "missing_headers",
    "malformed-body": "malformed_body",
}


def _now_of(value: Any) -> Any:
    if isinstance(value, str) and not value.isdigit():
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return int(value) if isinstance(value, str) else value


def _body_of(vector: Dict[str, Any]) -> Any:
    if "rawBodyBase64" in vector:
        return base64.b64decode(vector["rawBodyBase64"])
    raw = vector["rawBody"]
    if isinstance(raw, dict) and "base64" in raw:
        return base64.b64decode(raw["base64"])
    if isinstance(raw, dict) and "hex" in raw:
        return bytes.fromhex(raw["hex"])
    return raw


def _as_http_server_headers(headers: Dict[str, Any]) -> Message:
    """The headers as http.server hands them over: an array is a header sent twice."""
    message = Message()
    for name, value in headers.items():
        for line in value if isinstance(value, list) else [value]:
            message[name] = line
    return message


@pytest.mark.parametrize("form", ["dict", "http.server"])
@pytest.mark.parametrize("vector", _vectors(), ids=lambda v: str(v.get("name")) if isinstance(v, dict) else str(v))
def test_signature_vectors(vector: Dict[str, Any], form: str) -> None:
    secret = vector.get("secrets", vector.get("secret"))
    secrets = {"signing_secrets": secret} if isinstance(secret, list) else {"signing_secret": secret}
    expect = vector["expect"]
    options: Dict[str, Any] = {"now": _now_of(vector["now"]), **secrets}
    if vector.get("toleranceSeconds") is not None:
        options["tolerance_seconds"] = vector["toleranceSeconds"]
    try:
        headers = vector["headers"] if form == "dict" else _as_http_server_headers(vector["headers"])
        body = _body_of(vector)
        result = dzpay.verify_webhook(body.encode("utf-8") if isinstance(body, str) else body, headers, **options)
    except ValueError:
        # A configuration the SDKs refuse outright (an empty secret): never valid.
        assert not expect["valid"]
        return
    assert result.ok == expect["valid"], (result, vector["name"])
    if not expect["valid"] and expect.get("reason") is not None:
        assert result.reason == VECTOR_REASONS[expect["reason"]], vector["name"]


def test_the_vectors_file_is_read_when_it_exists() -> None:
    if not VECTORS.exists():
        pytest.skip("sdks/signature-vectors.json is not written yet")
    assert len(_vectors()) > 0


# ---- X-Signature and X-Timestamp ----


def test_accepts_a_signature_and_returns_the_event() -> None:
    result = verify()
    assert result and result.event is not None
    assert result.event["id"] == "evt-42" and result.event["data"]["amount"] == 1500.5


def test_accepts_bytes_any_header_case_and_an_upper_case_hex_signature() -> None:
    headers = x_headers(BODY)
    result = verify(BODY.encode(), {"X-Timestamp": headers["x-timestamp"], "X-Signature": headers["x-signature"].upper()})
    assert result.ok


def test_accepts_http_server_headers_and_pairs_and_refuses_a_header_sent_twice() -> None:
    message = Message()
    for name, value in x_headers(BODY).items():
        message[name] = value
    assert verify(BODY, message).ok
    assert verify(BODY, list(x_headers(BODY).items())).ok
    message["X-Timestamp"] = str(NOW)
    assert reason(verify(BODY, message)) == "missing_headers"
    twice = {"x-signature": x_headers(BODY)["x-signature"], "x-timestamp": [str(NOW), str(NOW)]}
    assert reason(verify(BODY, twice)) == "missing_headers"


def test_rejects_a_tampered_body_another_secret_and_a_changed_timestamp() -> None:
    assert reason(verify(BODY.replace("1500.5", "15.5"))) == "bad_signature"
    assert reason(verify(BODY, x_headers(BODY, "someone-else"))) == "bad_signature"
    moved = {**x_headers(BODY), "x-timestamp": str(NOW + 1)}
    assert reason(verify(BODY, moved)) == "bad_signature"


def test_timestamp_tolerance_either_way() -> None:
    assert verify(BODY, x_headers(BODY, timestamp=NOW - 300)).ok
    assert reason(verify(BODY, x_headers(BODY, timestamp=NOW - 301))) == "stale_timestamp"
    assert reason(verify(BODY, x_headers(BODY, timestamp=NOW + 301))) == "stale_timestamp"
    assert reason(verify(BODY, x_headers(BODY, timestamp=NOW - 61), tolerance_seconds=60)) == "stale_timestamp"
    as_datetime = datetime.fromtimestamp(NOW, tz=timezone.utc)
    assert verify(BODY, x_headers(BODY), now=as_datetime).ok


def test_accepts_either_secret_while_rotating() -> None:
    secrets = ["whsk-partner-next", SECRET]
    for signer in secrets:
        assert verify(BODY, x_headers(BODY, signer), signing_secrets=secrets).ok
    assert reason(verify(BODY, x_headers(BODY, "retired"), signing_secrets=secrets)) == "bad_signature"


def test_the_signature_covers_bytes_not_values() -> None:
    pretty = json.dumps(json.loads(BODY), indent=2)
    assert reason(verify(pretty)) == "bad_signature"
    assert reason(verify(BODY + "\n")) == "bad_signature"
    body = json.dumps(event(reference="Livre « Nedjma » — نجمة"), ensure_ascii=False)
    headers = x_headers(body)
    assert verify(body, headers).ok and verify(body.encode("utf-8"), headers).ok
    assert reason(verify(body.encode("utf-16"), headers)) == "bad_signature"


# ---- Standard Webhooks ----


def test_standard_webhooks_headers() -> None:
    assert verify(BODY, standard_headers(BODY, [SECRET])).ok
    rotating = standard_headers(BODY, ["whsk-old", "whsk-new"])
    assert verify(BODY, rotating, signing_secret="whsk-old").ok
    assert verify(BODY, rotating, signing_secret="whsk-new").ok
    assert reason(verify(BODY, rotating)) == "bad_signature"
    assert reason(verify(BODY, standard_headers(BODY, [SECRET], timestamp=NOW - 301))) == "stale_timestamp"


def test_other_versions_are_skipped_and_the_id_is_signed() -> None:
    headers = standard_headers(BODY, [SECRET])
    v1 = headers["webhook-signature"]
    headers["webhook-signature"] = f"v1a,{'A' * 86}== {v1.replace('v1,', 'v2,')}"
    assert reason(verify(BODY, headers)) == "bad_signature"
    tampered = {**standard_headers(BODY, [SECRET]), "webhook-id": "evt-2"}
    assert reason(verify(BODY, tampered)) == "bad_signature"


def test_whsec_secrets_are_keyed_with_their_decoded_bytes() -> None:
    key = bytes(range(32))
    secret = "whsec_" + base64.b64encode(key).decode()
    import hashlib
    import hmac

    digest = hmac.new(key, f"evt-42.{NOW}.".encode() + BODY.encode(), hashlib.sha256).digest()
    assert dzpay.standard_webhook_signature("evt-42", NOW, BODY, secret) == "v1," + base64.b64encode(digest).decode()
    assert verify(BODY, standard_headers(BODY, [secret]), signing_secret=secret).ok
    # X-Signature keys with the secret as written, whsec_ or not.
    assert verify(BODY, x_headers(BODY, secret), signing_secret=secret).ok


def test_a_rotation_where_x_signature_uses_a_secret_the_partner_no_longer_holds() -> None:
    headers = {**x_headers(BODY, "whsk-new"), **standard_headers(BODY, ["whsk-old", "whsk-new"])}
    assert verify(BODY, headers, signing_secret="whsk-old").ok


def test_everything_dzpay_sends_at_once() -> None:
    headers = {
        **x_headers(BODY),
        **standard_headers(BODY, [SECRET]),
        "authorization": "Bearer api-secret",
        "x-event-id": "evt-42",
        "x-event-type": "payment.success",
        "content-type": "application/json",
    }
    assert verify(BODY, headers).ok


# ---- Bad input ----


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, "missing_headers"),
        ({"x-signature": "ab" * 32}, "missing_headers"),
        ({"x-signature": "", "x-timestamp": "1"}, "missing_headers"),
        ({"x-signature": "ab" * 32, "x-timestamp": "2025-03-14T09:30:00Z"}, "missing_headers"),
        ({"x-signature": "ab" * 32, "x-timestamp": f"{NOW}\n"}, "missing_headers"),
        ({"x-signature": "ab" * 32, "x-timestamp": "١٢٣"}, "missing_headers"),
        ({"x-signature": "zz", "x-timestamp": str(NOW)}, "bad_signature"),
        ({"webhook-id": "e", "webhook-timestamp": str(NOW), "webhook-signature": "v1,%%%"}, "bad_signature"),
    ],
)
def test_bad_headers_answer_a_reason_without_raising(headers: Dict[str, str], expected: str) -> None:
    assert reason(verify(BODY, headers)) == expected


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        '{"id":"e","type":"payment.refund"}',
        "\u00ff",
        "NaN",
        json.dumps(event(amount="1500.5")),
        json.dumps(event(channel="QR")),
        json.dumps(event(paidAt="2025-03-14 09:26:52")),
        json.dumps(event(amount=True)),
        json.dumps(event(metadata=[1])),
        json.dumps({k: v for k, v in event().items() if k != "createdAt"}),
        json.dumps(event()).replace('"amount": 1500.5', '"amount": 1e999'),
        "\ufeff" + json.dumps(event()),
    ],
)
def test_a_signed_body_that_is_not_an_event_is_malformed(body: str) -> None:
    assert reason(verify(body, x_headers(body))) == "malformed_body"


def test_invalid_utf8_is_malformed_and_one_leading_bom_in_bytes_is_skipped() -> None:
    invalid = b"{\xff}"
    assert reason(verify(invalid, x_headers(invalid))) == "malformed_body"
    with_bom = "\ufeff".encode() + BODY.encode()
    assert verify(with_bom, x_headers(with_bom)).ok


def test_test_events_and_unknown_fields() -> None:
    test_body = json.dumps({"id": "evt-test", "type": "webhook.test", "createdAt": "2025-03-14T09:26:53.000Z", "data": {"message": "a test"}})
    result = verify(test_body, x_headers(test_body))
    assert result.ok and result.event is not None and result.event["type"] == "webhook.test"
    future = json.dumps({**event(failureReason="declined", paidAt=None, status="failed"), "type": "payment.fail", "futureField": 1})
    assert verify(future, x_headers(future)).ok
    refunded = json.dumps({**event(refundedAmount=1500.5), "type": "payment.refunded"})
    assert verify(refunded, x_headers(refunded)).ok


def test_a_missing_secret_is_a_setup_error() -> None:
    with pytest.raises(ValueError):
        dzpay.verify_webhook(BODY, {}, signing_secret="")
    with pytest.raises(ValueError):
        dzpay.verify_webhook(BODY, {}, signing_secrets=[])
    with pytest.raises(ValueError):
        dzpay.verify_webhook(BODY, {})
    with pytest.raises(TypeError):
        dzpay.verify_webhook(json.loads(BODY), x_headers(BODY), signing_secret=SECRET)  # type: ignore[arg-type]


def test_construct_event_raises_with_the_reason() -> None:
    assert dzpay.construct_event(BODY, x_headers(BODY), signing_secret=SECRET, now=NOW)["id"] == "evt-42"
    with pytest.raises(dzpay.WebhookVerificationError) as caught:
        dzpay.construct_event(BODY, x_headers(BODY, "other"), signing_secret=SECRET, now=NOW)
    assert caught.value.reason == "bad_signature"


# ---- receive_webhook: the answer to send dzpay ----


def test_receive_webhook_answers_what_dzpay_expects() -> None:
    seen: List[str] = []
    answer = dzpay.receive_webhook(BODY, x_headers(BODY), signing_secret=SECRET, now=NOW, on_event=lambda e: seen.append(e["id"]))
    assert (answer.status, answer.body, seen) == (200, {"success": True}, ["evt-42"])
    assert answer.json_bytes() == b'{"success":true}'

    unsigned = dzpay.receive_webhook(BODY, {}, signing_secret=SECRET, now=NOW, on_event=seen.append)
    assert unsigned.status == 401 and unsigned.body["error"] == "UNAUTHORIZED"

    garbage = "not json"
    malformed = dzpay.receive_webhook(garbage, x_headers(garbage), signing_secret=SECRET, now=NOW, on_event=seen.append)
    assert malformed.status == 400 and malformed.body["error"] == "BAD_REQUEST"

    errors: List[BaseException] = []

    def broken(_event: Any) -> None:
        raise RuntimeError("database down")

    failed = dzpay.receive_webhook(BODY, x_headers(BODY), signing_secret=SECRET, now=NOW, on_event=broken, on_error=lambda e, _ev: errors.append(e))
    assert failed.status == 503 and failed.body["error"] == "SERVICE_UNAVAILABLE"
    assert isinstance(errors[0], RuntimeError)


def test_receive_webhook_hands_test_events_to_on_test_only() -> None:
    body = json.dumps({"id": "t", "type": "webhook.test", "createdAt": "2025-03-14T09:26:53Z", "data": {"message": "hi"}})
    events: List[Any] = []
    tests: List[Any] = []
    answer = dzpay.receive_webhook(body, x_headers(body), signing_secret=SECRET, now=NOW, on_event=events.append, on_test=tests.append)
    assert answer.status == 200 and events == [] and len(tests) == 1


def test_payment_link_of() -> None:
    link = "0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10"
    assert dzpay.payment_link_of(f"link-{link}-3") == (link, 3)
    assert dzpay.payment_link_of(f"link-{link}-0") is None
    assert dzpay.payment_link_of(f"link-{link}-3\n") is None
    assert dzpay.payment_link_of("BOOK-42") is None


# ---- whsec_ secrets too short to be a key ----


SHORT_WHSEC = ["whsec_", "whsec_x", "whsec_===", "whsec_!!!!", "whsec_" + base64.b64encode(b"k" * 15).decode()]


@pytest.mark.parametrize("secret", SHORT_WHSEC)
def test_a_whsec_secret_that_decodes_to_less_than_16_bytes_is_refused(secret: str) -> None:
    # With an empty key anyone can sign: this request would verify.
    forged = dict(standard_headers(BODY, ["whsec_" + base64.b64encode(bytes(16)).decode()]))
    empty_key = hmac.new(b"", f"evt-42.{NOW}.".encode() + BODY.encode(), hashlib.sha256).digest()
    forged["webhook-signature"] = "v1," + base64.b64encode(empty_key).decode()
    calls = [
        lambda: dzpay.verify_webhook(BODY, forged, signing_secret=secret, now=NOW),
        lambda: dzpay.verify_webhook(BODY, {}, signing_secret=secret, now=NOW),
        lambda: dzpay.verify_webhook(BODY, forged, signing_secrets=[SECRET, secret], now=NOW),
        lambda: dzpay.construct_event(BODY, forged, signing_secret=secret, now=NOW),
        lambda: dzpay.receive_webhook(BODY, forged, signing_secret=secret, now=NOW, on_event=lambda _e: None),
        lambda: dzpay.receive_webhook(BODY, x_headers(BODY), signing_secrets=[secret], now=NOW, on_event=lambda _e: None),
    ]
    for call in calls:
        with pytest.raises(ValueError) as refused:
            call()
        assert "16 bytes" in str(refused.value)
        if len(secret) > len("whsec_") + 3:
            assert secret[6:] not in str(refused.value)


def test_whsec_secrets_of_16_bytes_and_plain_secrets_are_accepted() -> None:
    sixteen = "whsec_" + base64.b64encode(b"0123456789abcdef").decode()
    assert verify(BODY, standard_headers(BODY, [sixteen]), signing_secret=sixteen).ok
    # Lenient, as dzpay's Node signer decodes: URL-safe letters, no padding.
    urlsafe = "whsec_" + base64.urlsafe_b64encode(bytes(range(250, 256)) * 3).decode().rstrip("=")
    assert verify(BODY, standard_headers(BODY, [urlsafe]), signing_secret=urlsafe).ok
    assert verify(BODY, x_headers(BODY, "x"), signing_secret="x").ok


# ---- receive_webhook's callbacks ----


def test_an_async_on_event_is_refused_and_never_left_unawaited() -> None:
    made: List[Any] = []

    async def handler(event: Any) -> None:  # pragma: no cover - never runs
        raise AssertionError("ran")

    def on_event(event: Any) -> Any:
        made.append(handler(event))
        return made[-1]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match="awaitable"):
            dzpay.receive_webhook(BODY, x_headers(BODY), signing_secret=SECRET, now=NOW, on_event=on_event)
        assert inspect.getcoroutinestate(made[0]) == inspect.CORO_CLOSED
        with pytest.raises(TypeError, match="on_event"):
            dzpay.receive_webhook(BODY, x_headers(BODY), signing_secret=SECRET, now=NOW, on_event=handler)
        gc.collect()


def test_an_async_on_test_is_refused() -> None:
    body = json.dumps({"id": "t", "type": "webhook.test", "createdAt": "2025-03-14T09:26:53Z", "data": {"message": "hi"}})

    async def on_test(_event: Any) -> None:  # pragma: no cover - never runs
        pass

    with pytest.raises(TypeError, match="on_test"):
        dzpay.receive_webhook(body, x_headers(body), signing_secret=SECRET, now=NOW, on_event=lambda _e: None, on_test=on_test)


def test_on_test_or_on_error_raising_answers_503() -> None:
    body = json.dumps({"id": "t", "type": "webhook.test", "createdAt": "2025-03-14T09:26:53Z", "data": {"message": "hi"}})

    def broken_test(_event: Any) -> None:
        raise RuntimeError("test handler down")

    answer = dzpay.receive_webhook(body, x_headers(body), signing_secret=SECRET, now=NOW, on_event=lambda _e: None, on_test=broken_test)
    assert answer.status == 503 and answer.body["error"] == "SERVICE_UNAVAILABLE"

    def broken(_event: Any) -> None:
        raise RuntimeError("database down")

    def broken_log(_error: BaseException, _event: Any) -> None:
        raise OSError("log disk full")

    answer = dzpay.receive_webhook(BODY, x_headers(BODY), signing_secret=SECRET, now=NOW, on_event=broken, on_error=broken_log)
    assert answer.status == 503 and answer.body["error"] == "SERVICE_UNAVAILABLE"


# ---- Headers as bytes (ASGI) ----


def test_asgi_headers_with_bytes_names_and_values() -> None:
    headers = {**x_headers(BODY), **standard_headers(BODY, [SECRET])}
    scope_headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
    assert verify(BODY, scope_headers).ok
    assert verify(BODY, [[n, v] for n, v in scope_headers]).ok
    assert verify(BODY, dict(scope_headers)).ok
    assert verify(BODY, [(b"X-Signature", x_headers(BODY)["x-signature"].encode()), (b"X-Timestamp", str(NOW).encode())]).ok
    twice = scope_headers + [(b"x-timestamp", str(NOW).encode())]
    assert reason(verify(BODY, [h for h in twice if not h[0].startswith(b"webhook-")])) == "missing_headers"
