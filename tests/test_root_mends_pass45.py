"""Mends of the named-root checks (``scan.rootcheck``): an entry of a comma-separated provider
variable that is a file is said to be one, once, and not looked into; the error of a single such
entry says so; a setting read whole (``CURSOR_STATE_DB``) is no list, and its provider alone
warns of it; ``doctor`` says a root's problem in ``toolkit.paths.root_problem``'s words."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest

from builders import claude_session_file, claude_user, cli_json, invoke
from codex_builders import lay_out_real_codex
from cursor_builders import user, write_transcript
from gemini_builders import lay_out_real_gemini

NATIVE = "7d1e5c3b-2a4f-4b6c-8d9e-0f1a2b3c4d5e"
COMPOSER = "5b2c8e1d-0f3a-4c6b-9d7e-1a2b3c4d5e6f"
SRC = Path(__file__).resolve().parents[1] / "src" / "agentscan"


def _a_file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("q\n")
    return path


def _good(setting: str, home: Path) -> tuple[Path, str]:
    if setting == "CLAUDE_CONFIG_DIR":
        claude_session_file(home, NATIVE, [claude_user(NATIVE, "2026-11-01T10:00:00Z", "hello", cwd="/w")])
        return home / ".claude", "claude"
    if setting == "CODEX_HOME":
        lay_out_real_codex(home)
        return home / ".codex", "codex"
    if setting == "CURSOR_CONFIG_DIR":
        write_transcript(home, "p", COMPOSER, [user("cli only")])
        return home / ".cursor", "cursor"
    return lay_out_real_gemini(home), "gemini"


@pytest.mark.parametrize("setting", ["CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_DATA_DIR", "CURSOR_CONFIG_DIR"])
def test_a_list_entry_that_is_a_file_is_said_once(isolated_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    good, provider = _good(setting, isolated_home)
    afile = _a_file(tmp_path / "rk" / "afile")
    monkeypatch.setenv(setting, f"{good},{afile}")
    # a first run (nothing indexed), a warm one, and remembered answers: the same one line
    for command in ("list", "list", "tokens", "tokens"):
        result = invoke(command, "-p", provider)
        assert result.exit_code == 0, result.stderr
        said = [line for line in result.stderr.splitlines() if str(afile) in line]
        assert said == [f"warning: {afile}: a file, not a directory (named by {setting}); skipped"], command
    # doctor's discoveries, one a provider, do not look into it either
    (report,) = [report for report in cli_json("doctor")["providers"] if report["provider"] == provider]
    assert not [kind for kind in report["warnings"] if "cannot list" in kind or kind.startswith("not a directory")]


@pytest.mark.parametrize("setting, provider", [("CODEX_HOME", "codex"), ("CLAUDE_CONFIG_DIR", "claude"),
                                               ("GEMINI_CLI_HOME", "gemini")])
def test_a_single_entry_that_is_a_file_fails_saying_so(isolated_home: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch, setting: str, provider: str) -> None:
    afile = _a_file(tmp_path / "rk" / "afile")
    monkeypatch.setenv(setting, str(afile))
    result = invoke("list", "-p", provider)
    assert result.exit_code == 1
    # (pass 60: by its display name, ``Codex CLI``, as sentences name it)
    from agentscan.providers import label_of

    assert result.stderr == (f"error: {label_of(provider)}: no readable root among {afile} ({setting}: a file, not a directory); "
                             f"fix or unset {setting}\n")


def test_entry_problem_is_only_for_an_entry_that_is_no_folder(tmp_path: Path) -> None:
    from agentscan.toolkit.roots import Root, entry_problem

    afile, folder = _a_file(tmp_path / "afile"), tmp_path / "folder"
    folder.mkdir()
    assert entry_problem(Root("codex", afile / "sessions", "CODEX_HOME", explicit=True, entry=afile)) == (
        "a file, not a directory")
    assert entry_problem(Root("codex", folder / "sessions", "CODEX_HOME", explicit=True, entry=folder)) is None
    assert entry_problem(Root("codex", tmp_path / "nope" / "sessions", "CODEX_HOME", explicit=True,
                              entry=tmp_path / "nope")) is None  # missing: said as missing
    assert entry_problem(Root("gemini", afile, "GEMINI_DATA_DIR", explicit=True, entry=afile)) is None  # the root itself


def test_a_missing_cursor_state_db_is_warned_once(isolated_home: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``CURSOR_STATE_DB`` names one file, never a list: the provider's own warning says it."""
    write_transcript(isolated_home, "p", COMPOSER, [user("cli only")])
    missing = tmp_path / "rk" / "nope.vscdb"
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(isolated_home / ".cursor"))
    monkeypatch.setenv("CURSOR_STATE_DB", str(missing))
    result = invoke("list", "-p", "cursor")
    assert result.exit_code == 0
    said = [line for line in result.stderr.splitlines() if str(missing) in line]
    assert len(said) == 1 and "named by" not in said[0], said


def test_the_settings_read_whole_are_the_ones_called_so() -> None:
    """``WHOLE_SETTINGS`` (no list: no missing-entry warning) agrees with the calls of
    ``setting_paths(..., listed=False)``; a constant name is followed to its value."""
    from agentscan.toolkit.roots import WHOLE_SETTINGS

    whole: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        for name in re.findall(r"setting_paths\(ctx, ([A-Za-z_\"]+), listed=False\)", text):
            if name.startswith('"'):
                whole.add(name.strip('"'))
            else:
                (value,) = re.findall(rf"^{name} = \"(\w+)\"", text, re.M)
                whole.add(value)
    assert whole == set(WHOLE_SETTINGS)


def test_the_root_checks_live_in_rootcheck() -> None:
    """Root policy is not the scanner's (scan/rootcheck.py)."""
    from agentscan.scan import rootcheck
    from agentscan.scan.scanner import Scanner

    assert callable(rootcheck.warn_missing_entries) and callable(rootcheck.unreadable_explicit)
    assert not hasattr(Scanner, "_warn_missing_entries") and not hasattr(Scanner, "_unreadable_explicit")
    assert "root_problem" not in (SRC / "scan" / "scanner.py").read_text()


def test_doctor_says_root_problem_s_words(tmp_path: Path) -> None:
    """One rule, one wording: doctor's check is ``root_problem``'s, but for doctor's own cases."""
    from agentscan.scan.doctor import _check
    from agentscan.toolkit.paths import root_problem

    folder, afile, fifo = tmp_path / "d", _a_file(tmp_path / "f"), tmp_path / "fifo"
    folder.mkdir()
    os.mkfifo(fifo)
    for path, kind in [(folder, "sessions"), (afile, "sessions"), (folder, "database"), (afile, "database"),
                       (fifo, "sessions"), (fifo, "database"), (fifo, "index"), (folder, "index")]:
        assert _check(path, kind) == (True, root_problem(path, kind) is None, root_problem(path, kind)), (path, kind)
    assert _check(afile, "sessions")[2] == "a file, not a directory"
    assert _check(folder, "database")[2] == "a directory, not a file"
    assert _check(tmp_path / "nope", "sessions") == (False, False, "does not exist")
    # ``_check`` is of the path alone: the report says the entry a root lies under when that is a
    # file ("afile: a file, not a directory", as the warning: tests/test_root_last_pass45.py).
    assert _check(afile / "below", "sessions") == (False, False, "does not exist")


def test_doctor_json_names_the_wrong_kind_in_the_same_words(isolated_home: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    afile = _a_file(tmp_path / "gtmp")
    monkeypatch.setenv("GEMINI_DATA_DIR", str(afile))
    (report,) = [r for r in orjson.loads(invoke("doctor", "--json").stdout)["providers"] if r["provider"] == "gemini"]
    (root,) = [root for root in report["roots"] if root["kind"] == "sessions"]
    assert (root["exists"], root["readable"], root["problem"]) == (True, False, "a file, not a directory")
