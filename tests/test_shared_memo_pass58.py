"""Which sessions share calls is remembered by one reader and one writer (``scan.sharedmemo``):
``tokens``' per provider (``collect``, a window's pick and its settling) and an export's
(``export.days``).  An answer of another shape is not taken, by any of them: it is found again
from the key hashes (``collect`` took the strings of a list that held other things, a window's
pick too, and merged too few sessions).  An export asks each session's fingerprint once (it
asked it for each of three questions); a session's row is compared with the one the output
holds along one path (``export.sqlite._as_stored``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.export import days as export_days
from agentscan.export import sqlite as exporting
from agentscan.scan import sharedmemo
from agentscan.scan.scanner import Scanner
from builders import forget_remembered_answers
from patch_builders import BASE, IDS, append, session, turn
from spies import record_calls

runner = CliRunner()


def _tokens(*extra: str) -> str:
    result = runner.invoke(app, ["tokens", "--json", *extra])
    assert result.exit_code == 0, result.output
    return result.stdout


def _spoil(key: str) -> None:
    """The answer under ``key`` kept at its stamp, its ids no strings."""
    with Scanner(use_cache=True) as scanner:
        cache = scanner.cache
        assert cache is not None
        kept = orjson.loads(cache.get_meta(key) or "null")
        assert kept["ids"]  # (two sessions share a call)
        cache.put_meta(key, orjson.dumps({"stamp": kept["stamp"], "ids": [1]}).decode())
        cache.commit()


def _home(home: Path) -> None:
    session(home, IDS[0], 1, 100)
    copier = session(home, IDS[1], 2, 200)
    append(copier, turn(IDS[1], 0, 100, copied_from=IDS[0])[1:], BASE + 300)  # a resumed session's copy
    session(home, IDS[2], 3, 300)


@pytest.mark.parametrize("window", [("--by", "day"), ("--since", "2026-11-01")])
def test_a_remembered_answer_of_another_shape_is_found_again(isolated_home: Path, window: tuple[str, ...]) -> None:
    _home(isolated_home)
    fresh = _tokens("--no-cache", *window)
    for _ in range(2):
        assert _tokens(*window) == fresh
    _spoil(sharedmemo.provider_key("claude"))
    forget_remembered_answers()  # (else the whole answer is printed again: no session's sums read)
    assert _tokens(*window) == fresh  # the copied call counted once (twice, when ``[1]`` was taken as "none")


def test_an_exports_answer_of_another_shape_is_found_again(isolated_home: Path, tmp_path: Path) -> None:
    _home(isolated_home)
    target = tmp_path / "index.sqlite"
    for _ in range(2):
        assert runner.invoke(app, ["export", "-f", "sqlite", "-o", str(target)]).exit_code == 0
    days = runner.invoke(app, ["export", "--days", "-f", "jsonl", "-o", "-", "--no-cache"]).stdout_bytes
    _spoil(export_days.SHARED_KEY)
    assert runner.invoke(app, ["export", "--days", "-f", "jsonl", "-o", "-"]).stdout_bytes == days


def test_an_exports_days_ask_each_fingerprint_once(isolated_home: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for index, native_id in enumerate(IDS[:3]):
        session(isolated_home, native_id, index + 1, 100 * (index + 1))  # (none shares a call)
    target = tmp_path / "index.sqlite"
    for _ in range(2):
        assert runner.invoke(app, ["export", "-f", "sqlite", "-o", str(target)]).exit_code == 0
    inside: list[bool] = []
    real = export_days._export_days

    def counted(*args: Any) -> Any:
        inside.append(True)
        try:
            return real(*args)
        finally:
            inside.pop()

    monkeypatch.setattr(export_days, "_export_days", counted)
    asked = record_calls(monkeypatch, Scanner, "fingerprint", lambda scanner, ref: ref.id if inside else None)
    assert runner.invoke(app, ["export", "-f", "sqlite", "-o", str(target)]).exit_code == 0
    per_session = Counter(ref_id for ref_id in asked if ref_id is not None)
    assert per_session and set(per_session.values()) == {1}  # was 2: its key hashes' question, then the stamp's


class _Record(dict):
    """A record that says when its fields are walked one at a time."""

    def items(self) -> Any:
        raise AssertionError("walked a field at a time")


@pytest.mark.parametrize("kept, same", [({"archived": 1, "cost_usd": 2.0}, True), ({"archived": True, "cost_usd": 2.0}, False),
                                         ({"archived": 1, "cost_usd": 2}, False), ({"archived": 0, "cost_usd": 2.0}, False)])
def test_a_row_with_a_bool_is_compared_along_one_path(kept: dict[str, Any], same: bool) -> None:
    record = _Record(archived=True, cost_usd=2.0, last_seen_at="now")
    assert exporting._as_stored(record, {**kept, "last_seen_at": "then"}) is same
