"""BLAKE2b, the digest of every stamp and fingerprint, without loading OpenSSL.

``import hashlib`` loads OpenSSL's library (≈ 3 ms of every start), while
its ``blake2b`` is CPython's own ``_blake2`` anyway.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it: hashlib's
    from hashlib import blake2b

__all__ = ["blake2b"]
