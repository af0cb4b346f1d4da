"""The persistent index: warm runs parse nothing, appends parse only the tail."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.scan.scanner import Scanner
from agentscan.scan.cache import FILE_NAME
from agentscan.cli import app
from agentscan.scan.tokens import token_report
from builders import (
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    forget_remembered_answers,
)

S1 = "dddddddd-1111-4222-8333-444444444444"
S2 = "eeeeeeee-1111-4222-8333-444444444444"


def make_home(home: Path) -> Path:
    path = claude_session_file(home, S1, [
        claude_user(S1, "2026-11-01T10:00:00Z", "first"),
        claude_assistant(S1, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 10)),
    ])
    claude_session_file(home, S2, [
        claude_user(S2, "2026-11-02T10:00:00Z", "second"),
        claude_assistant(S2, "2026-11-02T10:00:01Z", msg_id="m2", request_id="r2", usage=claude_usage(2, 20)),
    ])
    claude_subagent_file(home, S2, "sub1", [
        claude_assistant(S2, "2026-11-02T10:00:05Z", msg_id="m3", request_id="r3", usage=claude_usage(3, 30), sidechain=True),
    ])
    return path


def cached_scanner() -> Scanner:
    return Scanner(use_cache=True)


def test_warm_list_and_tokens_parse_no_unchanged_file(isolated_home: Path) -> None:
    make_home(isolated_home)
    with cached_scanner() as cold:
        cold_rows = cold.list_sessions()
        cold_report = token_report(cold)
        assert cold.parses == 2  # 2 rows; their passes kept the sessions' usage too (pass 51)
    with cached_scanner() as warm:
        warm_rows = warm.list_sessions()
        warm_report = token_report(warm)
        assert warm.parses == 0
        assert warm.cache.parses == 0  # no file-level parse either
    assert [r.to_json() for r in warm_rows] == [r.to_json() for r in cold_rows]
    assert warm_report.to_json() == cold_report.to_json()


def test_changed_file_is_parsed_again(isolated_home: Path) -> None:
    path = make_home(isolated_home)
    with cached_scanner() as first:
        token_report(first)
    with path.open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(S1, "2026-11-01T11:00:00Z", msg_id="m9", request_id="r9",
                                                   usage=claude_usage(100, 0))) + b"\n")
    with cached_scanner() as second:
        report = token_report(second)
        assert second.parses == 1  # only S1
    assert report.total.input == 1 + 2 + 3 + 100


def test_appended_file_is_parsed_only_from_its_offset(isolated_home: Path, monkeypatch) -> None:
    path = make_home(isolated_home)
    with cached_scanner() as first:
        token_report(first, ids=[S1])

    def append(n: int) -> None:
        with path.open("ab") as handle:
            handle.write(orjson.dumps(claude_assistant(S1, "2026-11-01T11:00:00Z", msg_id=f"m{n}", request_id=f"r{n}",
                                                       usage=claude_usage(100, 0))) + b"\n")

    # A session that changed is an active one: from now on it keeps a resume state.
    append(8)
    with cached_scanner() as second:
        token_report(second, ids=[S1])
    size_before = path.stat().st_size
    append(9)

    from agentscan.toolkit import linescan

    starts: list[int] = []
    real = linescan.matching_records

    def spy(path_arg, ctx, marker, progress, **kwargs):
        starts.append(kwargs.get("start", 0))
        return real(path_arg, ctx, marker, progress, **kwargs)

    monkeypatch.setattr("agentscan.providers.claude.filescan.matching_records", spy)
    with cached_scanner() as third:
        report = token_report(third, ids=[S1])
    assert starts == [size_before]
    assert report.total.input == 201 and report.total.output == 10


def test_partial_last_line_is_read_again_when_completed(isolated_home: Path) -> None:
    path = make_home(isolated_home)
    line = orjson.dumps(claude_assistant(S1, "2026-11-01T11:00:00Z", msg_id="m9", request_id="r9", usage=claude_usage(100, 0)))
    with path.open("ab") as handle:
        handle.write(line[:40])
    with cached_scanner() as first:
        assert token_report(first, ids=[S1]).total.input == 1
    with path.open("ab") as handle:
        handle.write(line[40:] + b"\n")
    with cached_scanner() as second:
        assert token_report(second, ids=[S1]).total.input == 101


def test_warnings_survive_a_warm_run(isolated_home: Path) -> None:
    path = make_home(isolated_home)
    with path.open("ab") as handle:
        # tokens pre-filters lines on b'"usage"', so only a bad line that could
        # carry usage is decoded (and reported) there; list reads every line.
        handle.write(b'{"type":"assistant","message":{"usage": oops\n')
    runner = CliRunner()
    for again in range(3):  # made, printed again (``scan.answers``), made again warm
        if again == 2:
            forget_remembered_answers()
        result = runner.invoke(app, ["--strict", "tokens"])
        assert result.exit_code == 1, result.output
        result = runner.invoke(app, ["--strict", "list"])
        assert result.exit_code == 1, result.output


def test_cache_is_private(isolated_home: Path, tmp_path: Path) -> None:
    make_home(isolated_home)
    with cached_scanner() as scanner:
        scanner.list_sessions()
        path = scanner.cache.path
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_corrupt_cache_is_rebuilt_with_a_warning(isolated_home: Path, tmp_path: Path) -> None:
    make_home(isolated_home)
    cache_path = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME
    cache_path.parent.mkdir(parents=True)
    cache_path.write_bytes(b"this is not sqlite" * 100)
    with cached_scanner() as scanner:
        rows = scanner.list_sessions()
        assert len(rows) == 2
        assert any("rebuilt" in w.message for w in scanner.warnings)
    with cached_scanner() as again:
        again.list_sessions()
        assert again.parses == 0 and not again.warnings


def test_foreign_sqlite_file_is_not_used(isolated_home: Path) -> None:
    import sqlite3

    make_home(isolated_home)
    cache_path = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME
    cache_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(cache_path)
    conn.execute("CREATE TABLE someone_elses(x)")
    conn.commit()
    conn.close()
    with cached_scanner() as scanner:
        assert len(scanner.list_sessions()) == 2
        assert any("not an agentscan cache" in w.message for w in scanner.warnings)


def test_no_cache_writes_nothing(isolated_home: Path, tmp_path: Path) -> None:
    """What docs/security.md says: nothing in the cache directory but an export's lock file."""
    make_home(isolated_home)
    cache = Path(os.environ["AGENTSCAN_CACHE_DIR"])
    for args in (["list"], ["tokens", "--by", "model"], ["show", S1], ["export", "-f", "csv", "-o", "-"]):
        result = CliRunner().invoke(app, ["--no-cache", *args])
        assert result.exit_code == 0, (args, result.output)
        assert not cache.exists(), args
    out = tmp_path / "index.jsonl"
    assert CliRunner().invoke(app, ["--no-cache", "export", "-f", "jsonl", "-o", str(out)]).exit_code == 0
    left = sorted(str(path.relative_to(cache)) for path in cache.rglob("*"))
    assert left and left[0] == "locks"  # the lock dir is made before the lock is taken
    assert all(re.fullmatch(r"locks/export-[0-9a-f]{32}\.lock", name) for name in left[1:]), left


def test_stale_id_entry_is_refreshed(isolated_home: Path) -> None:
    path = make_home(isolated_home)
    with cached_scanner() as scanner:
        scanner.list_sessions()  # fills the id index
    moved_dir = isolated_home / ".claude" / "projects" / "-moved"
    moved_dir.mkdir()
    moved = moved_dir / path.name
    path.rename(moved)
    with cached_scanner() as scanner:
        ref = scanner.resolve(S1)
        assert ref.path == moved
        # The index now points at the new place: the next lookup needs no discovery.
        assert scanner.cache.find_ids(S1)[0][3] == str(moved)
    with cached_scanner() as scanner:
        assert scanner.resolve(f"claude:{S1}").path == moved
        assert scanner._refs == {}  # answered by the index alone


def test_old_session_found_through_index_and_discovery(isolated_home: Path) -> None:
    make_home(isolated_home)
    with cached_scanner() as scanner:
        assert scanner.show(S1[:8]).row.native_id == S1


def test_many_sessions_sums_and_keys_read_in_one_pass_are_the_same(isolated_home: Path, monkeypatch) -> None:
    """Past ``WHOLE_TABLE_ABOVE`` ids, ``usage`` is read whole and filtered: the same answer."""
    from agentscan.scan import cache as cache_module

    make_home(isolated_home)
    with cached_scanner() as scanner:
        token_report(scanner)
        ids = [ref.id for ref in scanner.refs()]
        store = scanner.cache
        assert store is not None and len(ids) >= 2
        asked = [ids[0], "claude:not-a-session"]  # not every session: the pass must filter
        chunked = (store.get_usage(asked), store.get_keys(asked))
        monkeypatch.setattr(cache_module, "WHOLE_TABLE_ABOVE", 1)
        assert (store.get_usage(asked), store.get_keys(asked)) == chunked
        assert set(chunked[0]) == set(chunked[1]) == {ids[0]}


def test_a_value_sealed_from_parts_is_the_value_sealed_whole() -> None:
    from agentscan.sealing import seal, sealed_parts, unseal

    parts = [b"header", b"\n", b"", bytes(range(256)) * 100]
    assert b"".join(sealed_parts(parts)) == seal(b"".join(parts))
    assert unseal(b"".join(sealed_parts(parts))) == b"".join(parts)
    assert b"".join(sealed_parts([])) == seal(b"")


def test_a_sealed_value_seen_in_place_is_its_payload() -> None:
    from agentscan.sealing import seal, unseal, unseal_view

    value = seal(b"payload " * 1000)
    view = unseal_view(value)
    assert view is not None and view.tobytes() == unseal(value)
    damaged = value[:10] + bytes([value[10] ^ 1]) + value[11:]
    assert unseal_view(damaged) is None and unseal(damaged) is None
    assert unseal_view(b"abc") is None and unseal_view(None) is None
