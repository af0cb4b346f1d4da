"""The persistent index under attack (issue 14, cases 7-10).

Whatever happens to the cache or to the files behind it, a cached answer
equals the ``--no-cache`` answer: the invariant is checked after every fault.

* 7: corrupt values are misses, recomputed and overwritten, never a traceback;
* 8: a locked database is waited for or skipped, never moved aside;
* 9: the incremental path is keyed on the file's identity and the bytes
  before the resume point; a "truncated last line" warning goes away once
  the line is complete;
* 10: only directories agentscan creates are chmodded.
"""

from __future__ import annotations

import os
import random
import sqlite3
import stat
import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.settling import SETTLING_SECONDS
from agentscan.scan import cachefile as cache_module
from agentscan.scan.cache import FILE_NAME
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

S1 = "a1a1a1a1-1111-4222-8333-444444444444"
S2 = "b2b2b2b2-1111-4222-8333-444444444444"
S3 = "c3c3c3c3-1111-4222-8333-444444444444"

COMMANDS = (
    ["tokens", "--json"],
    ["tokens", "--by", "day", "--json"],
    ["tokens", "--by", "model", "--json"],
    ["tokens", "--since", "2026-11-01T10:00:30Z", "--json"],
    ["list", "--json"],
    ["show", S1, "--json"],
)


def _call(session: str, ts: str, n: int, **extra) -> dict:
    return claude_assistant(session, ts, msg_id=f"m{n}", request_id=f"r{n}", usage=claude_usage(n, 10 * n), **extra)


def make_home(home: Path) -> Path:
    """Three sessions: S2 resumes S1 (copies of S1's calls), S3 has a subagent."""
    path = claude_session_file(home, S1, [
        claude_user(S1, "2026-11-01T10:00:00Z", "first"),
        _call(S1, "2026-11-01T10:00:01Z", 1),
        _call(S1, "2026-11-01T10:00:40Z", 2),
    ])
    claude_session_file(home, S2, [
        claude_user(S2, "2026-11-02T10:00:00Z", "resumed"),
        _call(S2, "2026-11-01T10:00:01Z", 1),  # the same API call, copied on resume
        _call(S2, "2026-11-02T10:00:05Z", 3),
    ])
    claude_session_file(home, S3, [claude_user(S3, "2026-11-03T10:00:00Z", "third"), _call(S3, "2026-11-03T10:00:01Z", 4)])
    claude_subagent_file(home, S3, "sub1", [_call(S3, "2026-11-03T10:00:05Z", 5, sidechain=True)])
    return path


def run(args: list[str], *, cache: bool = True) -> tuple[int, dict | str]:
    result = CliRunner().invoke(app, ([] if cache else ["--no-cache"]) + args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    try:
        return result.exit_code, orjson.loads(result.stdout)
    except orjson.JSONDecodeError:
        return result.exit_code, result.output


def assert_cache_agrees() -> None:
    """The invariant: every command gives with the cache what it gives without."""
    for args in COMMANDS:
        assert run(args) == run(args, cache=False), args


def _cache_path() -> Path:
    return Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME


def _warm(home: Path) -> None:
    path = make_home(home)
    for args in COMMANDS:
        run(args)
    # A session that changed keeps a resume state: make S1 one.
    with path.open("ab") as handle:
        handle.write(orjson.dumps(_call(S1, "2026-11-01T10:01:00Z", 6)) + b"\n")
    for args in COMMANDS:
        run(args)


# -- case 7: corrupt contents ----------------------------------------------------------

GARBAGE = [b"\x00\xff random bytes \x80", b"{}", b"null", b"[]", b'{"g": "x", "w": []}', b'{"g": [[1, 2, 3]], "w": []}',
           b'[["s", null, "x", null, 1, 1, 1, 1, 0, null, 1]]', b'{"v": 3, "files": [{"path": 5}]}', b"12", b'"text"']


def _corrupt_every_value(value: bytes) -> int:
    """Overwrite every text or blob value of every table (keys and the identity kept)."""
    conn = sqlite3.connect(_cache_path())
    changed = 0
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for table in tables:
        columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})") if not row[5]]  # not the primary key
        for column in columns:
            if table == "meta" and column == "value":
                changed += conn.execute(
                    "UPDATE meta SET value=? WHERE key NOT IN ('identity', 'schema_version')", (value.decode("latin-1"),)
                ).rowcount
                continue
            for kind in (value, value.decode("latin-1")):
                changed += conn.execute(f"UPDATE {table} SET {column}=? WHERE typeof({column}) IN ('text', 'blob')", (kind,)).rowcount
                break
    conn.commit()
    conn.close()
    return changed


@pytest.mark.parametrize("garbage", GARBAGE, ids=range(len(GARBAGE)))
def test_corrupt_values_are_misses_recomputed_and_overwritten(isolated_home: Path, garbage: bytes) -> None:
    _warm(isolated_home)
    assert _corrupt_every_value(garbage) > 10
    assert_cache_agrees()
    # Overwritten: the next run answers from the cache again, parsing nothing.
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
        scanner.list_sessions()
        assert scanner.parses == 0


def test_wrongly_typed_numbers_in_a_cached_row_are_a_miss(isolated_home: Path) -> None:
    _warm(isolated_home)
    conn = sqlite3.connect(_cache_path())
    for (session_id, row) in conn.execute("SELECT session_id, row FROM rows").fetchall():
        document = orjson.loads(row)
        if document.get("tokens"):
            document["tokens"] = {key: str(value) for key, value in document["tokens"].items()}
        document["counts"] = {"prompts": "1", "responses": None, "tool_calls": []}
        conn.execute("UPDATE rows SET row=? WHERE session_id=?", (orjson.dumps(document).decode(), session_id))
    conn.commit()
    conn.close()
    assert_cache_agrees()


@pytest.mark.parametrize(("field", "value"), [("title", 7), ("cwd", ["/x"]), ("model", {"name": "m"}),
                                              ("git_branch", 1.5), ("path", False), ("running", "yes"),
                                              ("counts_partial", None), ("archived", "yes")])
def test_wrongly_typed_text_in_a_cached_row_is_a_miss(isolated_home: Path, field: str, value: object) -> None:
    """A title that is a number would fail in front of the user (cut, aligned): read again."""
    _warm(isolated_home)
    conn = sqlite3.connect(_cache_path())
    for (session_id, row) in conn.execute("SELECT session_id, row FROM rows").fetchall():
        document = orjson.loads(row)
        document[field] = value
        conn.execute("UPDATE rows SET row=? WHERE session_id=?", (orjson.dumps(document).decode(), session_id))
    conn.commit()
    conn.close()
    with Scanner(use_cache=True) as scanner:
        rows = scanner.list_sessions()
        assert scanner.parses == len(rows) > 0
        assert all(row.title is None or isinstance(row.title, str) for row in rows)
    assert_cache_agrees()
    for command in (["list"], ["tokens"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
        assert "Traceback" not in result.output


# -- case 8: lock contention -------------------------------------------------------------


def test_a_locked_cache_is_skipped_for_the_run_never_moved_aside(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_home(isolated_home)
    run(["tokens", "--json"])
    monkeypatch.setattr(cache_module, "BUSY_TIMEOUT", 0.2)
    holder = sqlite3.connect(_cache_path(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another agentscan in the middle of a write
    try:
        code, document = run(["tokens", "--json"])
        assert code == 0
        assert document == run(["tokens", "--json"], cache=False)[1]
        assert document["warnings"] == []
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    leftovers = [p.name for p in _cache_path().parent.iterdir() if p.name.endswith(".corrupt")]
    assert leftovers == []
    # The same cache, untouched and still in use.
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)
        assert scanner.parses == 0


class _CountingConnection:
    """A cache connection that counts the statements the index's lock made wait (and fail)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.waited = 0

    def __getattr__(self, name: str):  # noqa: ANN204 - everything else as it is
        return getattr(self._conn, name)

    def _counted(self, method: str, *args: object) -> object:
        try:
            return getattr(self._conn, method)(*args)
        except sqlite3.OperationalError as exc:
            if cache_module.is_busy(exc):
                self.waited += 1
            raise

    def execute(self, *args: object) -> object:
        return self._counted("execute", *args)

    def executemany(self, *args: object) -> object:
        return self._counted("executemany", *args)


def test_a_cache_locked_during_a_run_is_waited_for_once(isolated_home: Path) -> None:
    """Another agentscan takes the write lock after this run opened the index: the first
    write waits out the busy timeout, and the run then writes nothing more (it waited again
    at every write before: minutes for thousands of rows), with the same answer."""
    for number in range(12):
        session = f"{number:08x}-2222-4000-8000-000000000000"
        claude_session_file(isolated_home, session, [
            claude_user(session, "2026-11-01T10:00:00Z", f"task {number}"),
            claude_assistant(session, "2026-11-01T10:01:00Z", msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(10 + number, 5)),
        ])
    expected = [row.to_json() for row in Scanner(use_cache=False).all_rows()]
    with Scanner(use_cache=True) as scanner:
        cache = scanner.cache
        assert cache is not None
        cache.conn.execute("PRAGMA busy_timeout=50")
        counting = _CountingConnection(cache.conn)
        cache.conn = counting  # type: ignore[assignment]
        holder = sqlite3.connect(_cache_path(), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another agentscan in the middle of a write
        try:
            assert [row.to_json() for row in scanner.all_rows()] == expected
            token_report(scanner)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert counting.waited == 1
        assert not cache.writing


def test_concurrent_first_runs_share_one_cache(isolated_home: Path) -> None:
    import subprocess
    import sys

    make_home(isolated_home)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    procs = [subprocess.Popen([sys.executable, "-m", "agentscan", "tokens", "--json"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(6)]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 6, [err for _, err in outputs]
    documents = [orjson.loads(out) for out, _ in outputs]
    assert all(document == documents[0] for document in documents)
    assert all(document["warnings"] == [] for document in documents)
    assert not [p for p in _cache_path().parent.iterdir() if p.name.endswith(".corrupt")]


# -- case 9: the incremental path ------------------------------------------------------


def _replace_with_longer_sharing_the_head(path: Path) -> None:
    data = path.read_bytes()
    longer = data + orjson.dumps(_call(S1, "2026-11-01T10:02:00Z", 7)) + b"\n"
    # Same first 4 KiB and more, but not the same file, and a different call in the middle.
    middle = longer.replace(b'"input_tokens":2', b'"input_tokens":9')
    assert middle != longer
    replacement = path.with_name("replacement.tmp")
    replacement.write_bytes(middle)
    os.replace(replacement, path)


def _rewrite_in_place_same_size(path: Path) -> None:
    stat_before = path.stat()
    data = path.read_bytes().replace(b'"input_tokens":1,', b'"input_tokens":8,')
    assert len(data) == stat_before.st_size
    with path.open("r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(stat_before.st_atime_ns, stat_before.st_mtime_ns))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: data.rfind(b"\n", 0, len(data) - 1) + 1])


def _append_partial_line(path: Path) -> None:
    with path.open("ab") as handle:
        line = orjson.dumps(_call(S1, "2026-11-01T10:03:00Z", 8))
        handle.write(line[: line.index(b'"usage"') + 12])


def _append(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(orjson.dumps(_call(S1, "2026-11-01T10:04:00Z", 9)) + b"\n")


def _new_subagent(path: Path) -> None:
    claude_subagent_file(path.parents[2], S1, "late", [_call(S1, "2026-11-01T10:05:00Z", 10, sidechain=True)])


def _replace_with_a_copy_of_another_session(path: Path) -> None:
    other = path.with_name(f"{S2}.jsonl").read_bytes().replace(S2.encode(), S1.encode())
    path.write_bytes(other + other)


FAULTS = [_replace_with_longer_sharing_the_head, _rewrite_in_place_same_size, _truncate, _append_partial_line, _append,
          _new_subagent, _replace_with_a_copy_of_another_session]


@pytest.mark.parametrize("fault", FAULTS, ids=[f.__name__.strip("_") for f in FAULTS])
def test_cached_equals_uncached_after_every_fault(isolated_home: Path, fault) -> None:
    _warm(isolated_home)
    path = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{S1}.jsonl"
    fault(path)
    assert_cache_agrees()
    _append(path)  # and once more after the fault: a resume from the new state
    assert_cache_agrees()


def test_a_replaced_file_sharing_the_first_4_kib_is_parsed_again(isolated_home: Path) -> None:
    _warm(isolated_home)
    path = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{S1}.jsonl"
    # Pad the head so the first 4 KiB are all shared, then replace by a longer file.
    data = path.read_bytes()
    pad = orjson.dumps(claude_user(S1, "2026-11-01T09:59:00Z", "p" * 5000)) + b"\n"
    path.write_bytes(pad + data)
    run(["tokens", "--json"])
    run(["tokens", "--json"])
    _replace_with_longer_sharing_the_head(path)
    cached = run(["tokens", "--json"])
    assert cached == run(["tokens", "--json"], cache=False)
    by_session = {row["key"]: row["tokens"]["input"] for row in cached[1]["rows"]}
    assert by_session[f"claude:{S1}"] == 9 + 1 + 6 + 7


def test_a_truncated_last_line_warning_goes_once_the_line_is_complete(isolated_home: Path) -> None:
    _warm(isolated_home)
    path = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{S1}.jsonl"
    line = orjson.dumps(_call(S1, "2026-11-01T10:06:00Z", 11))
    cut = line.index(b'"usage"') + 12  # tokens decodes (and so reports) only lines that can hold usage
    with path.open("ab") as handle:
        handle.write(line[:cut])
    settled = time.time() - SETTLING_SECONDS - 5  # --strict forgives a line still being written
    os.utime(path, (settled, settled))
    assert run(["--strict", "tokens", "--json"])[0] == 1
    assert run(["--strict", "tokens", "--json"])[0] == 1  # warm: still incomplete, still said
    with path.open("ab") as handle:
        handle.write(line[cut:] + b"\n")
    for _ in range(2):
        code, document = run(["--strict", "tokens", "--json"])
        assert (code, document["warnings"]) == (0, [])
        assert run(["--strict", "tokens", "--json"], cache=False)[0] == 0


def test_random_appends_and_rewrites_keep_the_invariant(isolated_home: Path) -> None:
    rng = random.Random(14)
    _warm(isolated_home)
    path = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{S1}.jsonl"
    for step in range(12):
        choice = rng.choice(FAULTS + [_append, _append, _append_partial_line])
        choice(path)
        code, cached = run(["tokens", "--json"])
        assert (code, cached) == run(["tokens", "--json"], cache=False), (step, choice.__name__)


# -- case 10: directory modes ----------------------------------------------------------


def test_an_existing_cache_dir_keeps_its_mode(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_home(isolated_home)
    team_dir = tmp_path / "team-cache"  # a directory the user made, for several tools
    team_dir.mkdir()
    os.chmod(team_dir, 0o755)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(team_dir))
    assert run(["tokens", "--json"])[0] == 0
    assert stat.S_IMODE(team_dir.stat().st_mode) == 0o755
    assert stat.S_IMODE((team_dir / FILE_NAME).stat().st_mode) == 0o600


def test_created_cache_dirs_are_private(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_home(isolated_home)
    parent = tmp_path / "open"
    parent.mkdir()
    os.chmod(parent, 0o755)
    target = parent / "new" / "deeper"
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(target))
    assert run(["tokens", "--json"])[0] == 0
    assert stat.S_IMODE(parent.stat().st_mode) == 0o755
    assert stat.S_IMODE((parent / "new").stat().st_mode) == 0o700
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
