"""A Gemini chat in a hash-named project dir asks the other providers for their sessions'
cwds (``ScanContext.cwd_candidates``): what their discovery warns about (a Codex thread
index row naming a file outside CODEX_HOME) is theirs, not the Gemini command's.  A
``--strict list -p gemini`` in a cron job must not fail over a Codex database; an
unfiltered ``list`` still says it, once, cold or warm (docs/cli.md: "A filtered list …
reports only the warnings of the sessions it lists")."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan.scanner import Scanner
from codex_builders import Calls, at, index_row, meta as codex_meta, rollout_path, turn_context, user_message, \
    write_rollout, write_state_db
from gemini_builders import gemini, hash_named_chat, meta, sha256_hex, tokens, user, write_chat

runner = CliRunner()

#: the Codex discovery's warning (``providers.codex.discovery``)
OUTSIDE = "thread index rows point outside CODEX_HOME"
#: a cwd only a Codex session names: the Gemini chat in its hash dir borrows it
BORROWED = "/work/borrowed"
#: the Gemini chat whose cwd Codex reveals
REVEALED = "22222222-3333-4444-8555-666666666666"
CODEX_THREAD = "019c3232-0000-7000-8000-00000000000a"
STRAY_THREAD = "019c3232-0000-7000-8000-00000000000b"


def run(*argv: str) -> tuple[int, str]:
    result = runner.invoke(app, list(argv))
    return result.exit_code, result.stdout + result.stderr


def listed(*argv: str) -> dict:
    result = runner.invoke(app, [*argv, "--json"])
    assert result.exit_code == 0, result.stdout + result.stderr
    return orjson.loads(result.stdout)


def outside_warnings(document: dict) -> list[dict]:
    return [warning for warning in document["warnings"] if OUTSIDE in warning["message"]]


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """A Codex session in ``BORROWED`` and a thread index with a row naming ``/etc/passwd``;
    a Gemini chat in ``BORROWED``'s hash dir, and one in a hash dir no provider names (its
    cwd stays unknown: warm runs ask the other providers again)."""
    codex = isolated_home / ".codex"
    calls = Calls()
    write_rollout(rollout_path(codex, CODEX_THREAD, at(0)),
                  [codex_meta(CODEX_THREAD, at(0), cwd=BORROWED), turn_context(at(1), cwd=BORROWED),
                   user_message(at(1), "codex work"), calls.call(at(5), 100, 0, 10)],
                  mtime=at(5).timestamp())
    write_state_db(codex / "state_5.sqlite", [index_row(STRAY_THREAD, Path("/etc/passwd"), created=at(0), updated=at(5))])
    project = sha256_hex(BORROWED)
    write_chat(isolated_home, project, "session-2026-05-02T10-00-22222222.jsonl",
               [meta(REVEALED, project_hash=project, start="2026-05-02T10:00:00.000Z"),
                user("u1", "2026-05-02T10:00:00.000Z", "gemini work"),
                gemini("g1", "2026-05-02T10:00:01.000Z", "ok", usage=tokens(10, 5))], mtime=1_777_100_000)
    hash_named_chat(isolated_home, "/work/nowhere")
    return isolated_home


def test_the_codex_home_warns_of_its_own(home: Path) -> None:
    """The premise: Codex's own list says it (else nothing here would be tested)."""
    code, out = run("--strict", "list", "-p", "codex")
    assert code == 1 and OUTSIDE in out


@pytest.mark.parametrize("no_cache", [[], ["--no-cache"]], ids=["index", "no-cache"])
def test_a_gemini_list_says_no_codex_warning_cold_or_warm(home: Path, no_cache: list[str]) -> None:
    for _ in range(3):  # cold, warm, warm again (a remembered answer)
        code, out = run(*no_cache, "--strict", "list", "-p", "gemini")
        assert code == 0 and OUTSIDE not in out, out
        document = listed(*no_cache, "list", "-p", "gemini")
        assert document["warnings"] == []
        cwds = {row["id"]: row["cwd"] for row in document["sessions"]}
        assert cwds[f"gemini:{REVEALED}"] == BORROWED  # still borrowed from the Codex session
        assert None in cwds.values()  # the chat no provider names: the others asked again


def test_a_gemini_list_by_cwd_says_no_codex_warning(home: Path) -> None:
    for _ in range(2):
        code, out = run("--strict", "list", "-p", "gemini", "--cwd", BORROWED)
        assert code == 0 and OUTSIDE not in out and REVEALED[:8] in out, out


def test_show_of_a_gemini_session_says_no_codex_warning(home: Path) -> None:
    # ``gemini:``: an id alone, not in the id index yet, is looked for among every
    # provider's sessions, whose discovery warns of its own (the id could be Codex's).
    for query in (f"gemini:{REVEALED[:8]}", "gemini:11111111"):  # cwd borrowed, cwd unknown
        for _ in range(2):
            code, out = run("--strict", "show", query)
            assert code == 0 and OUTSIDE not in out, out


def test_show_by_an_indexed_id_says_no_codex_warning(home: Path) -> None:
    assert run("list", "-p", "gemini")[0] == 0  # the ids a cron job's list gave (a prefix
    # alone is looked for among every provider's sessions: an id the index has is not)
    for query in (REVEALED, "11111111-2222-4333-8444-555555555555"):
        for _ in range(2):
            code, out = run("--strict", "show", query)
            assert code == 0 and OUTSIDE not in out, out


def test_a_gemini_export_and_tokens_say_no_codex_warning(home: Path, tmp_path: Path) -> None:
    for _ in range(2):
        code, out = run("--strict", "export", "-f", "jsonl", "-p", "gemini", "-o", str(tmp_path / "out.jsonl"))
        assert code == 0 and OUTSIDE not in out, out
        code, out = run("--strict", "tokens", "-p", "gemini")
        assert code == 0 and OUTSIDE not in out, out


def test_the_library_s_gemini_scanner_has_no_codex_warning(home: Path) -> None:
    with Scanner(provider_names=["gemini"]) as scanner:
        rows = scanner.list_sessions()
        assert {row.cwd for row in rows} == {BORROWED, None}
        assert scanner.warnings == []


def test_an_unfiltered_list_says_the_codex_warning_once_cold_and_warm(home: Path) -> None:
    for _ in range(3):
        document = listed("list")
        assert len(outside_warnings(document)) == 1, document["warnings"]
        code, out = run("--strict", "list")
        assert code == 1 and out.count(OUTSIDE) == 1, out


def test_a_gemini_row_read_by_an_unfiltered_list_keeps_no_codex_warning(home: Path) -> None:
    """The unfiltered run reads the Gemini rows and keeps them: a Codex warning said inside
    their pass would be kept with them, and said again by every warm ``list -p gemini``."""
    assert len(outside_warnings(listed("list"))) == 1
    assert listed("list", "-p", "gemini")["warnings"] == []
    code, out = run("--strict", "list", "-p", "gemini")
    assert code == 0, out
    assert len(outside_warnings(listed("list"))) == 1  # and the unfiltered one still says it


def test_a_gemini_project_marker_read_while_borrowing_still_warns(home: Path) -> None:
    """Gemini's own ``known_cwds`` reads every project's ``.project_root`` while the others'
    warnings are held back: an unreadable one is still said, by the row whose cwd it decides."""
    write_chat(home, "older", "session-2026-04-01T10-00-33333333.jsonl",
               [meta("33333333-4444-4555-8666-777777777777", start="2026-04-01T10:00:00.000Z"),
                user("u1", "2026-04-01T10:00:00.000Z", "older work"),
                gemini("g1", "2026-04-01T10:00:01.000Z", "ok", usage=tokens(1, 1))], mtime=1_770_000_000)
    (home / ".gemini" / "tmp" / "older" / ".project_root").mkdir()  # not a file: cannot be read
    for _ in range(2):
        warnings = listed("list", "-p", "gemini")["warnings"]
        assert [warning["path"] for warning in warnings] == [str(home / ".gemini" / "tmp" / "older" / ".project_root")]


def test_what_a_borrowed_read_could_not_read_this_time_is_still_said(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``passing`` warning (a folder not listed, a database busy) may have hidden the cwd:
    the Gemini row must not be kept as if it were whole, and the command says why, when it
    asked for the provider that could not be read (pass 53: of one it did not ask for, a
    ``list -p gemini`` says nothing and ``--strict`` passes: test_borrowed_cursor_lock_pass53)."""
    from agentscan.providers.claude.provider import ClaudeProvider

    def known_cwds(self: ClaudeProvider, ctx, *, brief: bool = False) -> set[str]:  # noqa: ANN001
        ctx.warn(home / ".claude" / "projects", "cannot list directory: Resource temporarily unavailable", passing=True)
        return set()

    monkeypatch.setattr(ClaudeProvider, "known_cwds", known_cwds)
    for _ in range(2):  # said again: nothing was kept from the first run
        warnings = listed("list", "-p", "gemini,claude")["warnings"]
        assert [warning["message"] for warning in warnings] == ["cannot list directory: Resource temporarily unavailable"]
    assert listed("--strict", "list", "-p", "gemini")["warnings"] == []
