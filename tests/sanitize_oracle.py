"""The recursive walk ``hooks.sanitize`` replaced, kept as the oracle its output must equal
(it copies every container, so it also stands for "a full copy")."""

from __future__ import annotations

import math
from typing import Any

from agentscan.hooks.sanitize import MAX_DEPTH, TOO_DEEP


def recursive_sanitize(value: Any, depth: int = 0) -> Any:
    """The recursive walk the iterative one replaced: what its output must equal."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return TOO_DEEP
        return {k if isinstance(k, str) else str(k): recursive_sanitize(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            return TOO_DEEP
        return [recursive_sanitize(v, depth + 1) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value <= 2**63 - 1 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)
