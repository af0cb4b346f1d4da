"""Copies of one Codex thread (review s46): a copy that begins with all of another's bytes
and goes on (the other is a stale, shorter snapshot of it) is the one counted, wherever each
lives; copies that differ otherwise keep the rank (active, plain, newest) and the copy left
out is warned of; identical copies say nothing (docs/providers/codex.md, "Copies of one
thread")."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json, deny_access, only_row, tokens_every_way
from codex_builders import (
    REAL_CODEX,
    Calls,
    at,
    index_row,
    meta,
    rollout_path,
    turn_context,
    user_message,
    write_rollout,
    write_state_db,
)

#: the real 0.146 rollout: 118 lines, its first ``token_count`` on line 22
SAMPLE = REAL_CODEX / "derived-agent-sessions-schema-catalog-0.146.jsonl"
REAL_ID = "019fc8be-3658-7ca3-9e29-000000000000"
REAL_START = at(0).replace(year=2026, month=8, day=3, hour=10, minute=48, second=56)
#: its calls, as the sample alone gives them
REAL_TOKENS = {"input": 12757, "cache_read": 3584, "cache_write": 0, "output": 81, "reasoning": 63, "total": 16422}
REAL_MODEL = "gpt-5.6-luna"
THREAD = "019c4646-0000-7000-8000-00000000000a"


def _lay_out_real(home: Path, *, stale: str) -> tuple[Path, Path]:
    """The sample whole in one tree and its first 21 lines (no call yet) in the other
    (``stale``: "active" or "archived"), the archived copy the newer (as a copy made when
    archiving would be); the thread index says the thread is archived, at the archived
    copy.  Returns (active, archived)."""
    codex = home / ".codex"
    active, archived = rollout_path(codex, REAL_ID, REAL_START), rollout_path(codex, REAL_ID, REAL_START, archived=True)
    whole = SAMPLE.read_bytes()
    head = b"".join(whole.splitlines(keepends=True)[:21])
    assert b"token_count" not in head and b"token_count" in whole
    for path, data in ((active, head if stale == "active" else whole), (archived, head if stale == "archived" else whole)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    os.utime(active, (REAL_START.timestamp() + 60, REAL_START.timestamp() + 60))
    os.utime(archived, (REAL_START.timestamp() + 3600, REAL_START.timestamp() + 3600))
    write_state_db(codex / "state_5.sqlite", [index_row(
        REAL_ID, archived, created=REAL_START, updated=REAL_START, archived=1, model=REAL_MODEL,
        cwd="/tmp/repo", title="List the files")])
    return active, archived


def _run(*argv: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(argv))
    return result.exit_code, result.stdout + result.stderr


def _counted_from(home: Path, path: Path) -> None:
    """Every answer, cold, warm and without the cache, counts the real sample's calls once, from ``path``."""
    for report in tokens_every_way():
        assert report["total"] == REAL_TOKENS and report["warnings"] == [], report
    for report in tokens_every_way("--by", "model"):
        assert [(row["key"], row["tokens"]) for row in report["rows"]] == [(REAL_MODEL, REAL_TOKENS)], report
    for extra in ((), (), ("--no-cache",)):
        row = only_row(*extra)
        assert (row["path"], row["tokens"], row["model"]) == (str(path), REAL_TOKENS, REAL_MODEL)
        shown = cli_json("show", REAL_ID[:8], *extra)
        assert (shown["session"]["path"], shown["session"]["tokens"], shown["warnings"]) == (str(path), REAL_TOKENS, [])
    for extra in ((), ("--no-cache",)):
        code, out = _run("--strict", "tokens", *extra)
        assert code == 0 and "16422" in out and "recorded no usage" not in out, out


def test_a_stale_active_copy_gives_way_to_the_fuller_archived_one(isolated_home: Path) -> None:
    _, archived = _lay_out_real(isolated_home, stale="active")
    _counted_from(isolated_home, archived)


def test_a_stale_archived_copy_leaves_the_active_one_counted(isolated_home: Path) -> None:
    # As the rule always was (the active copy, though older); a guard: neither the newer
    # copy nor the one the index names wins for being so.
    active, _ = _lay_out_real(isolated_home, stale="archived")
    _counted_from(isolated_home, active)


def test_a_stale_plain_copy_gives_way_to_the_fuller_zst_one(isolated_home: Path) -> None:
    active, _ = _lay_out_real(isolated_home, stale="active")
    archived = rollout_path(isolated_home / ".codex", REAL_ID, REAL_START, archived=True)
    packed = archived.with_name(archived.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(archived.read_bytes()))
    shutil.copystat(archived, packed)
    archived.unlink()
    # The stale plain copy now beside the whole one, compressed, in the same tree.
    moved = packed.parent.parent / "sessions" / packed.name
    packed.rename(moved)
    assert active.exists() and moved.exists()
    _counted_from(isolated_home, moved)


def _records(calls: list[tuple[int, int, int]], title: str = "fix the parser") -> list[dict[str, object]]:
    counter = Calls()
    lines = [meta(THREAD, at(0)), turn_context(at(1)), user_message(at(1), title)]
    return lines + [counter.call(at(10 + i), *call) for i, call in enumerate(calls)]


def test_the_copy_counted_is_chosen_again_when_a_copy_changes(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    calls = [(100, 0, 10), (200, 0, 20), (400, 0, 40)]
    records = _records(calls)
    active = write_rollout(rollout_path(codex, THREAD, at(0)), records[:4], mtime=at(100).timestamp())
    archived = write_rollout(rollout_path(codex, THREAD, at(0), archived=True), records[:5], mtime=at(50).timestamp())
    for extra in ((), (), ("--no-cache",)):  # cold, warm, without the cache
        row = only_row(*extra)
        assert (row["path"], row["tokens"]["total"]) == (str(archived), 330), extra
    # The active copy catches up and goes on: now it holds the archived one and a call more.
    write_rollout(active, records, mtime=at(200).timestamp())
    for extra in ((), (), ("--no-cache",)):
        row = only_row(*extra)
        assert (row["path"], row["tokens"]["total"]) == (str(active), 770), extra
    # Then the archived copy is the fuller one again (the active one left as it is).
    write_rollout(archived, _records([*calls, (800, 0, 80)]), mtime=at(300).timestamp())
    for extra in ((), (), ("--no-cache",)):
        row = only_row(*extra)
        assert (row["path"], row["tokens"]["total"]) == (str(archived), 1650), extra
        assert cli_json("tokens", *extra)["warnings"] == []


def _copy(codex: Path, title: str, calls: list[tuple[int, int, int]], **where: bool) -> Path:
    return write_rollout(rollout_path(codex, THREAD, at(0), **where), _records(calls, title), mtime=at(100).timestamp())


def test_copies_that_differ_keep_the_active_one_and_say_so(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    active = _copy(codex, "fix the parser", [(100, 0, 10)])
    archived = _copy(codex, "fix the parser", [(300, 0, 30), (500, 0, 50)], archived=True)
    for report in tokens_every_way():
        assert report["total"]["total"] == 110
        assert len(report["warnings"]) == 1, report["warnings"]
        (warning,) = report["warnings"]
        assert warning["path"] == str(archived)
        assert "differs from another copy of its thread" in warning["message"] and str(active) in warning["message"]
    assert only_row()["path"] == str(active)
    for extra in ((), ("--no-cache",)):
        for command in (("tokens",), ("list",), ("show", THREAD[:8])):
            code, out = _run("--strict", *command, *extra)
            assert code == 1 and "differs from another copy of its thread" in out, (command, out)


def test_identical_copies_say_nothing(isolated_home: Path) -> None:
    # As before: the active copy, counted once, and nothing said (a guard: the same bytes
    # are not copies that differ).
    codex = isolated_home / ".codex"
    active = _copy(codex, "fix the parser", [(100, 0, 10)])
    _copy(codex, "fix the parser", [(100, 0, 10)], archived=True)
    for report in tokens_every_way():
        assert report["total"]["total"] == 110 and report["warnings"] == []
    assert only_row()["path"] == str(active)
    code, out = _run("--strict", "tokens")
    assert code == 0, out


def test_a_thread_found_once_is_not_compared(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("a thread with one copy was compared")

    monkeypatch.setattr("agentscan.providers.codex.copies._compare", refuse)
    _copy(isolated_home / ".codex", "fix the parser", [(100, 0, 10)])
    assert only_row("--no-cache")["tokens"]["total"] == 110


def test_a_copy_that_cannot_be_read_is_said_and_the_rank_decides(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    codex = isolated_home / ".codex"
    active = _copy(codex, "fix the parser", [(100, 0, 10)])
    archived = _copy(codex, "fix the parser", [(100, 0, 10), (200, 0, 20)], archived=True)
    deny_access(monkeypatch, archived)
    report = cli_json("tokens", "--no-cache")
    assert report["total"]["total"] == 110
    assert [(w["path"], w["message"]) for w in report["warnings"]] == [(str(archived), "cannot read: Permission denied")]
    assert only_row("--no-cache")["path"] == str(active)


def test_large_plain_copies_are_compared_by_two_chunks_each(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    # (review of pass 46: read whole, a duplicated 200 MB rollout cost every discovery 0.13 s;
    # a rollout is only appended to, so its first chunk and the shorter copy's last one tell)
    from agentscan.providers.codex import copies

    monkeypatch.setattr(copies, "_COMPARE_CHUNK", 1024)
    read: list[int] = []
    chunk = copies._chunk
    monkeypatch.setattr(copies, "_chunk", lambda handle, path, ctx: read.append(1) or chunk(handle, path, ctx))
    lines = b"".join(b'{"n": %d, "pad": "%s"}\n' % (n, b"x" * 40) for n in range(2000))  # ~100 KiB
    stale, whole, other = tmp_path / "stale.jsonl", tmp_path / "whole.jsonl", tmp_path / "other.jsonl"
    stale.write_bytes(lines[: len(lines) // 2])
    whole.write_bytes(lines)
    other.write_bytes(lines[:-100] + b"x" * 100)  # its end differs from whole's
    ctx = type("Ctx", (), {"cannot_read": lambda self, path, exc: None})()
    assert copies._compare(stale, whole, ctx) == copies._SHORTER
    assert copies._compare(whole, stale, ctx) == copies._LONGER
    assert copies._compare(whole, whole, ctx) == copies._SAME
    assert copies._compare(whole, other, ctx) == copies._DIFFERENT
    assert len(read) <= 4 * 4  # two chunks of each file, four comparisons
