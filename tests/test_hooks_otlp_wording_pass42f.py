"""Wording a reviewer tripped over: the "installed twice" warning names each file beside the
command that changes it; an endpoint typed without its scheme gets a guess; a refused send
is said without doubled parentheses; `prices --at` without a MODEL says what to type."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.errors import UsageProblem
from agentscan.otlp.endpoint import shown_url, traces_url
from hooks_builders import ok
from otlp_builders import claude_delegating_session, no_proxy, otlp  # noqa: F401 - no_proxy is a fixture


def test_the_installed_twice_warning_names_each_file_beside_its_command(isolated_home: Path, project: Path) -> None:
    user = isolated_home / ".claude" / "settings.json"
    local = project / ".claude" / "settings.local.json"
    ok("hooks", "install", "claude")
    [warning] = ok("hooks", "install", "claude", "--scope", "project").stderr.splitlines()
    assert warning == (
        f"warning: {user}: agentscan's hook is also installed in this file (21 claude events), not only in {local}: "
        "Claude Code runs the hooks of both, so each event can be captured twice; to keep one, run "
        f"`agentscan hooks uninstall claude --scope user` to remove it from {user}, or "
        f"`agentscan hooks uninstall claude --scope project` in {project} to remove it from {local}")
    assert " here " not in warning and "this one" not in warning
    # --json: the warning's path is the other file; its message names both, each beside its command.
    [entry] = json.loads(ok("hooks", "install", "claude", "--json").stdout)["warnings"]
    assert entry["path"] == str(local)
    assert entry["message"].startswith(
        f"agentscan's hook is also installed in this file (21 claude events), not only in {user}: ")
    assert entry["message"].endswith(
        f"run `agentscan hooks uninstall claude --scope project` in {project} to remove it from {local}, "
        f"or `agentscan hooks uninstall claude --scope user` to remove it from {user}")


def test_the_project_s_two_files_are_both_named(isolated_home: Path, project: Path) -> None:
    shared = project / ".claude" / "settings.json"
    shared.parent.mkdir()
    from agentscan.hooks.install import hook_command

    shared.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": hook_command("claude")}]}]}}))
    [warning] = ok("hooks", "install", "claude", "--scope", "project").stderr.splitlines()
    assert (f"run `agentscan hooks uninstall claude --scope project` in {project}, which removes agentscan's "
            f"entries from both {shared} and {project / '.claude' / 'settings.local.json'}, then install again") in warning


@pytest.mark.parametrize(("typed", "guess"), [
    ("127.0.0.1:9", " (did you mean http://127.0.0.1:9?)"),
    ("localhost:4318", " (did you mean http://localhost:4318?)"),
    ("collector.example.com/v1/traces", " (did you mean http://collector.example.com/v1/traces?)"),
    ("ftp://host", ""),
    ("localhost:99999", ""),  # no port: no guess to offer
])
def test_an_endpoint_without_its_scheme_gets_a_guess(typed: str, guess: str) -> None:
    with pytest.raises(UsageProblem) as caught:
        traces_url(typed)
    assert str(caught.value) == f"--endpoint must be an http:// or https:// URL, not {typed!r}{guess}"


def test_credentials_typed_without_a_scheme_are_masked_and_get_no_guess() -> None:
    with pytest.raises(UsageProblem) as caught:
        traces_url("user:hunter2@host:4318")
    assert str(caught.value) == "--endpoint must be an http:// or https:// URL, not '***@host:4318'"
    # An @ in a path is masked with what is before it: a password may hold a "/", and too much
    # masked costs nothing, too little a token.
    assert shown_url("host:1/a@b") == "***@b"


@pytest.mark.usefixtures("no_proxy")
def test_a_refused_send_has_no_doubled_parentheses(isolated_home: Path) -> None:
    claude_delegating_session(isolated_home)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = otlp("--endpoint", f"http://127.0.0.1:{port}", "--retries", "1", "--timeout", "1")
    assert result.exit_code == 1
    assert (f"http://127.0.0.1:{port}/v1/traces: connection refused (is the server running, on this port?); "
            "gave up after 2 attempts") in result.stderr
    assert ")) " not in result.stderr and ") (" not in result.stderr


def test_prices_at_without_a_model_says_what_to_type() -> None:
    result = CliRunner().invoke(app, ["prices", "--at", "90d"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == "error: --at needs a MODEL: agentscan prices MODEL --at WHEN"


@pytest.mark.parametrize(("typed", "shown"), [
    ("http:/bob:pw1@host:4318", "http:/***@host:4318"),
    ("http://bob:pw@host/v1?token=t", "http://***@host/v1?***"),
    ("bob:pw@host:4318", "***@host:4318"),
    ("http:/host:4318/v1", "http:/host:4318/v1"),
    ("user:pa/ss@host:4318", "***@host:4318"),
    ("http:/user:p#ss@host:4318", "http:/***@host:4318"),
    ("otel:Zx9/Qk+secretpart@collector.example:4318", "***@collector.example:4318"),
    ("http://u:p?x@h/p", "http://***@h/p"),
])
def test_a_password_is_never_shown_however_the_url_is_typed(typed: str, shown: str) -> None:
    assert shown_url(typed) == shown
