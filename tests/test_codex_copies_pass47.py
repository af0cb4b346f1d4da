"""Comparing copies of one Codex thread (``providers/codex/copies``, review of pass 46): a
``.zst`` copy whose frames cannot be decoded is said, a warning on its path, never a
traceback (it was compared silently, the rank deciding); and nothing but a copy that cannot
be read or decoded is taken for one (a bug is not hidden as "not known")."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import cli_json, tokens_every_way
from codex_builders import Calls, at, meta, rollout_path, turn_context, user_message, write_rollout

THREAD = "019c4747-0000-7000-8000-00000000000a"


def _lay_out(codex: Path) -> tuple[Path, Path]:
    """The thread's active plain copy, and an archived ``.zst`` copy of it that is no zstd."""
    counter = Calls()
    records = [meta(THREAD, at(0)), turn_context(at(1)), user_message(at(1), "fix the parser"),
               counter.call(at(10), 100, 0, 10)]
    active = write_rollout(rollout_path(codex, THREAD, at(0)), records, mtime=at(100).timestamp())
    broken = rollout_path(codex, THREAD, at(0), archived=True, compressed=True)
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_bytes(b"not a zstd frame at all\n" * 4)
    return active, broken


def test_an_undecodable_zst_copy_is_said(isolated_home: Path) -> None:
    active, broken = _lay_out(isolated_home / ".codex")
    said = (str(broken), "cannot decompress (zstd decompress error: Unknown frame descriptor): "
                         "not compared with the other copies of its thread")
    for report in tokens_every_way():  # cold, warm, remembered, without the cache: the same
        assert report["total"]["total"] == 110
        assert [(w["path"], w["message"]) for w in report["warnings"]] == [said]
    for extra in ((), ("--no-cache",)):
        listed = cli_json("list", "--all", *extra)
        assert [row["path"] for row in listed["sessions"]] == [str(active)]
        assert [(w["path"], w["message"]) for w in listed["warnings"]] == [said]


def test_a_bug_in_comparing_copies_is_not_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.codex import copies

    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(b"{}\n")
    second.write_bytes(b"{}\n{}\n")

    def broken(*args: object) -> bytes:
        raise ValueError("a bug")

    monkeypatch.setattr(copies, "_chunk", broken)
    ctx = type("Ctx", (), {"cannot_read": lambda self, path, exc: None})()
    with pytest.raises(ValueError, match="a bug"):
        copies._compare(first, second, ctx)
