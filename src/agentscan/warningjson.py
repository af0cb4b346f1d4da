"""A warning's JSON, written one way: the library's ``model.ScanWarning`` and the warning
sink's own records (``warningsink.SinkWarning``, printed by the CLI without the model)."""

from __future__ import annotations

from typing import Any


def warning_json(path: str, message: str, line: int | None) -> dict[str, Any]:
    doc: dict[str, Any] = {"path": path, "message": message}
    if line is not None:
        doc["line"] = line
    return doc
