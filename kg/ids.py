"""Content-hash IDs: the same content always gets the same ID."""

from __future__ import annotations

import hashlib


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_id(*parts: object, length: int = 16) -> str:
    """Stable short ID from the given parts (joined with an unlikely separator)."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8"))
    return h.hexdigest()[:length]
