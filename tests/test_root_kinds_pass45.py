"""A root named by a variable that is the wrong kind of path (a file where a sessions folder is
expected, a folder where a database file is) fails the run as a missing one does: a cron
export must not replace a good file with an empty one.  ``doctor`` says what is wrong with
it, and an entry of a comma-separated list that does not exist is a warning (``--strict``)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_session_file, claude_user, cli_json, invoke
from codex_builders import lay_out_real_codex
from cursor_builders import user, write_transcript
from gemini_builders import lay_out_real_gemini

NATIVE = "7d1e5c3b-2a4f-4b6c-8d9e-0f1a2b3c4d5e"
COMPOSER = "5b2c8e1d-0f3a-4c6b-9d7e-1a2b3c4d5e6f"


def _a_file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("q\n")
    return path


def test_root_problem_knows_the_kind(tmp_path: Path) -> None:
    from agentscan.toolkit.paths import MISSING, root_problem

    folder, file = tmp_path / "d", _a_file(tmp_path / "f")
    folder.mkdir()
    assert root_problem(folder, "sessions") is None and root_problem(file, "database") is None
    assert root_problem(file, "sessions") == "a file, not a directory"
    assert root_problem(folder, "database") == "a directory, not a file"
    assert root_problem(tmp_path / "nope", "sessions") == MISSING
    assert root_problem(file / "below", "sessions") == MISSING  # under a file: not there either
    # an index (Cursor's chats/, Gemini's projects.json) may be either
    assert root_problem(folder, "index") is None and root_problem(file, "index") is None


def test_a_gemini_data_dir_that_is_a_file_fails_the_export_and_keeps_the_old_one(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lay_out_real_gemini(isolated_home)
    out = tmp_path / "gem.jsonl"
    assert invoke("export", "-p", "gemini", "-f", "jsonl", "-o", str(out)).exit_code == 0
    kept = out.read_bytes()
    assert kept.count(b"\n") == 3
    broken = _a_file(tmp_path / "broken3" / "gtmp")
    monkeypatch.setenv("GEMINI_DATA_DIR", str(broken))
    result = invoke("export", "-p", "gemini", "-f", "jsonl", "-o", str(out))
    assert result.exit_code == 1
    assert out.read_bytes() == kept
    assert result.stderr == (f"error: Gemini CLI: no readable root among {broken} (GEMINI_DATA_DIR: a file, not a "
                             "directory); fix or unset GEMINI_DATA_DIR\n")


@pytest.mark.parametrize("setting", ["CODEX_HOME", "CLAUDE_CONFIG_DIR"])
def test_a_named_home_whose_sessions_folder_is_a_file_fails(isolated_home: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    named = tmp_path / "named"
    wrong = _a_file(named / ("sessions" if setting == "CODEX_HOME" else "projects"))
    monkeypatch.setenv(setting, str(named))
    provider = "codex" if setting == "CODEX_HOME" else "claude"
    result = invoke("list", "-p", provider)
    assert result.exit_code == 1
    assert f"{wrong} ({setting}: a file, not a directory)" in result.stderr
    assert "cannot list directory" not in result.stderr  # the error says it: not a warning as well


def test_a_cursor_state_db_that_is_a_folder_fails(isolated_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``CURSOR_STATE_DB`` pointed at ``globalStorage`` instead of the file in it."""
    write_transcript(isolated_home, "p", COMPOSER, [user("cli only")])
    folder = tmp_path / "User" / "globalStorage"
    folder.mkdir(parents=True)
    monkeypatch.setenv("CURSOR_STATE_DB", str(folder))
    result = invoke("list", "-p", "cursor")
    assert result.exit_code == 1
    assert COMPOSER in result.stdout  # what could be read is still listed
    # (pass 54: the listed chat's archived state is then not known, and said: ``(archived?)``)
    assert result.stderr.splitlines() == [
        "(archived?) = whether the chat is archived is not known: Cursor's state DB could not be read this run",
        f"error: Cursor: no readable root among {folder} (CURSOR_STATE_DB: a directory, not a file); "
        "fix or unset CURSOR_STATE_DB"]


def test_a_missing_named_root_keeps_its_message(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_DATA_DIR", "/nonexistent/gemini-tmp")
    result = invoke("list", "-p", "gemini")
    assert result.exit_code == 1
    assert result.stderr == ("error: Gemini CLI: no readable root among /nonexistent/gemini-tmp (GEMINI_DATA_DIR); "
                             "fix or unset GEMINI_DATA_DIR\n")


def _doctor_roots(provider: str, *args: str) -> list[dict]:
    document = cli_json(*args, "doctor")
    (report,) = [report for report in document["providers"] if report["provider"] == provider]
    return report["roots"]


def test_doctor_says_a_sessions_root_that_is_a_file_is_not_a_directory(isolated_home: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "broken3"
    tmp = _a_file(home / ".gemini" / "tmp")
    (root, *_) = _doctor_roots("gemini", "--home", str(home))
    assert root["path"] == str(tmp)
    assert (root["exists"], root["readable"], root["problem"]) == (True, False, "a file, not a directory")
    text = invoke("--home", str(home), "doctor").stdout
    assert any(line.split()[:6] == ["sessions", "a", "file,", "not", "a", "directory"]
               for line in text.splitlines()), text
    folder = tmp_path / "globalStorage"
    folder.mkdir()
    monkeypatch.setenv("CURSOR_STATE_DB", str(folder))
    (database,) = [root for root in _doctor_roots("cursor") if root["kind"] == "database"]
    assert (database["exists"], database["readable"], database["problem"]) == (True, False, "a directory, not a file")


def _warnings(result) -> list[dict]:  # noqa: ANN001 - click's Result
    return orjson.loads(result.stdout)["warnings"]


def test_a_missing_entry_of_a_list_is_a_warning(isolated_home: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    lay_out_real_codex(isolated_home)
    mistyped = tmp_path / "nonexistent" / "codex"
    monkeypatch.setenv("CODEX_HOME", f"{isolated_home / '.codex'},{mistyped}")
    result = invoke("--strict", "list", "-p", "codex", "--json")
    assert result.exit_code == 1  # --strict catches it
    assert {"path": str(mistyped), "message": "no such file or directory (named by CODEX_HOME); skipped"} in _warnings(result)
    assert orjson.loads(result.stdout)["sessions"]  # the other entry is read
    # An entry there but holding none of the roots looked for in it says which.
    empty = tmp_path / "empty-codex"
    empty.mkdir()
    monkeypatch.setenv("CODEX_HOME", f"{isolated_home / '.codex'},{empty}")
    warned = [w for w in _warnings(invoke("list", "-p", "codex", "--json")) if w["path"] == str(empty)]
    assert warned == [{"path": str(empty), "message": "no sessions or archived_sessions in it (named by CODEX_HOME); skipped"}]


@pytest.mark.parametrize("setting", ["CLAUDE_CONFIG_DIR", "GEMINI_DATA_DIR"])
def test_each_missing_entry_is_warned_once(isolated_home: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    if setting == "CLAUDE_CONFIG_DIR":
        claude_session_file(isolated_home, NATIVE, [claude_user(NATIVE, "2026-11-01T10:00:00Z", "hello", cwd="/w")])
        good, provider = isolated_home / ".claude", "claude"
    else:
        good, provider = lay_out_real_gemini(isolated_home), "gemini"
    first, second = tmp_path / "typo-1", tmp_path / "typo-2"
    monkeypatch.setenv(setting, f"{first},{good},{second}")
    for command in ("list", "list", "tokens", "tokens"):  # said again, once, by a warm run and a remembered answer
        result = invoke(command, "-p", provider)
        assert result.exit_code == 0
        said = [line for line in result.stderr.splitlines() if "typo-" in line]
        assert said == [f"warning: {first}: no such file or directory (named by {setting}); skipped",
                        f"warning: {second}: no such file or directory (named by {setting}); skipped"], command


def test_no_warning_for_an_entry_that_holds_one_of_its_roots(isolated_home: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A Codex home with ``sessions/`` but no ``archived_sessions/`` yet is as Codex leaves it."""
    lay_out_real_codex(isolated_home)
    other = tmp_path / "other-codex"
    (other / "sessions").mkdir(parents=True)
    monkeypatch.setenv("CODEX_HOME", f"{isolated_home / '.codex'},{other}")
    result = invoke("--strict", "list", "-p", "codex", "--json")
    assert not [w for w in _warnings(result) if str(other) in w["path"] or "CODEX_HOME" in w["message"]]


def test_a_selection_is_not_told_of_another_provider_s_entries(isolated_home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    lay_out_real_codex(isolated_home)
    good = lay_out_real_gemini(isolated_home)
    monkeypatch.setenv("GEMINI_DATA_DIR", f"{good},{tmp_path / 'typo'}")
    result = invoke("list", "-p", "codex")
    assert result.exit_code == 0 and "typo" not in result.stderr


def test_a_named_folder_that_cannot_be_listed_says_why(isolated_home: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from builders import deny_access

    folder = tmp_path / "gemini-tmp"
    folder.mkdir()
    deny_access(monkeypatch, folder)
    monkeypatch.setenv("GEMINI_DATA_DIR", str(folder))
    result = invoke("list", "-p", "gemini")
    assert result.exit_code == 1
    assert result.stderr == (f"error: Gemini CLI: no readable root among {folder} (GEMINI_DATA_DIR: cannot be listed: "
                             "Permission denied); fix or unset GEMINI_DATA_DIR\n")
