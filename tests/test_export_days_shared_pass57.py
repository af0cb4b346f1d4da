"""A whole export remembers which sessions share calls at their fingerprints (``export.days``,
pass 57): an unchanged export neither reads every session's key hashes again nor looks for a
hash met twice among them all (0.2 CPU-s at the bench's scale 10); its days are the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import sharing
from agentscan.scan.cache import Cache
from patch_builders import BASE, IDS, append, session, turn
from spies import record_calls

runner = CliRunner()


def _days(*extra: str) -> bytes:
    result = runner.invoke(app, ["export", "--days", "-f", "jsonl", "-o", "-", *extra])
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


def _export(target: Path) -> None:
    result = runner.invoke(app, ["export", "-f", "sqlite", "-o", str(target)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("shares", [False, True])
def test_an_unchanged_export_reads_no_key_hashes(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                shares: bool) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    copier = session(isolated_home, IDS[1], 2, 200)
    if shares:
        append(copier, turn(IDS[1], 0, 100, copied_from=IDS[0])[1:], BASE + 300)
    session(isolated_home, IDS[2], 3, 300)
    target = tmp_path / "index.sqlite"
    _export(target)
    _export(target)  # (the days kept by the first: none read)
    asked = record_calls(monkeypatch, sharing, "sharing", lambda keys: len(keys))
    read = record_calls(monkeypatch, Cache, "get_keys", lambda cache, ids: len(ids))
    _export(target)
    assert asked == [] and read == []  # were [3] and [3]: every session's key hashes, read and compared
    assert _days() == _days("--no-cache")
    append(first, turn(IDS[0], 4, 70), BASE + 3600)  # changed: found again
    assert _days() == _days("--no-cache")
    assert asked and asked[0] == 3
