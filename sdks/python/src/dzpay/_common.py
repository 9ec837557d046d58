"""What webhook verification and product lookups share: headers, timestamps, secrets,
and the HTTP answer a partner sends back."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, Iterable, Mapping, Optional, Protocol, Sequence, Tuple, Union

class HeaderItems(Protocol):
    """Anything with ``items()`` of (name, value): ``dict``, ``email.message.Message``
    (``http.server``'s ``self.headers``), werkzeug's ``Headers``, Django's headers."""

    def items(self) -> Iterable[Tuple[str, Any]]: ...


Headers = Union[
    Mapping[str, Union[str, Sequence[str], None]],
    Mapping[bytes, Union[bytes, Sequence[bytes], None]],
    HeaderItems,
    Iterable[Tuple[str, str]],
    Iterable[Tuple[bytes, bytes]],
    Iterable[Sequence[bytes]],
]
"""Request headers, in any of the forms Python servers give them: a mapping (``dict``,
``http.server``'s ``self.headers``, Django's ``request.headers``), a multi-valued one
(werkzeug's ``Headers``, ``email.message.Message``) or a list of ``(name, value)``
pairs, names and values as ``str`` or as ``bytes`` (an ASGI scope's ``headers``; bytes
are read as latin-1). Names are matched without regard to case."""

Now = Union[None, float, int, datetime]
"""The clock: ``None`` (now), unix seconds, or a ``datetime``."""

DEFAULT_TOLERANCE_SECONDS = 300
"""How far a timestamp may be from your clock, either way (docs/webhooks.md)."""

_TIMESTAMP = re.compile(r"[0-9]{1,12}")


def header(headers: Any, name: str) -> Optional[str]:
    """The single value of a header, looked up without regard to case. A header sent
    twice, or empty, is treated as absent: dzpay sends neither two timestamps nor two
    signatures."""
    name = name.lower()
    found: Optional[str] = None
    count = 0
    for key, value in _pairs(headers):
        if isinstance(key, (bytes, bytearray)):
            key = bytes(key).decode("latin-1")  # ASGI: names as bytes, like the values
        if not isinstance(key, str) or key.lower() != name or value is None:
            continue
        if isinstance(value, (list, tuple)):
            if len(value) != 1:
                return None
            value = value[0]
        if isinstance(value, (bytes, bytearray)):
            value = bytes(value).decode("latin-1")
        found = str(value)
        count += 1
    return found if count == 1 and found != "" else None


def _pairs(headers: Any) -> Iterable[Tuple[Any, Any]]:
    if headers is None:
        return ()
    # email.message.Message (http.server's self.headers) and werkzeug's Headers yield
    # every occurrence of a repeated header from items(); a dict yields one value (or a
    # list of values) per name.
    items = getattr(headers, "items", None)
    if callable(items):
        return list(items())
    return list(headers)


def check_timestamp(value: str, now: Now, tolerance_seconds: float) -> str:
    """``ok``, ``malformed`` (not unix seconds) or ``stale`` (beyond the tolerance, in
    either direction: an old one may be a replay, one from the future a broken clock)."""
    if not _TIMESTAMP.fullmatch(value):
        return "malformed"
    skew = abs(unix_seconds(now) - int(value))
    return "ok" if skew <= tolerance_seconds else "stale"


def unix_seconds(now: Now) -> int:
    if now is None:
        import time

        return math.floor(time.time())
    if isinstance(now, datetime):
        return math.floor(now.timestamp())
    return math.floor(now)


def utf8(text: str) -> bytes:
    """A string's UTF-8 bytes; a lone surrogate becomes U+FFFD, as Node encodes it."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return (
            text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
        )


def same_secret(expected: str, received: str) -> bool:
    """Compares two secrets of any length in constant time (hashing first hides even the
    expected secret's length)."""
    return hmac.compare_digest(
        hashlib.sha256(utf8(expected)).digest(), hashlib.sha256(utf8(received)).digest()
    )


def utf16_length(text: str) -> int:
    """A string's length as JavaScript counts it (dzpay's limits are in those units)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def finite_json(value: Any) -> bool:
    """Whether a parsed JSON value holds only finite numbers (JavaScript reads 1e999 as
    Infinity, which dzpay's schemas refuse)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, bool) or node is None or isinstance(node, str):
            continue
        if isinstance(node, (int, float)):
            if not finite_number(node):
                return False
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        else:
            return False
    return True


def finite_number(value: Any) -> bool:
    """A JSON number JavaScript reads as a finite double (``True`` is not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


@dataclass(frozen=True)
class PartnerResponse:
    """An HTTP answer for dzpay, ready to send: a status and a JSON body."""

    status: int
    body: Dict[str, Any]
    headers: Dict[str, str] = field(
        default_factory=lambda: {"content-type": "application/json; charset=utf-8"}
    )

    def json_bytes(self) -> bytes:
        """The body as UTF-8 JSON (every answer to dzpay must be valid JSON)."""
        return json.dumps(self.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def error_response(status: int, error: str, error_message: str) -> PartnerResponse:
    """An answer in the partner error shape ``{"error", "errorMessage"}``."""
    return PartnerResponse(status, {"error": error, "errorMessage": error_message})
