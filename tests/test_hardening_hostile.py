"""A hostile home (issue 14): nothing in it may hang a command or exhaust memory.

Every case is laid out beside each provider's ``clean`` control session and
every command is run on it in a child process under a wall-clock limit and
an address-space limit (``tests/hostile.py``): a FIFO that blocks an
``open()``, a symlink to ``/dev/zero``, a Codex index row pointing at
``/proc``, a zstd bomb, a recursive SQL view, a huge whole-file JSON chat.
Each must end in a warning that names the file while the controls keep
their titles and tokens.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from bad_corpus import PROVIDERS, all_cases, case, lay_out, no_internal_errors, target
from builders import claude_assistant, claude_usage
from codex_builders import at, index_row, write_state_db
from cursor_builders import bubble, composer_data, make_state_db, state_db_path
from gemini_builders import gemini as gemini_reply, meta as gemini_meta, write_chat
from hostile import BAD_HOOK_SESSION, fifo, hostile_hook_session, messages_for, run_cli, zstd_bomb

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, /dev/zero and setrlimit are POSIX")

CLAUDE_PROJECT = ("-work-bad-input",)
GEMINI_PROJECT = ("bad-input",)
NOT_REGULAR = "not a regular file (a FIFO)"


def controls(home: Path) -> dict[str, Path]:
    return lay_out(home, [case(provider, "clean") for provider in PROVIDERS])


def assert_controls(doc: dict, extra: dict[str, int] | None = None) -> None:
    """Each provider's control is listed with its title and tokens (plus ``extra`` ones added to it)."""
    rows = {row["id"]: row for row in doc["sessions"]}
    for provider in PROVIDERS:
        control = case(provider, "clean")
        assert control.id in rows, (provider, sorted(rows))
        assert rows[control.id]["title"] == control.title
        tokens = rows[control.id]["tokens"]
        expected = None if control.expected is None else control.expected + (extra or {}).get(provider, 0)
        assert (tokens["total"] if tokens else None) == expected, provider
    assert no_internal_errors(doc["warnings"]), doc["warnings"]


def every_command(home: Path, tmp: Path, show: list[str], env: dict[str, str] | None = None) -> dict[str, dict]:
    """Every reading command, each in its own limited child; their JSON documents by name."""
    base = ["--home", str(home)]
    runs = {
        "list": run_cli(*base, "list", "--json", env=env),
        "tokens": run_cli(*base, "tokens", "--json", env=env),
        "export": run_cli(*base, "export", "-f", "jsonl", "-o", str(tmp / "out.jsonl"), "--json", env=env),
        "doctor": run_cli(*base, "doctor", "--json", env=env),
        "otlp": run_cli(*base, "otlp", "-o", str(tmp / "out.otlp.jsonl"), "--json", env=env),
    }
    for session_id in show:
        runs[f"show {session_id}"] = run_cli(*base, "show", session_id, "--json", env=env)
    return {name: ran.json() for name, ran in runs.items()}


# -- 1. side files: FIFOs, devices, symlinks out ------------------------------------------


PROMPTLESS = "9e9e9e9e-0000-4000-8000-000000000001"
SHOWN = [case("claude", "clean").id, case("gemini", "clean").id, f"gemini:{PROMPTLESS}"]
SUBAGENT_TOKENS = {"claude": 3}  # the subagent beside the Claude control, whose meta.json is hostile


def _side_file_home(home: Path, make) -> dict[str, Path]:
    """Every side file agentscan reads beside the controls, each made by ``make(path)``
    (a FIFO, a symlink…); returns them by name."""
    claude = case("claude", "clean")
    project = home / ".claude" / "projects" / CLAUDE_PROJECT[0]
    subagent = project / claude.native_id / "subagents" / "agent-a1.jsonl"
    subagent.parent.mkdir(parents=True)
    subagent.write_bytes(orjson.dumps(claude_assistant(
        claude.native_id, "2026-01-02T10:00:05Z", msg_id="m-sub", request_id="r-sub", usage=claude_usage(1, 2))) + b"\n")
    gemini_project = home / ".gemini" / "tmp" / GEMINI_PROJECT[0]
    # A chat without prompts: only for such a chat is logs.json read.
    write_chat(home, GEMINI_PROJECT[0], "session-2026-01-04T09-00-9e9e9e9e.jsonl",
               [gemini_meta(PROMPTLESS), gemini_reply("g1", "2026-01-04T09:00:01Z", "hello")])
    sides = {
        "claude meta": subagent.with_name("agent-a1.meta.json"),
        "gemini project root": gemini_project / ".project_root",
        "gemini registry": home / ".gemini" / "projects.json",
        "gemini logs": gemini_project / "logs.json",
        "codex index": home / ".codex" / "state_5.sqlite",
        "cursor state db": state_db_path(home),
    }
    for path in sides.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        make(path)
    return sides


@pytest.mark.slow  # also in test_the_hostile_corpus_under_limits
def test_fifo_side_files_are_refused_with_a_warning_not_a_hang(isolated_home: Path, tmp_path: Path) -> None:
    controls(isolated_home)
    sides = _side_file_home(isolated_home, fifo)
    docs = every_command(isolated_home, tmp_path, show=SHOWN)
    assert_controls(docs["list"], SUBAGENT_TOKENS)
    warnings = [w for doc in docs.values() for w in doc["warnings"]]
    for name, path in sides.items():
        assert any(NOT_REGULAR in m for m in messages_for(warnings, path)), (name, warnings)


def test_side_files_leading_to_dev_zero_are_refused(isolated_home: Path, tmp_path: Path) -> None:
    controls(isolated_home)
    sides = _side_file_home(isolated_home, lambda path: path.symlink_to("/dev/zero"))
    docs = every_command(isolated_home, tmp_path, show=SHOWN)
    assert_controls(docs["list"], SUBAGENT_TOKENS)
    warnings = [w for doc in docs.values() for w in doc["warnings"]]
    for name, path in sides.items():
        assert messages_for(warnings, path), (name, path, warnings)


def _fifo_transcripts(home: Path, placed: dict[str, Path]) -> list[Path]:
    """A FIFO named like a session file beside each provider's control."""
    pipes = []
    for n, provider in enumerate(("claude", "codex", "cursor")):
        control = case(provider, "clean")
        path = placed[control.id]
        pipes.append(fifo(path.with_name(path.name.replace(control.native_id, f"ffffffff-0000-4000-8000-00000000f1f{n}"))))
    pipes.append(fifo(home / ".gemini" / "tmp" / "bad-input" / "chats" / "session-2026-01-04T11-00-ffffffff.jsonl"))
    return pipes


@pytest.mark.slow  # also in test_the_hostile_corpus_under_limits
def test_fifo_transcripts_are_skipped_with_a_warning(isolated_home: Path, tmp_path: Path) -> None:
    pipes = _fifo_transcripts(isolated_home, controls(isolated_home))
    docs = every_command(isolated_home, tmp_path, show=[])
    assert_controls(docs["list"])
    for pipe in pipes:
        assert any("a FIFO" in m for m in messages_for(docs["list"]["warnings"], pipe)), (pipe, docs["list"]["warnings"])


# -- 2. the Codex index names files outside CODEX_HOME ------------------------------------------


OUTSIDE = {
    "019c4444-0000-7000-8000-0000000000e1": "/proc/self/environ",
    "019c4444-0000-7000-8000-0000000000e2": "/proc/kmsg",
    "019c4444-0000-7000-8000-0000000000e3": "/dev/zero",
}


def _outside_index(home: Path, elsewhere: Path) -> dict[str, str]:
    """A Codex thread index whose rows name files outside CODEX_HOME; returns thread -> path."""
    pipe = fifo(elsewhere / "rollout-2026-01-03T10-00-00-019c4444-0000-7000-8000-0000000000e4.jsonl")
    rows = {**OUTSIDE, "019c4444-0000-7000-8000-0000000000e4": str(pipe)}
    write_state_db(home / ".codex" / "state_5.sqlite", [
        index_row(thread, Path(path), created=at(0), updated=at(9), title=f"outside {n}")
        for n, (thread, path) in enumerate(rows.items())])
    return rows


@pytest.mark.slow  # also in test_the_hostile_corpus_under_limits
def test_codex_index_rows_pointing_outside_codex_home_are_not_opened(isolated_home: Path, tmp_path: Path) -> None:
    controls(isolated_home)
    rows = _outside_index(isolated_home, tmp_path / "elsewhere")
    docs = every_command(isolated_home, tmp_path, show=[], env={"SECRET_ENV_MARKER": "do-not-list-me"})
    assert_controls(docs["list"])
    listed = {row["id"] for row in docs["list"]["sessions"]}
    assert not listed & {f"codex:{thread}" for thread in rows}
    for doc in docs.values():
        assert b"do-not-list-me" not in orjson.dumps(doc)
    (codex,) = [p for p in docs["doctor"]["providers"] if p["provider"] == "codex"]
    assert any("4 thread index rows point outside CODEX_HOME" in finding for finding in codex["findings"]), codex["findings"]
    for thread in rows:
        shown = run_cli("--home", str(isolated_home), "show", thread, "--json")
        assert shown.returncode == 1 and "no session matches" in shown.stderr


# -- 3. decompression bombs -----------------------------------------------------------------


def _codex_head() -> bytes:
    """The clean Codex control's lines: a real session header and its calls."""
    return case("codex", "clean").source.read_bytes()


def _bomb(home: Path, fill: bytes, thread: str = "019c5555-0000-7000-8000-0000000000b0") -> Path:
    """A real Codex session (the clean control's lines, renamed) followed by 8 GB of ``fill``."""
    head = _codex_head().replace(case("codex", "clean").native_id.encode(), thread.encode())
    name = f"rollout-2026-01-05T10-00-00-{thread}.jsonl.zst"
    return zstd_bomb(home / ".codex" / "sessions" / "2026" / "01" / "05" / name, head, fill, 8 * 1024**3)


@pytest.mark.parametrize("fill", [
    pytest.param(b" ", id="one-endless-line", marks=pytest.mark.slow),  # also in the corpus test
    # 4 million blank lines per read, several reads per command: ~20 s in all.
    pytest.param(b"\n", id="endless-blank-lines", marks=pytest.mark.slow),
])
def test_a_zstd_bomb_stops_at_the_cap_with_a_warning(isolated_home: Path, tmp_path: Path, fill: bytes) -> None:
    controls(isolated_home)
    thread = "019c5555-0000-7000-8000-0000000000b0"
    bomb = _bomb(isolated_home, fill, thread)
    assert bomb.stat().st_size < 300_000
    docs = every_command(isolated_home, tmp_path, show=[f"codex:{thread}"])
    assert_controls(docs["list"])
    rows = {row["id"]: row for row in docs["list"]["sessions"]}
    # What came before the bomb is kept: the session and its calls.
    assert rows[f"codex:{thread}"]["tokens"]["total"] == case("codex", "clean").expected
    cap = "decompresses to more than 1,024 MiB" if fill == b" " else "more than 4,000,000 lines"
    for name in ("list", "tokens", f"show codex:{thread}"):
        assert any(cap in m for m in messages_for(docs[name]["warnings"], bomb)), (name, docs[name]["warnings"])


# -- 4. provider databases: views, slow schemas ---------------------------------------------


def _cursor_db_with(home: Path, *statements: str) -> Path:
    composer = "c0ffee00-0000-4000-8000-000000000001"
    path = make_state_db(state_db_path(home), composers=[composer_data(composer, name="db composer", bubbles=["b1"])],
                         bubbles={composer: [bubble("b1", 1, "hi", tokens=(5, 6))]})
    with closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()
    return path


RECURSIVE = ("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
             "SELECT 'c0ffee00-0000-4000-8000-' || printf('%012d', x) AS composerId, x AS createdAt, "
             "x AS lastUpdatedAt, 0 AS isSubagent FROM r")


RECURSIVE_EDGES = ("WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
                   "SELECT 'p' || x AS parent_thread_id, 'c' || x AS child_thread_id FROM r")


@pytest.mark.slow  # also in test_the_hostile_corpus_under_limits
def test_a_recursive_view_in_the_cursor_state_db_is_never_queried(isolated_home: Path, tmp_path: Path) -> None:
    controls(isolated_home)
    _cursor_db_with(isolated_home, f"CREATE VIEW composerHeaders AS {RECURSIVE}")
    docs = every_command(isolated_home, tmp_path, show=[])
    assert_controls(docs["list"])


@pytest.mark.slow  # also in test_the_hostile_corpus_under_limits
def test_recursive_views_named_like_the_codex_tables_are_never_queried(isolated_home: Path, tmp_path: Path) -> None:
    controls(isolated_home)
    db = isolated_home / ".codex" / "state_5.sqlite"
    write_state_db(db, [])
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"CREATE VIEW thread_spawn_edges AS {RECURSIVE_EDGES}")
        conn.commit()
    docs = every_command(isolated_home, tmp_path, show=[])
    assert_controls(docs["list"])


def test_a_slow_table_is_interrupted_after_a_few_seconds(isolated_home: Path, tmp_path: Path) -> None:
    """A real ``cursorDiskKV`` table whose ``value`` is a generated column costing ~0.05 s
    a row: its 2,000 composers would hold ``list`` for minutes; the query deadline
    gives up on the state DB instead, and the chats are listed without it, the tokens it holds not known."""
    controls(isolated_home)
    composers = [composer_data(f"c0ffee00-0000-4000-8000-{n:012d}", name=f"composer {n}") for n in range(2000)]
    db = make_state_db(state_db_path(isolated_home), composers=composers)
    # A VIRTUAL column is not stored, so the schema text can gain one afterwards (as a
    # hostile file could have it) without computing it 2,000 times here.
    slow = ("stored BLOB, value BLOB GENERATED ALWAYS AS "
            "(substr(printf('%.*c', 30000000 + 0 * length(stored), 'x'), 1, 0) || stored) VIRTUAL)")
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = replace(sql, 'value BLOB)', ?) WHERE name = 'cursorDiskKV'", (slow,))
        conn.commit()
    ran = run_cli("--home", str(isolated_home), "list", "--json", seconds=40)
    doc = ran.json()
    assert_controls(doc)
    assert any("interrupted after 5 s" in m for m in messages_for(doc["warnings"], db)), doc["warnings"]
    assert ran.seconds < 25


# -- 5. whole-file JSON: a legacy Gemini chat of a million tiny values ------------------------


def _legacy_chat(home: Path, name: str, size: int) -> Path:
    path = home / ".gemini" / "tmp" / "bad-input" / "chats" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    head = b'{"sessionId": "aaaaaaaa-0000-4000-8000-00000000bbbb", "projectHash": "x", "messages": ['
    piece = b"[]," * (1 << 20)
    with open(path, "wb") as handle:
        handle.write(head)
        written = len(head)
        while written < size:
            handle.write(piece)
            written += len(piece)
        handle.write(b"[]]}")
    return path


@pytest.mark.slow  # also in test_the_hostile_corpus_under_limits
@pytest.mark.parametrize("mib", [60, 250])
def test_a_huge_legacy_gemini_chat_is_refused_within_bounded_memory(isolated_home: Path, tmp_path: Path, mib: int) -> None:
    controls(isolated_home)
    chat = _legacy_chat(isolated_home, "session-2026-01-04T12-00-aaaaaaaa.json", mib * 1024 * 1024)
    docs = every_command(isolated_home, tmp_path, show=[])
    assert_controls(docs["list"])
    expected = "JSON values; skipped" if mib < 64 else "larger than 64 MiB"
    assert any(expected in m for m in messages_for(docs["list"]["warnings"], chat)), docs["list"]["warnings"]


# -- all of it at once: the hostile corpus ---------------------------------------------------------


def test_the_hostile_corpus_under_limits(isolated_home: Path, tmp_path: Path) -> None:
    """Every case above in one home, with the whole bad-input corpus (fixtures/bad) and a hook
    store of hostile payloads: every command, each in a child under the wall-clock and memory
    limits, exits 0 and keeps the controls whole."""
    home, data = isolated_home, Path(os.environ["AGENTSCAN_DATA_DIR"])
    lay_out(home, all_cases())
    sides = _side_file_home(home, fifo)
    for other in ("codex index", "cursor state db"):
        sides.pop(other)  # hostile in another way below
    os.unlink(home / ".codex" / "state_5.sqlite")
    _outside_index(home, tmp_path / "elsewhere")
    with closing(sqlite3.connect(home / ".codex" / "state_5.sqlite")) as conn:
        conn.execute(f"CREATE VIEW thread_spawn_edges AS {RECURSIVE_EDGES}")
        conn.commit()
    pipes = _fifo_transcripts(home, {c.id: target(home, c) for c in all_cases()})
    bomb = _bomb(home, b" ")
    os.unlink(state_db_path(home))
    _cursor_db_with(home, f"CREATE VIEW composerHeaders AS {RECURSIVE}")
    legacy = _legacy_chat(home, "session-2026-01-04T12-00-aaaaaaaa.json", 60 * 1024 * 1024)
    hostile_hook_session(data)
    docs = every_command(home, tmp_path, show=[*SHOWN, "codex:019c5555-0000-7000-8000-0000000000b0"])
    for name, args in (("trace", ["trace", BAD_HOOK_SESSION, "--json"]), ("trace text", ["trace", BAD_HOOK_SESSION])):
        ran = run_cli("--home", str(home), *args)
        assert ran.returncode == 0, (name, ran.stderr)
    for fmt in ("csv", "sqlite"):
        run_cli("--home", str(home), "export", "-f", fmt, "-o", str(tmp_path / f"out.{fmt}"), "--json").json()
    # More sessions than `list` shows (25): the export has them all.
    exported = [orjson.loads(line) for line in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert_controls({"sessions": exported, "warnings": docs["export"]["warnings"]}, SUBAGENT_TOKENS)
    warned = {w["path"] for doc in docs.values() for w in doc["warnings"]}
    expected = [*sides.values(), *pipes, bomb, legacy, home / ".codex" / "state_5.sqlite"]
    assert not [str(path) for path in expected if str(path) not in warned], warned
    for doc in docs.values():
        assert no_internal_errors(doc["warnings"]), doc["warnings"]
