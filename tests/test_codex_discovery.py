"""Finding Codex rollouts: roots, copies of one thread, .zst, identity."""

from __future__ import annotations

from pathlib import Path

from agentscan.scan.scanner import Scanner
from agentscan.context import ScanContext
from agentscan.providers.codex.provider import CodexProvider
from agentscan.scan.tokens import token_report
from codex_builders import (
    Calls,
    at,
    meta,
    rollout_path,
    turn_context,
    user_message,
    write_rollout,
)

A = "019c1111-0000-7000-8000-00000000000a"
B = "019c1111-0000-7000-8000-00000000000b"


def _session(codex: Path, thread: str, *, title: str, calls: list[tuple[int, int, int]] = (), start: float = 0, **where) -> Path:
    counter = Calls()
    lines = [meta(thread, at(start)), turn_context(at(start + 1)), user_message(at(start + 1), title)]
    lines += [counter.call(at(start + 10 + i), *call) for i, call in enumerate(calls)]
    return write_rollout(rollout_path(codex, thread, at(start), **where), lines)


def _rows(home: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    scanner = Scanner(home=home, env=env or {}, provider_names=["codex"])
    return {row.native_id: row for row in scanner.list_sessions()}


def test_default_roots_and_database(isolated_home: Path) -> None:
    ctx = ScanContext.create(home=isolated_home, env={})
    roots = CodexProvider().roots(ctx)
    assert [(r.path, r.kind, r.source, r.explicit) for r in roots] == [
        (isolated_home / ".codex" / "sessions", "sessions", "--home", False),
        (isolated_home / ".codex" / "archived_sessions", "sessions", "--home", False),
        (isolated_home / ".codex" / "state_*.sqlite", "database", "--home", False),
    ]
    assert f"no state_*.sqlite in {isolated_home / '.codex'}" in (roots[2].note or "")


def test_the_active_copy_beats_the_archived_one(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    active = _session(codex, A, title="active copy", calls=[(100, 0, 10)])
    _session(codex, A, title="archived copy", calls=[(100, 0, 10), (200, 0, 20)], archived=True)
    _session(codex, B, title="only archived", archived=True)
    rows = _rows(isolated_home)
    assert set(rows) == {A, B}
    assert rows[A].path == str(active) and rows[A].title == "active copy"
    assert rows[A].tokens.total == 110  # the archived copy is not counted again
    report = token_report(Scanner(home=isolated_home, env={}, provider_names=["codex"]))
    assert report.total.total == 110


def test_zst_rollouts_are_read_and_the_plain_copy_wins(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _session(codex, A, title="compressed", calls=[(1000, 400, 50), (1500, 1000, 70)], compressed=True)
    _session(codex, B, title="plain", calls=[(10, 0, 1)])
    zst = _session(codex, B, title="stale compressed copy", calls=[(10, 0, 1), (99, 0, 9)], compressed=True)
    rows = _rows(isolated_home)
    assert rows[A].path.endswith(".jsonl.zst") and rows[A].title == "compressed"
    # (1000-400)+(1500-1000)=1100 input, 1400 cached, 120 output
    assert (rows[A].tokens.input, rows[A].tokens.cache_read, rows[A].tokens.output) == (1100, 1400, 120)
    assert rows[A].counts.prompts == 1
    assert rows[B].title == "plain" and rows[B].path.endswith(".jsonl")
    scanner = Scanner(home=isolated_home, env={}, provider_names=["codex"])
    totals = {row.key: row.tokens.total for row in token_report(scanner).rows}
    assert totals == {f"codex:{A}": 1100 + 1400 + 120, f"codex:{B}": 11}
    detail = scanner.show(A)
    assert [p.text for p in detail.prompts] == ["compressed"]
    # The two copies of B differ (neither begins with the other): the plain one counts, the
    # other is said (pass 46: docs/providers/codex.md, "Copies of one thread").
    assert [(w.path, w.message.split(":")[0]) for w in scanner.warnings] == [
        (str(zst), "differs from another copy of its thread, which is counted instead")]


def test_old_flat_layout(isolated_home: Path) -> None:
    _session(isolated_home / ".codex", A, title="flat", flat=True)
    assert _rows(isolated_home)[A].title == "flat"


def test_relative_codex_home_is_ignored_with_a_warning(isolated_home: Path) -> None:
    _session(isolated_home / ".codex", A, title="in the default home")
    _session(isolated_home / "rel", B, title="in the relative dir")
    scanner = Scanner(home=isolated_home, env={"CODEX_HOME": "rel"}, provider_names=["codex"])
    assert [row.native_id for row in scanner.list_sessions()] == [A]
    assert any(w.path == "rel" and "relative" in w.message for w in scanner.warnings)
    roots = CodexProvider().roots(scanner.ctx)
    assert roots[0].path == isolated_home / ".codex" / "sessions" and not roots[0].explicit
    assert all("CODEX_HOME entry 'rel' ignored" in (root.note or "") for root in roots)


def test_codex_home_list_keeps_its_absolute_entries(isolated_home: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "c1", tmp_path / "c2"
    _session(first, A, title="first home")
    _session(second, B, title="second home", start=60)
    _session(isolated_home / ".codex", "019c1111-0000-7000-8000-0000000000cc", title="default home: replaced")
    env = {"CODEX_HOME": f"{first}, relative/dir ,{second}"}
    scanner = Scanner(home=isolated_home, env=env, provider_names=["codex"])
    assert {row.native_id for row in scanner.list_sessions()} == {A, B}
    roots = CodexProvider().roots(scanner.ctx)
    sessions = [r for r in roots if r.kind == "sessions"]
    assert [r.path for r in sessions] == [first / "sessions", first / "archived_sessions", second / "sessions", second / "archived_sessions"]
    assert all(r.source == "CODEX_HOME" and r.explicit for r in sessions)
    assert [w.path for w in scanner.warnings] == ["relative/dir"]


def test_codex_sqlite_home_moves_only_the_database(isolated_home: Path, tmp_path: Path) -> None:
    ctx = ScanContext.create(home=isolated_home, env={"CODEX_SQLITE_HOME": str(tmp_path / "db")})
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "state_4.sqlite").write_bytes(b"")
    (tmp_path / "db" / "state_12.sqlite").write_bytes(b"")
    roots = CodexProvider().roots(ctx)
    database = [r for r in roots if r.kind == "database"]
    assert [(r.path, r.source) for r in database] == [(tmp_path / "db" / "state_12.sqlite", "CODEX_SQLITE_HOME")]
    assert roots[0].path == isolated_home / ".codex" / "sessions"


def test_identity_is_the_meta_matching_the_file_name(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    parent_meta = meta(B, at(-500), cwd="/elsewhere/parent", branch="parent-branch")
    # A fork's file starts with its own meta; make the parent's copy come first
    # to prove the choice is by id, not by position.
    write_rollout(
        rollout_path(codex, A, at(0)),
        [parent_meta, meta(A, at(0), cwd="/work/fork", branch="fork-branch", forked_from=B), user_message(at(1), "go")],
    )
    row = _rows(isolated_home)[A]
    assert (row.cwd, row.git_branch) == ("/work/fork", "fork-branch")
    assert row.started_at == at(0)


def test_a_file_name_without_uuid_uses_its_session_meta(isolated_home: Path) -> None:
    path = isolated_home / ".codex" / "sessions" / "2026" / "03" / "02" / "rollout-custom-name.jsonl"
    write_rollout(path, [meta(A, at(0)), user_message(at(1), "named oddly")])
    (isolated_home / ".codex" / "sessions" / "rollout-empty.jsonl").write_bytes(b"")
    scanner = Scanner(home=isolated_home, env={}, provider_names=["codex"])
    rows = {row.native_id: row for row in scanner.list_sessions()}
    assert set(rows) == {A} and rows[A].title == "named oddly"
    assert [w.message for w in scanner.warnings if w.path.endswith("rollout-empty.jsonl")] == ["empty file"]


def test_known_cwds_come_from_metas(isolated_home: Path) -> None:
    _session(isolated_home / ".codex", A, title="x")
    ctx = ScanContext.create(home=isolated_home, env={})
    assert CodexProvider().known_cwds(ctx) == {"/work/project"}


def test_resolve_by_prefix_and_bad_lines_are_warnings(isolated_home: Path) -> None:
    path = _session(isolated_home / ".codex", A, title="with a bad line", calls=[(10, 0, 1)])
    with open(path, "ab") as handle:
        handle.write(b"{not json\n")
        handle.write(b'{"timestamp":"2026-03-02T09:10:00.000Z","type":"event_msg","payload":{"type":"agent_message","mess')
    scanner = Scanner(home=isolated_home, env={}, provider_names=["codex"])
    detail = scanner.show(A[:8])
    assert detail.row.native_id == A
    messages = sorted((w.line, w.message.split(":")[0]) for w in scanner.warnings)
    assert messages == [(5, "invalid JSON skipped"), (6, "truncated last line skipped (file still being written?)")]
