"""The reading bounds of ``agentscan.bounds``, each checked at a small scale in-process.

The full-size hostile inputs run in ``test_hardening_hostile.py`` (a child
process under limits); here each bound is lowered so the cap itself is
exercised quickly: the line cap, the decompressed-size cap, the JSON value
budget, regular-file opening, the SQLite query deadline, and token sums
that pass 2**63.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from agentscan import bounds
from agentscan.context import ScanContext
from agentscan.errors import DatabaseUnavailable
from agentscan.export.sqlite import write_sqlite
from agentscan.export.rows import UsageDay
from agentscan.model import SessionRow, TokenUsage, UsageEntry
from agentscan.providers.fake import FakeProvider, FakeSession
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from agentscan.toolkit import sqlite_ro
from agentscan.toolkit.fsutil import FileTooLarge, NotRegularFile, open_regular, read_capped
from agentscan.toolkit.jsondoc import load_json_file, too_many_values
from agentscan.toolkit.jsonl import iter_json_lines
from hostile import zstd_bomb

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev/zero are POSIX")


def _ctx(home: Path) -> ScanContext:
    return ScanContext.create(home=home, env={})


def _messages(ctx: ScanContext) -> list[str]:
    return [w.message for w in ctx.warnings.items]


# -- regular files only ------------------------------------------------------------------


@posix_only
def test_open_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    started = time.monotonic()
    with pytest.raises(NotRegularFile, match=r"not a regular file \(a FIFO\)"):
        open_regular(pipe)
    assert time.monotonic() - started < 1


@posix_only
@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null"])
def test_open_regular_refuses_devices_even_through_a_symlink(tmp_path: Path, target: str) -> None:
    link = tmp_path / "meta.json"
    link.symlink_to(target)
    with pytest.raises(NotRegularFile, match=r"a device"):
        open_regular(link)


def test_read_capped_stops_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "side.json"
    path.write_bytes(b"x" * 101)
    assert read_capped(path, 101) == b"x" * 101
    with pytest.raises(FileTooLarge, match="larger than 100 bytes"):
        read_capped(path, 100)


@posix_only
def test_a_side_file_leading_out_of_the_roots_is_not_read(isolated_home: Path, tmp_path: Path) -> None:
    root = isolated_home / ".claude" / "projects"
    root.mkdir(parents=True)
    secret = tmp_path / "elsewhere.json"
    secret.write_text('{"agentType": "leaked"}')
    (root / "agent-a.meta.json").symlink_to(secret)
    ctx = _ctx(isolated_home)
    ctx.confine_to([root])
    assert load_json_file(root / "agent-a.meta.json", ctx) is None
    assert _messages(ctx) == ["points outside the provider's root; skipped"]


# -- the line and decompression caps ------------------------------------------------------


def test_reading_stops_at_the_line_cap_and_keeps_what_came_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 10)
    path = tmp_path / "many.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"n": n}) + b"\n" for n in range(25)))
    ctx = _ctx(tmp_path)
    assert [line.record["n"] for line in iter_json_lines(path, ctx)] == list(range(10))
    assert _messages(ctx) == ["more than 10 lines; read stopped there, earlier lines kept"]


def test_blank_lines_count_against_the_line_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 1000)
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b'{"n": 0}\n' + b"\n" * 5000 + b'{"n": 1}\n')
    ctx = _ctx(tmp_path)
    assert [line.record["n"] for line in iter_json_lines(path, ctx)] == [0]
    assert "more than 1,000 lines" in _messages(ctx)[0]


@pytest.mark.parametrize("fill", [b" ", b"\n", b"{"])
def test_a_zstd_bomb_stops_at_the_decompressed_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fill: bytes) -> None:
    monkeypatch.setattr(bounds, "MAX_DECOMPRESSED_BYTES", 8 * 1024 * 1024)
    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 100_000)
    head = b"".join(orjson.dumps({"n": n}) + b"\n" for n in range(3))
    bomb = zstd_bomb(tmp_path / "rollout.jsonl.zst", head, fill, 8 * 1024**3)
    ctx = _ctx(tmp_path)
    started = time.monotonic()
    assert [line.record["n"] for line in iter_json_lines(bomb, ctx)] == [0, 1, 2]
    assert time.monotonic() - started < 10
    assert any("decompresses to more than 8 MiB" in m or "lines; read stopped" in m for m in _messages(ctx)), _messages(ctx)


def test_a_zstd_file_just_under_the_cap_reads_whole_without_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_DECOMPRESSED_BYTES", 1024 * 1024)
    head = b'{"n": 0}\n'
    bomb = zstd_bomb(tmp_path / "small.jsonl.zst", head, b"\n", 1024 * 1024 - len(head))
    ctx = _ctx(tmp_path)
    assert [line.record["n"] for line in iter_json_lines(bomb, ctx)] == [0]
    assert _messages(ctx) == []


# -- the JSON value budget ---------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=3), inner, max_size=5),
    max_leaves=40,
)


def _count(value: object) -> int:
    if isinstance(value, list):
        return 1 + sum(_count(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(1 + _count(v) for v in value.values())  # a key is a string object too
    return 1


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_the_value_estimate_never_undercounts(value: object) -> None:
    text = orjson.dumps(value)
    marks = sum(text.count(mark) for mark in (b"[", b"{", b",", b":"))
    assert _count(value) <= marks + 1


def test_too_many_values_refuses_tiny_items_and_passes_real_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_JSON_VALUES", 1000)
    assert too_many_values(b"[" + b"[]," * 600 + b"[]]")
    assert not too_many_values(orjson.dumps({"messages": [{"content": "x" * 5000} for _ in range(100)]}))


# -- provider databases --------------------------------------------------------------------


def _db(path: Path, *statements: str) -> Path:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def test_a_view_is_never_taken_for_a_table(tmp_path: Path) -> None:
    db = _db(tmp_path / "state.vscdb", "CREATE TABLE real (a)", "CREATE VIEW composerHeaders AS SELECT 1 AS composerId")
    with sqlite_ro.readonly(db) as conn:
        assert sqlite_ro.has_table(conn, "real") and sqlite_ro.table_columns(conn, "real") == ["a"]
        assert not sqlite_ro.has_table(conn, "composerHeaders")
        assert sqlite_ro.table_columns(conn, "composerHeaders") == []


def test_a_runaway_query_is_interrupted_at_the_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_QUERY_SECONDS", 0.5)
    db = _db(tmp_path / "state.sqlite", "CREATE TABLE t (a)")
    endless = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"
    with sqlite_ro.readonly(db) as conn:
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="interrupted after 0.5 s"):
            conn.execute(endless).fetchone()
        assert time.monotonic() - started < 3
        # The deadline is per query: the connection still answers the next one.
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_time_the_caller_spends_between_rows_does_not_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_QUERY_SECONDS", 0.3)
    db = _db(tmp_path / "state.sqlite", "CREATE TABLE t (a)", "INSERT INTO t VALUES (1), (2), (3), (4)")
    with sqlite_ro.readonly(db) as conn:
        seen = []
        for (value,) in conn.execute("SELECT a FROM t"):
            seen.append(value)
            time.sleep(0.15)  # the caller's own work, 0.6 s in all
        assert seen == [1, 2, 3, 4]


@pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX")
def test_a_fifo_named_like_a_database_is_unavailable_not_a_hang(tmp_path: Path) -> None:
    pipe = tmp_path / "state_5.sqlite"
    os.mkfifo(pipe)
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    with pytest.raises(DatabaseUnavailable, match="a FIFO"):
        sqlite_ro.connect_readonly(pipe)


# -- token sums past 2**63 ---------------------------------------------------------------------


def _huge() -> TokenUsage:
    """Ten million calls at the per-call cap, summed as providers sum them (``+``)."""
    call = TokenUsage(input=bounds.MAX_TOKEN_COUNT, cache_read=bounds.MAX_TOKEN_COUNT,
                      cache_write=bounds.MAX_TOKEN_COUNT, output=bounds.MAX_TOKEN_COUNT)
    total = call
    for _ in range(24):  # 2**24 calls, by doubling
        total = total + total
    return total


def test_token_sums_saturate_and_say_so() -> None:
    total = _huge()
    assert total.input == bounds.MAX_TOKEN_SUM and total.saturated
    document = total.to_json()
    assert document["total"] < 2**63
    orjson.dumps(document)  # "Integer exceeds 64-bit range" before the cap
    assert not TokenUsage(input=5).saturated


def test_session_sums_above_2_63_export_to_sqlite(tmp_path: Path) -> None:
    row = SessionRow("fake", "s1", None, tokens=_huge(), updated_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    days = [UsageDay("fake:s1", "2026-01-01", "m", None, (6 * 10**18, 6 * 10**18, 0, 0, 0)),
            UsageDay("fake:s1", "2026-01-01", "m", None, (6 * 10**18, 0, 0, 0, 0))]
    out = tmp_path / "index.sqlite"
    write_sqlite(out, [row], days)
    with sqlite3.connect(out) as conn:
        assert conn.execute("SELECT tokens_input, tokens_total FROM sessions").fetchone() == (10**18, 4 * 10**18)
        assert conn.execute("SELECT tokens_input, tokens_total FROM token_days").fetchone() == (10**18, 2 * 10**18)


def test_a_token_report_above_2_63_is_capped_with_a_warning() -> None:
    half = 5 * 10**18  # two of these pass 2**63
    usage = tuple(UsageEntry(session="s1", tokens=TokenUsage(input=half, output=half), model="m") for _ in range(2))
    provider = FakeProvider([FakeSession(SessionRow("fake", "s1", None), usage=usage)])
    with Scanner(providers=[provider], home="/nonexistent", env={}) as scanner:
        report = token_report(scanner)
        document = orjson.loads(orjson.dumps(report.to_json()))
        assert document["total"]["input"] == bounds.MAX_TOKEN_SUM
        assert bounds.TOKEN_SUM_CAPPED in [w.message for w in scanner.warnings]
    with Scanner(providers=[provider], home="/nonexistent", env={}) as scanner:
        assert not scanner.warnings
        rows = scanner.list_sessions()
        assert rows[0].tokens.saturated
        assert bounds.TOKEN_SUM_CAPPED in [w.message for w in scanner.warnings]
