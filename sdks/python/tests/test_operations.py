"""Every operation of dzpay's merchant API has a client method, and each method sends
the method and path the gateway's OpenAPI document describes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest

import dzpay
from conftest import FakeDzpay

ID = "3f1c2b9e-7a41-4d0b-9c55-2e8f6a1d4b70"
REPO = Path(__file__).resolve().parents[3]

Call = Callable[[dzpay.DzpayClient], Any]

# operationId: (method, path template, a call, the success status, its data)
OPERATIONS: Dict[str, Tuple[str, str, Call, int, Any]] = {
    "setQrConfig": ("POST", "/set-qr-config", lambda c: c.set_qr_config("QR-1", [100], single_use=False), 200, None),
    "unsetQrConfig": ("POST", "/un-set-qr-config", lambda c: c.unset_qr_config("QR-1"), 204, None),
    "listQrCodes": ("GET", "/api/v1/qr-codes", lambda c: c.list_qr_codes(limit=5), 200, {"qrCodes": [], "nextCursor": None}),
    "qrCodeImage": ("GET", "/api/v1/qr-codes/{token}/image", lambda c: c.qr_code_image("QR-1"), 200, "<svg/>"),
    "getReferenceStatus": ("GET", "/partner/payments/v1/{reference}/status", lambda c: c.reference_status("BOOK-42"), 200, {"stage": "paid"}),
    "registerPayment": ("POST", "/api/v1/payments", lambda c: c.register_payment(amount=5000, reference="R-1"), 201, {"id": ID}),
    "getPayment": ("GET", "/api/v1/payments/{id}", lambda c: c.get_payment(ID), 200, {"id": ID}),
    "refundPayment": ("POST", "/api/v1/payments/{id}/refund", lambda c: c.refund_payment(ID), 200, {"id": ID}),
    "emailReceipt": ("POST", "/api/v1/payments/{id}/receipt/email", lambda c: c.email_receipt(ID, email="a@b.dz"), 200, {"sent": True}),
    "listPayments": ("GET", "/api/v1/payments", lambda c: c.list_payments(), 200, {"payments": [], "nextCursor": None}),
    "exportPayments": ("GET", "/api/v1/payments/export", lambda c: c.export_payments().read(), 200, "id\r\n"),
    "cancelPayment": ("POST", "/api/v1/payments/{id}/cancel", lambda c: c.cancel_payment(ID), 200, {"id": ID}),
    "listPaymentWebhooks": ("GET", "/api/v1/payments/{id}/webhooks", lambda c: c.payment_webhooks(ID), 200, {"deliveries": []}),
    "listWebhookDeliveries": ("GET", "/api/v1/webhooks/deliveries", lambda c: c.list_webhook_deliveries(outcome="failing"), 200, {"deliveries": [], "nextCursor": None}),
    "replayWebhookDelivery": ("POST", "/api/v1/webhooks/deliveries/{id}/replay", lambda c: c.replay_delivery(ID), 200, {"id": ID}),
    "getWebhookSettings": ("GET", "/api/v1/webhooks/settings", lambda c: c.get_webhook_settings(), 200, {"url": None, "events": []}),
    "setWebhookSettings": ("PUT", "/api/v1/webhooks/settings", lambda c: c.set_webhook_settings(url="https://shop.example/hook"), 200, {"url": "https://shop.example/hook", "events": []}),
    "rotateSigningSecret": ("POST", "/api/v1/webhooks/signing-secret/rotate", lambda c: c.rotate_signing_secret(grace_hours=1), 200, {"signingSecret": "whsec_x"}),
    "sendTestWebhook": ("POST", "/api/v1/webhooks/test", lambda c: c.send_test_webhook(), 200, {"ok": True}),
    "listEvents": ("GET", "/api/v1/events", lambda c: c.list_events(type="payment.success"), 200, {"events": [], "nextCursor": None}),
    "replayEvent": ("POST", "/api/v1/events/{id}/replay", lambda c: c.replay_event(ID), 200, {"id": ID}),
    "dailyReport": ("GET", "/api/v1/reports/daily", lambda c: c.daily_report(), 200, {"days": []}),
    "exportDailyReport": ("GET", "/api/v1/reports/daily/export", lambda c: c.export_daily_report(), 200, "day\r\n"),
    "getBalance": ("GET", "/api/v1/balance", lambda c: c.get_balance(), 200, {"days": []}),
    "listPayouts": ("GET", "/api/v1/payouts", lambda c: c.list_payouts(), 200, {"payouts": [], "nextCursor": None}),
    "downloadStatement": ("GET", "/api/v1/statements/{month}", lambda c: c.download_statement("2026-11"), 200, "%PDF"),
    "listAuditEvents": ("GET", "/api/v1/audit-events", lambda c: c.list_audit_events(action="payment"), 200, {"events": [], "nextCursor": None}),
    "createPaymentLink": ("POST", "/api/v1/payment-links", lambda c: c.create_payment_link(label="Book", min_amount=5000, max_amount=9000), 201, {"id": ID}),
    "listPaymentLinks": ("GET", "/api/v1/payment-links", lambda c: c.list_payment_links(), 200, {"links": [], "nextCursor": None}),
    "getPaymentLink": ("GET", "/api/v1/payment-links/{id}", lambda c: c.get_payment_link(ID), 200, {"id": ID}),
    "deactivatePaymentLink": ("POST", "/api/v1/payment-links/{id}/deactivate", lambda c: c.deactivate_payment_link(ID), 200, {"id": ID}),
    "paymentLinkImage": ("GET", "/api/v1/payment-links/{id}/image", lambda c: c.payment_link_image(ID), 200, "<svg/>"),
}

VALUES = {"{id}": ID, "{token}": "QR-1", "{reference}": "BOOK-42", "{month}": "2026-11"}


def _path(template: str) -> str:
    for name, value in VALUES.items():
        template = template.replace(name, value)
    return template


@pytest.mark.parametrize("operation_id", sorted(OPERATIONS))
def test_each_operation_sends_its_method_and_path(
    operation_id: str, fake: FakeDzpay, client: dzpay.DzpayClient
) -> None:
    method, template, call, status, data = OPERATIONS[operation_id]
    if isinstance(data, str):
        fake.answer(status, data, {"content-type": "text/plain"})
    elif status == 204:
        fake.answer(204)
    else:
        fake.answer(status, {"statusCode": status, "message": "ok", "data": data})
    call(client)
    (request,) = fake.requests
    assert (request.method, request.route) == (method, _path(template))
    assert request.headers["x-api-key"] == "pk_test_abc"


def _openapi_operations() -> List[Tuple[str, str, str]]:
    node = shutil.which("node")
    operations = REPO / "services" / "gateway" / "src" / "openapi" / "operations.ts"
    if node is None or not operations.exists():
        pytest.skip("the gateway's OpenAPI operations are not here (SDK outside the monorepo)")
    script = (
        "import(process.argv[1]).then((m) => console.log(JSON.stringify("
        "m.OPERATIONS.filter((o) => o.apiKey).map((o) => [o.operationId, o.method, o.path]))))"
    )
    result = subprocess.run(
        [node, "-e", script, operations.as_uri()],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode != 0:
        pytest.skip(f"node could not read the OpenAPI operations: {result.stderr[-300:]}")
    return [tuple(entry) for entry in json.loads(result.stdout)]  # type: ignore[misc]


def test_the_sdk_covers_every_operation_of_the_openapi_document() -> None:
    documented = {op_id: (method.upper(), path) for op_id, method, path in _openapi_operations()}
    covered = {op_id: (method, path) for op_id, (method, path, *_rest) in OPERATIONS.items()}
    missing = sorted(set(documented) - set(covered))
    assert missing == [], f"operations of the OpenAPI document the Python SDK does not cover: {missing}"
    stale = sorted(set(covered) - set(documented))
    assert stale == [], f"operations the SDK covers that the OpenAPI document no longer has: {stale}"
    for op_id, route in documented.items():
        assert covered[op_id] == route, op_id
