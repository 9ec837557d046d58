"""A merchant's back office written with the SDK, driven by
system/sdk-python.system.test.ts against a dzpay the test harness started. Prints one
JSON object on stdout.

    DZPAY_API_KEY=pk_test_... DZPAY_BASE_URL=http://127.0.0.1:... \
        PYTHONPATH=sdks/python/src python3 merchant.py register ORDER-1
    ... python3 merchant.py settle <payment id> <refund centimes>
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict

import dzpay


def register(client: dzpay.DzpayClient, order: str) -> Dict[str, Any]:
    payment: Dict[str, Any] = dict(
        amount=150000,  # 1 500 DA, in centimes
        reference=order,
        success_url="https://shop.example/merci",
        failure_url="https://shop.example/panier",
        language="fr",
        metadata={"cart": 7},
    )
    first = client.register_payment(**payment, idempotency_key=order)
    first_replayed = client.last_response.replayed if client.last_response else None
    # A retry after a timeout: the same key and body answer the first payment again.
    again = client.register_payment(**payment, idempotency_key=order)
    again_replayed = client.last_response.replayed if client.last_response else None
    return {
        "first": {**first, "replayed": first_replayed},
        "again": {**again, "replayed": again_replayed},
    }


def settle(client: dzpay.DzpayClient, payment_id: str, amount: int) -> Dict[str, Any]:
    refund = client.refund_payment(payment_id, amount=amount, idempotency_key=f"refund-{payment_id}")
    refund_replayed = client.last_response.replayed if client.last_response else None
    # The same refund sent again (a retry after a timeout): its first answer, marked replayed.
    again = client.refund_payment(payment_id, amount=amount, idempotency_key=f"refund-{payment_id}")
    again_replayed = client.last_response.replayed if client.last_response else None
    payment = client.get_payment(payment_id)
    first_page = client.list_payments(limit=2)
    listed = list(client.iter_payments(page_size=2))
    return {
        "refund": refund,
        "refundAgain": again,
        "refundReplayed": [refund_replayed, again_replayed],
        "payment": payment,
        "listed": listed,
        "firstPageNextCursor": first_page["nextCursor"],
    }


def main(argv: list[str]) -> int:
    client = dzpay.DzpayClient()  # DZPAY_API_KEY, DZPAY_BASE_URL
    if len(argv) == 2 and argv[0] == "register":
        output = register(client, argv[1])
    elif len(argv) == 3 and argv[0] == "settle":
        output = settle(client, argv[1], int(argv[2]))
    else:
        print("usage: merchant.py register <reference> | settle <payment id> <amount>", file=sys.stderr)
        return 2
    print(json.dumps(output))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
