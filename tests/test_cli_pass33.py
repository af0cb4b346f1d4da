"""Pass 33: what a newcomer reading the docs literally met on the command line.

- ``hook --demo`` (after the command) stored the payload: the console script's fast path
  handed it to the capture; now it says ``--demo stores nothing`` as ``--demo hook`` does,
  and ``hook --help`` lists ``--demo``.
- ``hooks install --help`` listed ``--demo`` (always refused), ``--no-cache``,
  ``--strict`` and ``--verbose`` (no effect there): they are taken still, not listed.
- Errors that did not say what to do: ``no session matches`` (now a hint names
  ``agentscan list --all``), ``--endpoint``'s port out of range, an export that found
  nothing, and a lock timeout (``test_export``).
- ``otlp``'s ``sessions`` counted the sessions matched, also those with no span.
- A model of one's own with no price was told ``prices --update`` fetches newer prices
  (pass 43: it is told nothing of an update; tests/test_messages_pass43.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from pricing_builders import claude_unknown_model_session

runner = CliRunner()
PAYLOAD = b'{"hook_event_name": "Stop", "session_id": "abcdef13", "prompt_id": "x"}'


def one_line(text: str) -> str:
    return " ".join(text.split())


# --- hook --demo ---------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["hook", "--agent", "claude", "--demo"], ["--demo", "hook", "--agent", "claude"],
                                  ["hook", "--demo"]])
def test_hook_demo_stores_nothing_before_or_after_the_command(tmp_path: Path, argv: list[str]) -> None:
    """Run as the agent runs it: the console script (``entry``), not the Typer app alone."""
    data = tmp_path / "store"
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data)}
    done = subprocess.run([sys.executable, "-m", "agentscan", *argv], input=PAYLOAD, capture_output=True, env=env,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"agentscan hook: --demo stores nothing\n")
    assert not data.exists() or not any(path.is_file() for path in data.rglob("*"))


def test_without_demo_the_same_payload_is_stored(tmp_path: Path) -> None:
    data = tmp_path / "store"
    env = {**os.environ, "AGENTSCAN_DATA_DIR": str(data)}
    done = subprocess.run([sys.executable, "-m", "agentscan", "hook", "--agent", "claude"], input=PAYLOAD,
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0 and (data / "events" / "claude" / "abcdef13.jsonl").is_file()


def test_hook_help_lists_demo() -> None:
    result = runner.invoke(app, ["hook", "--help"])
    assert result.exit_code == 0 and "--demo" in result.stdout and "Store nothing" in result.stdout


# --- hooks install --help ------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_hooks_install_help_lists_only_the_global_options_that_apply(command: str) -> None:
    text = runner.invoke(app, ["hooks", command, "--help"], terminal_width=120).stdout
    # (--strict since pass 56: a warning fails the command after the change)
    assert "--home" in text and "--quiet" in text and "--strict" in text
    for unlisted in ("--demo", "--no-cache", "--verbose"):
        assert unlisted not in text, unlisted


def test_hooks_install_still_takes_them(isolated_home: Path) -> None:
    result = runner.invoke(app, ["hooks", "install", "--agent", "claude", "--dry-run", "--no-cache", "--strict", "-v"])
    assert result.exit_code == 0 and "agentscan hook --agent claude" in result.stdout
    refused = runner.invoke(app, ["hooks", "install", "--agent", "claude", "--demo"])
    assert refused.exit_code == 2 and "--demo reads a shipped demo home" in refused.stderr


def test_list_and_show_help_still_list_every_global_option() -> None:
    for argv in (["list", "--help"], ["show", "--help"]):
        text = runner.invoke(app, argv, terminal_width=120).stdout
        assert all(flag in text for flag in ("--home", "--demo", "--no-cache", "--strict", "--verbose", "--quiet"))


# --- what to do next -----------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["show", "tokens"])
def test_no_session_matches_points_at_list(isolated_home: Path, command: str) -> None:
    result = runner.invoke(app, ["--demo", command, "000000"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: no session matches '000000'",
                                          "hint: `agentscan --demo list --grep TEXT` finds it by title, cwd, model or path (`--all` lists every id)"]


def test_a_too_short_id_points_at_the_list_of_the_home_read(isolated_home: Path) -> None:
    result = runner.invoke(app, ["--demo", "show", "00"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["error: '00' is too short: give at least 6 characters of the id",
                                          "hint: `agentscan --demo list --grep TEXT` finds it by title, cwd, model or path (`--all` lists every id)"]


def test_the_hint_names_the_home_read(isolated_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "old laptop"
    other.mkdir()
    result = runner.invoke(app, ["--home", str(other), "show", "000000"])
    assert result.exit_code == 1
    # (both homes hold no session: where to look is said, pass 46, naming the home read)
    assert result.stderr.splitlines()[-1] == (f"no sessions were found in this home: `agentscan --home '{other}' "
                                              "doctor` shows where agentscan looked")
    plain = runner.invoke(app, ["show", "000000"])  # the next run, of the user's own home
    assert plain.stderr.splitlines()[-1] == "no sessions were found in this home: `agentscan doctor` shows where agentscan looked"


@pytest.mark.parametrize(("endpoint", "said"), [
    ("http://localhost:99999", "(its port 99999 is out of range: a port is 0 to 65535): 'http://localhost:99999'"),
    ("http://localhost:43x8", "(its port '43x8' is not a number from 0 to 65535)"),
    ("http://localhost:-1", "(its port '-1' is not a number from 0 to 65535)"),
    ("http://user:secret@localhost:70000/v1/traces", "its port 70000 is out of range"),
    ("http://[::1:4318", "(a host in brackets must be an IPv6 address, such as [::1])"),
])
def test_an_endpoint_that_is_no_url_says_why(isolated_home: Path, endpoint: str, said: str) -> None:
    result = runner.invoke(app, ["--demo", "otlp", "--endpoint", endpoint])
    assert result.exit_code == 2 and said in one_line(result.stderr), result.stderr
    assert "secret" not in result.stderr


def test_an_otlp_export_of_no_session_says_why_as_list_does(isolated_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    result = runner.invoke(app, ["--demo", "otlp", "--since", "2030-01-01", "-o", str(out)])
    assert result.exit_code == 0 and "exported 0 spans in 0 traces from 0 sessions" in result.stdout
    listed = runner.invoke(app, ["--demo", "list", "--since", "2030-01-01"])
    assert result.stderr == listed.stderr and result.stderr.startswith("no sessions updated since 2030-01-01 00:00 (11 older")


def test_an_otlp_export_of_sessions_with_no_span_says_so(isolated_home: Path, tmp_path: Path) -> None:
    """The demo's Cursor session ``e5f6a7b8`` has no timestamp at all: it matches, and has no span."""
    out = tmp_path / "t.jsonl"
    result = runner.invoke(app, ["--demo", "otlp", "cursor:e5f6a7b8", "-o", str(out)])
    assert result.exit_code == 0 and "from 0 sessions" in result.stdout
    assert "no spans: the one session matched has no turn with a timestamp" in one_line(result.stderr)
    as_json = runner.invoke(app, ["--demo", "otlp", "cursor:e5f6a7b8", "-o", str(out), "--json"])
    assert "no spans" not in as_json.stderr  # --json: the document says it


# --- otlp's sessions: those with a span ----------------------------------------------------------

def test_otlp_counts_the_sessions_that_have_a_span(isolated_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    doc = orjson.loads(runner.invoke(app, ["--demo", "otlp", "-o", str(out), "--json"]).stdout)
    lines = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    with_spans = {attribute["value"]["stringValue"] for line in lines for resource in line["resourceSpans"]
                  for scope in resource["scopeSpans"] for span in scope["spans"] for attribute in span["attributes"]
                  if attribute["key"] == "agentscan.session.id"}
    assert doc["sessions"] == len(with_spans) == 10  # not 11: one Cursor session has no span at all
    assert any("1 session with no spans at all" in note for note in doc["notes"])  # still said (a note: no bad input)
    none = orjson.loads(runner.invoke(app, ["--demo", "otlp", "cursor:e5f6a7b8", "-o", str(out), "--json"]).stdout)
    assert (none["sessions"], none["spans"]) == (0, 0)


# --- a model of one's own ------------------------------------------------------------------------

def test_a_custom_model_is_not_promised_a_price_by_an_update(isolated_home: Path) -> None:
    claude_unknown_model_session(isolated_home)
    doc = orjson.loads(runner.invoke(app, ["tokens", "--json"]).stdout)
    [message] = [warning["message"] for warning in doc["warnings"] if warning["path"] == "model:claude/aide-gpt-5"]
    # (pass 43) Not even "for a model newer than this data": no public price list has it.
    assert "prices --update" not in message and message.endswith(
        " is in no public price list: a price list of your own prices it (AGENTSCAN_PRICES_URL: docs/pricing.md)"), message
