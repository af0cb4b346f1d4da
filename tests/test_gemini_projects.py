"""Gemini roots, env overrides, and recovering the cwd of a project dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentscan.scan.listing import ListFilter
from agentscan.scan.scanner import Scanner
from agentscan.context import ScanContext
from agentscan.providers.gemini.provider import GeminiProvider
from builders import write_jsonl
from gemini_builders import gemini, meta, sha256_hex, tokens, user, write_chat, write_claude_transcript

S1 = "11111111-aaaa-4bbb-8ccc-000000000001"
S2 = "22222222-aaaa-4bbb-8ccc-000000000002"
CHAT = "session-2026-05-01T10-00-11111111.jsonl"
CWD = "/home/dev/src/pantry"


def chat(session_id: str = S1, project_hash: str = "0" * 64) -> list[dict]:
    return [
        meta(session_id, project_hash=project_hash),
        user("u1", "2026-05-01T10:00:01.000Z", "add a shopping list"),
        gemini("g1", "2026-05-01T10:00:05.000Z", "done", usage=tokens(100, 10)),
    ]


def row_of(home: Path, *providers: str):
    scan = Scanner(home=home, provider_names=list(providers) or ["gemini"])
    rows = scan.list_sessions(filters=ListFilter(providers=("gemini",)))
    assert len(rows) == 1, rows
    return rows[0]


# -- roots --------------------------------------------------------------------


def test_default_root_is_under_the_home(isolated_home: Path) -> None:
    roots = GeminiProvider().roots(ScanContext.create(home=isolated_home, env={}))
    sessions = [r for r in roots if r.kind == "sessions"]
    assert [(r.path, r.source, r.explicit) for r in sessions] == [(isolated_home / ".gemini" / "tmp", "--home", False)]
    assert isolated_home / ".gemini" / "projects.json" in [r.path for r in roots if r.kind == "index"]


def test_gemini_cli_home_names_the_dir_that_holds_dot_gemini(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "cli-home"
    write_chat(elsewhere, "proj", CHAT, chat(S1))
    write_chat(isolated_home, "proj", CHAT.replace("11111111", "22222222"), chat(S2))  # not read any more
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))
    scan = Scanner(home=isolated_home, provider_names=["gemini"])
    assert [ref.native_id for ref in scan.refs()] == [S1]
    root = next(r for r in GeminiProvider().roots(scan.ctx) if r.kind == "sessions")
    assert (root.path, root.source, root.explicit) == (elsewhere / ".gemini" / "tmp", "GEMINI_CLI_HOME", True)


def test_gemini_data_dir_names_tmp_dirs_directly(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a" / "tmp", tmp_path / "b" / "tmp"
    write_jsonl(first / "proj" / "chats" / CHAT, chat(S1))
    write_jsonl(second / "proj2" / "chats" / CHAT, chat(S2))
    write_chat(isolated_home, "proj", CHAT.replace("11111111", "33333333"), chat("not-read"))
    monkeypatch.setenv("GEMINI_DATA_DIR", f"{first},{second}")
    scan = Scanner(home=isolated_home, provider_names=["gemini"])
    assert sorted(ref.native_id for ref in scan.refs()) == [S1, S2]
    roots = [r for r in GeminiProvider().roots(scan.ctx) if r.kind == "sessions"]
    assert [(r.path, r.source) for r in roots] == [(first, "GEMINI_DATA_DIR"), (second, "GEMINI_DATA_DIR")]


def test_env_paths_with_tilde_use_the_scan_home(isolated_home: Path) -> None:
    ctx = ScanContext.create(home=isolated_home, env={"GEMINI_CLI_HOME": "~/alt"})
    root = next(r for r in GeminiProvider().roots(ctx) if r.kind == "sessions")
    assert root.path == isolated_home / "alt" / ".gemini" / "tmp"


# -- cwd ----------------------------------------------------------------------


def test_cwd_from_project_root_marker(isolated_home: Path) -> None:
    path = write_chat(isolated_home, "pantry", CHAT, chat())
    (path.parent.parent / ".project_root").write_text(CWD)
    assert row_of(isolated_home).cwd == CWD


def test_cwd_from_projects_json_slug(isolated_home: Path) -> None:
    write_chat(isolated_home, "pantry-1", CHAT, chat())
    (isolated_home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {"/elsewhere/pantry": "pantry", CWD: "pantry-1"}}))
    assert row_of(isolated_home).cwd == CWD


def test_hash_dir_resolved_through_projects_json(isolated_home: Path) -> None:
    write_chat(isolated_home, sha256_hex(CWD), CHAT, chat(project_hash=sha256_hex(CWD)))
    # A registry that also lists the old hash dir's root under a new slug.
    (isolated_home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {CWD: "pantry"}}))
    assert row_of(isolated_home).cwd == CWD


def test_hash_dir_resolved_through_another_providers_cwd(isolated_home: Path) -> None:
    write_chat(isolated_home, sha256_hex(CWD), CHAT, chat(project_hash=sha256_hex(CWD)))
    write_claude_transcript(isolated_home, "/home/dev/src/unrelated", "aaaaaaaa-0000-4000-8000-000000000001")
    write_claude_transcript(isolated_home, CWD, "aaaaaaaa-0000-4000-8000-000000000002")
    assert row_of(isolated_home, "claude", "gemini").cwd == CWD


def test_slug_dir_without_marker_resolved_by_the_chats_project_hash(isolated_home: Path) -> None:
    write_chat(isolated_home, "pantry", CHAT, chat(project_hash=sha256_hex(CWD)))
    write_claude_transcript(isolated_home, CWD, "aaaaaaaa-0000-4000-8000-000000000002")
    assert row_of(isolated_home, "claude", "gemini").cwd == CWD


def test_unmatched_hash_dir_has_no_cwd(isolated_home: Path) -> None:
    write_chat(isolated_home, sha256_hex(CWD), CHAT, chat(project_hash=sha256_hex(CWD)))
    write_claude_transcript(isolated_home, CWD + "-other", "aaaaaaaa-0000-4000-8000-000000000002")
    (isolated_home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {CWD + "2": "pantry2"}}))
    assert row_of(isolated_home, "claude", "gemini").cwd is None


def test_cwd_candidates_are_asked_only_for_an_unresolved_hash(isolated_home: Path) -> None:
    path = write_chat(isolated_home, "pantry", CHAT, chat())
    (path.parent.parent / ".project_root").write_text(CWD)
    write_chat(isolated_home, sha256_hex("/other"), CHAT.replace("11111111", "22222222"), chat(S2))
    calls: list[int] = []
    ctx = ScanContext.create(home=isolated_home, env={})
    ctx.cwd_candidates = lambda: calls.append(1) or {"/other"}  # type: ignore[assignment]
    provider = GeminiProvider()
    refs = {ref.native_id: ref for ref in provider.discover(ctx)}
    assert provider.row(refs[S1], ctx).cwd == CWD
    assert calls == []
    assert provider.row(refs[S2], ctx).cwd == "/other"
    provider.row(refs[S2], ctx)
    assert calls == [1]  # asked once per scan


def test_known_cwds_come_only_from_gemini_own_records(isolated_home: Path) -> None:
    path = write_chat(isolated_home, "pantry", CHAT, chat())
    (path.parent.parent / ".project_root").write_text(CWD + "\n")
    (isolated_home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {"/home/dev/src/atlas": "atlas"}}))
    ctx = ScanContext.create(home=isolated_home, env={})

    def forbidden() -> set[str]:
        raise AssertionError("known_cwds must not ask for cwd candidates")

    ctx.cwd_candidates = forbidden  # type: ignore[assignment]
    assert GeminiProvider().known_cwds(ctx) == {CWD, "/home/dev/src/atlas"}
