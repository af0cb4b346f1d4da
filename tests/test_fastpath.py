"""``list``, ``show`` and ``tokens`` run without Typer (``cli.fastpath``) exactly as through it.

The fast path reads command lines from a snapshot of Typer's options: the
snapshot must be what Typer declares, every command line it takes must print
and exit as Typer's run does, and every one it cannot take exactly must go to
Typer.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import actions, app, fastpath
from agentscan.cli.grammar_snapshot import FAST_COMMANDS, grammar, module_source
from agentscan.cli.static_grammar import COMMANDS, GLOBAL_OPTIONS
from builders import (
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    lay_out_real_claude,
)
from codex_builders import lay_out_real_codex
from conftest_hypothesis import FUZZ
from gemini_builders import lay_out_real_gemini

SESSION = "5a5a5a5a-0000-4000-8000-000000000001"
_BODIES = {"list": actions.run_list, "show": actions.run_show, "tokens": actions.run_tokens}


def build_home(home: Path) -> None:
    lay_out_real_claude(home)
    lay_out_real_codex(home)
    lay_out_real_gemini(home)
    ts = "2026-05-01T10:00:00Z"
    claude_session_file(home, SESSION, [
        claude_user(SESSION, ts, "fix the parser", cwd="/work/app"),
        claude_assistant(SESSION, ts, msg_id="m1", request_id="r1", usage=claude_usage(120, 30, 400, 9000), cwd="/work/app"),
    ])
    claude_subagent_file(home, SESSION, "agent-1", [
        claude_assistant(SESSION, ts, msg_id="s1", request_id="q1", usage=claude_usage(7, 3), sidechain=True),
    ])


def through_typer(argv: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, argv)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def through_fast_path(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = fastpath.run(argv)
    assert code is not None, f"the fast path refused {argv}"
    out, err = capsys.readouterr()
    return code, out, err


# --- the snapshot ----------------------------------------------------------------


def test_snapshot_is_what_typer_declares() -> None:
    assert module_source(grammar()) == Path(fastpath.__file__).with_name("static_grammar.py").read_text(), (
        "run: python -m agentscan.cli.grammar_snapshot"
    )


def test_every_option_of_the_snapshot_is_a_parameter_of_its_body() -> None:
    global_names = {name for name, _kind in GLOBAL_OPTIONS.values()}
    for command in FAST_COMMANDS:
        body = inspect.signature(_BODIES[command]).parameters
        grammar_names = {name for name, _kind in COMMANDS[command]["options"].values()} - global_names
        grammar_names |= {name for name, _nargs in COMMANDS[command]["arguments"]}
        assert grammar_names == set(body) - {"state"}, command


def test_the_bodies_defaults_are_typers() -> None:
    """An option left out gets the body's default on the fast path and Typer's otherwise."""
    import typer.main

    group = typer.main.get_command(app)
    for command in FAST_COMMANDS:
        body = inspect.signature(_BODIES[command]).parameters
        for param in group.commands[command].params:  # type: ignore[attr-defined]
            if param.name in body and body[param.name].default is not inspect.Parameter.empty:
                typer_default = param.default if not getattr(param, "multiple", False) else (param.default or None)
                assert body[param.name].default == typer_default, (command, param.name)


# --- parsing ---------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["-h"], ["--version"], ["list", "--help"], ["list", "-h"], ["tokens", "--help"],
    ["doctor"], ["export"], ["nope"], ["--no-such", "list"],
    ["list", "extra"], ["list", "-n", "0"], ["list", "-n5"], ["list", "-n", "+5"], ["list", "-n", " 5"],
    ["list", "-n", "5_0"], ["list", "--limit"], ["list", "--limit", "x"], ["list", "--json=1"],
    ["list", "-qv"], ["list", "--", "x"], ["list", "-"], ["list", "--grep", "-x"], ["list", "--lim", "3"],
    ["list", "--pid", "-1"], ["--home", "", "list"], ["--home=", "list"], ["--home"], ["--install-completion"],
    ["show"], ["show", "a", "b"], ["show", "--full=yes", "abc123"], ["tokens", "--by"], ["--demo"],
    ["list", "--version"],
])
def test_command_lines_it_cannot_take_go_to_typer(argv: list[str]) -> None:
    assert fastpath.parse(argv) is None


def test_what_it_reads() -> None:
    call = fastpath.parse(["--home", "/h", "-q", "tokens", "abc123", "-p", "claude", "--provider=codex",
                           "--no-cache", "def456", "--by", "day", "--by=model", "--home", "/other", "--json"])
    assert call is not None
    assert call.command == "tokens"
    assert call.before == {"home": Path("/h"), "quiet": True}
    assert call.after == {"no_cache": True, "home": "/other"}
    assert call.options == {"session_ids": ["abc123", "def456"], "provider": ["claude", "codex"], "by": "model",
                            "as_json": True}
    assert fastpath.parse(["list", "-n", "007", "--all"]).options == {"limit": 7, "show_all": True}  # type: ignore[union-attr]
    assert fastpath.parse(["show", "abc123", "--full"]).options == {"session_id": "abc123", "full": True}  # type: ignore[union-attr]


# --- the same answers --------------------------------------------------------------

_FIXED = [
    ["list"], ["list", "--json"], ["list", "-n", "2"], ["list", "--all", "--provider", "claude"], ["list", "-a"],
    ["list", "--grep", "parser"], ["list", "--grep", "nothing-matches-this"], ["list", "--cwd", "/work/app"],
    ["list", "--since", "2026-04-01"], ["list", "--since", "not-a-time"], ["list", "-n", "3", "--all"],
    ["list", "-p", "nope"], ["list", "--redact", "--json"], ["--no-cache", "list"], ["list", "--no-cache", "-q"],
    ["--demo", "list"], ["--demo", "tokens", "--json"], ["--strict", "list"], ["list", "--pid", "1"],
    ["tokens"], ["tokens", "--json"], ["tokens", "--by", "model"], ["tokens", "--by", "day", "--tz", "UTC"],
    ["tokens", "--by", "week"], ["tokens", "--by", "bogus"], ["tokens", "--tz", "Mars/Base"],
    ["tokens", "--since", "2026-05-01", "--until", "2026-05-02"], ["tokens", "-p", "codex", "--json"],
    ["tokens", SESSION[:8]], ["tokens", SESSION, "--json"], ["tokens", "zzzzzzzz"],
    ["show", SESSION[:8]], ["show", SESSION, "--json"], ["show", f"claude:{SESSION}", "--full", "--no-pager"],
    ["show", "abc"], ["show", "ffffffff"], ["show", SESSION, "--redact"], ["-v", "show", SESSION[:10], "--json"],
]


@pytest.mark.parametrize("argv", _FIXED, ids=" ".join)
def test_same_output_and_exit_code(argv: list[str], isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_home(isolated_home)
    fast_first = fastpath.parse(argv)
    assert fast_first is not None
    # Cold for the fast path, warm for Typer; then warm for both.
    fast = through_fast_path(argv, capsys)
    assert fast == through_typer(argv)
    assert through_fast_path(argv, capsys) == fast


def _pick(pool: list[str]) -> st.SearchStrategy[list[str]]:
    return st.sampled_from(pool).map(lambda value: [value])


def _option(flags: list[str], values: list[str]) -> st.SearchStrategy[list[str]]:
    return st.tuples(st.sampled_from(flags), st.sampled_from(values), st.booleans()).map(
        lambda t: [f"{t[0]}={t[1]}"] if t[2] and t[0].startswith("--") else [t[0], t[1]]
    )


# Mostly values that give an answer, some that give an error: both must match.
_GLOBAL_FLAGS = st.sampled_from([["--no-cache"], ["--strict"], ["-q"], ["--quiet"], ["-v"], ["--verbose"]])
_PROVIDERS = _option(["--provider", "-p"], ["claude", "claude", "codex", "gemini", "cursor", "x"])
_PARTS = {
    "list": [
        _GLOBAL_FLAGS, _pick(["--json"]), _PROVIDERS, _option(["--limit", "-n"], ["1", "2", "3", "007"]),
        _option(["--limit", "-n"], ["1", "2"]), _pick(["--all", "-a", "--redact", "--running"]),
        _option(["--since"], ["2026-04-01", "2020-01-01T00:00:00Z", "2026-05-01T09:00:00+02:00", "3d", "junk"]),
        _option(["--grep"], ["parser", "CLAUDE", "zz"]), _option(["--cwd"], ["/work/app", "/nowhere"]),
        _option(["--pid"], ["1", "999999"]),
    ],
    "tokens": [
        _GLOBAL_FLAGS, _pick(["--json"]), _PROVIDERS,
        _option(["--by"], ["session", "day", "week", "month", "model", "provider", "nope"]),
        _option(["--since"], ["2026-04-01", "2026-05-01T10:00:00Z", "junk"]),
        _option(["--until"], ["2026-05-01", "2027-01-01"]),
        _option(["--tz"], ["UTC", "Asia/Tokyo", "Nowhere/City"]), _pick([SESSION[:8], SESSION[:8], "ffffffff", "cod"]),
    ],
    "show": [_GLOBAL_FLAGS, _pick(["--json", "--redact", "--full", "--no-pager"])],
}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(FAST_COMMANDS))
    before = draw(st.lists(_GLOBAL_FLAGS, max_size=2))
    parts = draw(st.lists(st.one_of(_PARTS[command]), max_size=4))
    if command == "show":
        parts.insert(draw(st.integers(0, len(parts))), [draw(st.sampled_from([SESSION[:8], f"claude:{SESSION}", "fffffff"]))])
    return [arg for part in before for arg in part] + [command] + [arg for part in parts for arg in part]


@FUZZ
@given(argv=command_lines())
def test_any_command_line_of_the_grammar(argv: list[str], isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not any(isolated_home.iterdir()):
        build_home(isolated_home)
    assert through_fast_path(argv, capsys) == through_typer(argv)


# --- as a process ------------------------------------------------------------------

_AS_CONSOLE_SCRIPT = (
    "import sys; sys.argv[0] = 'agentscan'\n"
    "from agentscan.entry import main\n"
    "try:\n    main()\n"
    "finally:\n    print('typer imported:', 'typer' in sys.modules, file=sys.stderr)\n"
)


def _process(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:  # noqa: ANN003
    return subprocess.run([sys.executable, "-c", _AS_CONSOLE_SCRIPT, *args], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ), **kwargs)


def test_the_console_script_runs_them_without_typer(isolated_home: Path) -> None:
    build_home(isolated_home)
    listed = _process("list", "--json")
    assert listed.returncode == 0 and '"sessions"' in listed.stdout
    assert listed.stderr.endswith("typer imported: False\n")
    for argv in (["tokens"], ["tokens", "--by", "model", "--json"], ["show", SESSION[:8]], ["show", SESSION, "--json"],
                 ["list", "-q", "--all"]):
        done = _process(*argv)
        assert done.returncode == 0 and done.stdout, argv
        assert done.stderr.endswith("typer imported: False\n"), argv
    failed = _process("show", "abc")
    assert failed.returncode == 1 and failed.stderr.startswith("error: ")
    assert failed.stderr.endswith("typer imported: False\n")
    refused = _process("list", "-n", "0")
    assert refused.returncode == 2 and "Invalid value" in refused.stderr
    assert refused.stderr.endswith("typer imported: True\n")


def test_a_closed_pipe_ends_quietly_with_1(isolated_home: Path) -> None:
    """``agentscan tokens | head -1``: as click does, exit 1 and no traceback."""
    build_home(isolated_home)
    reader, writer = os.pipe()
    os.close(reader)
    with os.fdopen(writer, "w") as closed:
        done = subprocess.run([sys.executable, "-c", _AS_CONSOLE_SCRIPT, "tokens", "--json"], stdout=closed,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stderr.endswith("typer imported: False\n")
