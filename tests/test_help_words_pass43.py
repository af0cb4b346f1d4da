"""Words in ``--help`` and hints that said less than the commands do (pass 43).

``trace --help`` listed ``--home`` and ``--no-cache``, which change nothing for it; ``--since``'s
help named two of its five forms; ``hooks install --dry-run`` printed a bare diff; ``hooks
status`` and ``doctor`` suggested installs for Claude Code and Cursor only, without a word
for the Codex or Gemini sessions the home held.
"""

from __future__ import annotations

import orjson

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.doctor_text import HOOKS_OPTIONAL
from builders import invoke
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, user_message, write_rollout

runner = CliRunner()
CODEX_ID = "019a0000-0000-7000-8000-00000000abcd"
UNHOOKED = "  Codex CLI: no hooks to install (its sessions are read from its files)"


def _help(*argv: str, width: int = 80) -> str:
    result = runner.invoke(app, [*argv, "--help"], terminal_width=width)
    assert result.exit_code == 0, result.output
    return result.stdout


def _codex_session(home: Path) -> None:
    write_rollout(rollout_path(home / ".codex", CODEX_ID, at(0)), [
        meta(CODEX_ID, at(0)),
        turn_context(at(1), model="gpt-5-codex"),
        user_message(at(1), "hi"),
        token_count(at(10), usage(1000, 200, 50), usage(1000, 200, 50)),
    ])


# --- trace's global options ---------------------------------------------------------------------

def test_trace_help_lists_only_the_global_options_that_change_what_it_does() -> None:
    text = _help("trace", width=200)
    options = [line.split()[0].rstrip(",") for line in text.splitlines() if line.startswith("  -")]
    assert options == ["--list", "--redact", "--last", "--turn", "--json", "--demo", "--strict", "-v", "-q", "-h"]
    assert "  --demo         Read the demo's own hook events, shipped with agentscan.\n" in text
    assert "  --strict       Exit 1 on any warning, such as a bad line in the events store.\n" in text
    assert "instead of $HOME" not in text and "cache" not in text


def test_trace_still_takes_home_and_no_cache_and_says_home_does_not_apply(isolated_home: Path) -> None:
    result = invoke("trace", "--list", "--home", str(isolated_home), "--no-cache")
    assert result.exit_code == 0, result.output
    assert "note: --home does not apply to trace" in result.stderr


@pytest.mark.parametrize("command", ["otlp", "prices"])
def test_otlp_and_prices_still_list_every_global_option(command: str) -> None:
    # Both read the home's sessions (prices: without MODEL), through the cache, and warn.
    text = _help(command, width=200)
    for flag in ("--home DIR", "--demo", "--no-cache", "--strict", "--verbose", "--quiet"):
        assert flag in text, flag


# --- --since's forms ----------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["list", "export", "otlp"])
def test_since_help_names_weeks_and_months_and_fits_80_columns(command: str) -> None:
    text = _help(command)
    since = " ".join(text.split("--since WHEN", 1)[1].split("\n  -", 1)[0].split())
    assert since == ("Only sessions updated since WHEN: a date (2026-11-01 or 20261101, today, yesterday), a week or "
                     "month (2026-W49, 2026-11), an ISO time, or a duration (3d, 12h).")
    assert max(map(len, text.splitlines())) <= 80


def test_every_form_since_help_names_is_taken() -> None:
    from agentscan.whentext import parse_when

    for when in ("2026-11-01", "20261101", "today", "yesterday", "2026-W49", "2026-11", "2026-11-01T09:30:00", "3d", "12h"):
        assert parse_when(when) is not None, when


# --- hooks install/uninstall --dry-run ----------------------------------------------------------

def test_dry_run_says_what_its_diff_amounts_to_on_stderr(isolated_home: Path) -> None:
    settings = isolated_home / ".claude" / "settings.json"
    result = invoke("hooks", "install", "claude", "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("--- /dev/null\n+++ ")  # the diff alone, for a patch tool
    assert "dry run" not in result.stdout
    assert result.stderr == (f"dry run: would add agentscan's hook to 21 claude events in {settings}; "
                             "nothing written\n")
    assert not settings.exists()


def test_uninstall_dry_run_says_so_too(isolated_home: Path) -> None:
    settings = isolated_home / ".claude" / "settings.json"
    assert invoke("hooks", "install", "claude").exit_code == 0
    result = invoke("hooks", "uninstall", "claude", "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"--- {settings}\n+++ /dev/null\n")
    assert result.stderr == (f"dry run: would remove agentscan's hook from 21 claude events in {settings} "
                             "(and remove the file); nothing written\n")
    assert settings.exists()


def test_dry_run_summary_is_quiet_under_quiet_and_absent_from_json(isolated_home: Path) -> None:
    quiet = invoke("hooks", "install", "claude", "--dry-run", "-q")
    assert quiet.stdout.startswith("--- /dev/null\n") and quiet.stderr == ""
    as_json = invoke("hooks", "install", "claude", "--dry-run", "--json")
    assert as_json.exit_code == 0 and "dry run" not in as_json.stderr


# --- providers without hooks --------------------------------------------------------------------

def test_hooks_status_says_codex_has_no_hooks_when_the_home_holds_its_sessions(isolated_home: Path) -> None:
    assert UNHOOKED not in invoke("hooks", "status").stdout.splitlines()
    _codex_session(isolated_home)
    lines = invoke("hooks", "status").stdout.splitlines()
    # under the install commands, which it would otherwise seem to have been left out of
    # (Gemini CLI has hooks since pass 56: its command is with the others, and codex alone has none)
    assert lines[1:7] == ["  " + HOOKS_OPTIONAL, "  to install, for each agent you use, run:",
                          "    agentscan hooks install claude", "    agentscan hooks install cursor",
                          "    agentscan hooks install gemini", UNHOOKED]
    assert not (isolated_home.parent / "agentscan-cache").exists()  # it still keeps no cache
    # --json says the same, for a script
    assert orjson.loads(invoke("hooks", "status", "--json").stdout)["no_hooks"] == ["codex"]


def test_doctor_says_codex_has_no_hooks_when_the_home_holds_its_sessions(isolated_home: Path) -> None:
    assert UNHOOKED not in invoke("doctor").stdout.splitlines()
    _codex_session(isolated_home)
    assert UNHOOKED in invoke("doctor").stdout.splitlines()


def test_the_unhooked_line_names_each_provider() -> None:
    from agentscan.cli.doctor_text import unhooked_text

    assert unhooked_text(["codex", "gemini"]) == ("Codex CLI, Gemini CLI: no hooks to install "
                                                  "(their sessions are read from their files)")
