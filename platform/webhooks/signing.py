"""How deliveries are signed, and how a receiver checks them (docs/webhooks.md shows the
same check in a few lines of Python for receivers without Trailmark's code).

Each delivery carries ``Trailmark-Signature: t=<unix seconds>,v1=<hex>``, where ``<hex>``
is HMAC-SHA256 with the endpoint's secret over ``<t>.<body>`` (the raw request body,
byte for byte). A receiver recomputes it, compares in constant time, and refuses
timestamps older than its tolerance (replays)."""

import hashlib
import hmac
import time

HEADER = "Trailmark-Signature"


def sign(secret, body, *, timestamp=None):
    timestamp = int(time.time() if timestamp is None else timestamp)
    message = f"{timestamp}.".encode() + (body if isinstance(body, bytes) else body.encode())
    digest = hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify(secret, body, header, *, tolerance=300, now=None):
    """Whether ``header`` is a valid signature of ``body`` made within ``tolerance`` seconds."""
    try:
        parts = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    now = time.time() if now is None else now
    if abs(now - timestamp) > tolerance:
        return False
    expected = sign(secret, body, timestamp=timestamp).split("v1=", 1)[1]
    return hmac.compare_digest(expected, parts.get("v1", ""))
