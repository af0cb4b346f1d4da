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

from agentscan.cli import actions, app, fastpath
from agentscan.cli.grammar_snapshot import FAST_COMMANDS, grammar, module_source
from agentscan.cli.static_grammar import COMMANDS, GLOBAL_OPTIONS
from builders import (
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    forget_remembered_answers,
    invoke,
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
    result = invoke(*argv)
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
    ["list", "extra"], ["list", "-n5"], ["list", "-n", "+5"], ["list", "-n", " 5"],
    ["list", "-n", "5_0"], ["list", "--limit"], ["list", "--limit", "x"], ["list", "--json=1"],
    ["list", "-qv"], ["list", "--", "x"], ["list", "-"], ["list", "--grep", "-x"], ["list", "--lim", "3"],
    ["list", "--pid", "-1"], ["--home"], ["--install-completion"],
    ["show"], ["show", "a", "b"], ["show", "--full=yes", "abc123"], ["tokens", "--by"], ["--demo"],
    ["list", "--version"], ["list", "-n", "1" * 5000], ["list", "--pid=" + "9" * 5000],
])
def test_command_lines_it_cannot_take_go_to_typer(argv: list[str]) -> None:
    assert fastpath.parse(argv) is None


def test_a_home_that_cannot_be_read_is_an_error_wherever_it_is_given(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An unreadable --home fails as a missing one does (exit 1), before or after the command
    name alike (click.Path checked only the one before it, as a usage error; root reads
    anything: faked)."""
    monkeypatch.setattr(os, "access", lambda path, mode, **kwargs: False)
    for argv in (["--home", str(tmp_path), "list"], ["list", "--home", str(tmp_path)]):
        assert fastpath.parse(argv) is not None
        code, _out, err = through_typer(argv)
        assert (code, err) == (1, f"error: --home {tmp_path}: cannot be read (permission denied)\n")


def test_an_empty_home_is_a_usage_error_on_either_path() -> None:
    for argv in (["--home", "", "list"], ["--home=", "list"], ["list", "--home", ""]):
        assert fastpath.parse(argv) is not None
        code, _out, err = through_typer(argv)
        assert (code, err.splitlines()[0]) == (2, "error: --home is empty (is a variable unset?): name a directory")


def test_what_it_reads() -> None:
    call = fastpath.parse(["--home", "/h", "-q", "tokens", "abc123", "-p", "claude", "--provider=codex",
                           "--no-cache", "def456", "--by", "day", "--by=model", "--home", "/other", "--json"])
    assert call is not None
    assert call.command == "tokens"
    assert call.before == {"home": "/h", "quiet": True}
    assert call.after == {"no_cache": True, "home": "/other"}
    # Every --by, for ``actions.one_grouping`` to refuse two different ones (as Typer's path does).
    assert call.options == {"session_ids": ["abc123", "def456"], "provider": ["claude", "codex"], "by": ["day", "model"],
                            "as_json": True}
    # Every --limit too, for ``actions.limit_and_all`` to refuse two different ones.
    assert fastpath.parse(["list", "-n", "007", "--all"]).options == {"limit": [7], "show_all": True}  # type: ignore[union-attr]
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
    ["--home", "HOME", "list"], ["list", "--home", "HOME", "--json"], ["list", "--demo"], ["tokens", "--demo", "-q"],
    ["--home", "HOME", "tokens", "--home", "/nowhere/at/all", "--json"], ["--home", "/nowhere/at/all", "list"],
]


@pytest.mark.parametrize("argv", _FIXED, ids=" ".join)
def test_same_output_and_exit_code(argv: list[str], isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_home(isolated_home)
    argv = [str(isolated_home) if arg == "HOME" else arg for arg in argv]
    fast_first = fastpath.parse(argv)
    assert fast_first is not None
    # Cold for the fast path, warm for Typer; then warm for both.
    fast = through_fast_path(argv, capsys)
    assert fast == through_typer(argv)
    assert through_fast_path(argv, capsys) == fast


@pytest.mark.parametrize("argv", [["list"], ["list", "--all"], ["tokens"], ["tokens", "--by", "model"],
                                  ["show", SESSION[:8]], ["show", SESSION, "--full", "--no-pager"], ["list", "-n", "1"]],
                         ids=" ".join)
def test_same_on_a_terminal(argv: list[str], isolated_home: Path, capsys: pytest.CaptureFixture[str], tty) -> None:  # noqa: ANN001
    """Colour, widths and hints for a terminal: the same both ways."""
    build_home(isolated_home)
    tty(90, stderr=False, color=True)
    fast = through_fast_path(argv, capsys)
    assert "\x1b[" in fast[1]  # coloured: the terminal was seen
    assert fast == through_typer(argv)


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
        _option(["--until"], ["2026-05-01", "2026-W18", "3d", "junk"]),
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


@pytest.mark.parametrize("raised, expected", [(KeyboardInterrupt, (130, "", "")), (EOFError, (1, "", "\nAborted!\n"))])
def test_interrupted_as_typer_is(raised: type[BaseException], expected: tuple[int, str, str], isolated_home: Path,
                                 capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise raised

    monkeypatch.setattr(actions, "run_list", interrupted)
    assert through_typer(["list"]) == expected
    assert through_fast_path(["list"], capsys) == expected


# --- what parse reads is what click reads ------------------------------------------------

_GLOBAL_NAMES = {name for name, _kind in GLOBAL_OPTIONS.values()}
_TOKENS = ["list", "show", "tokens", "--home", "--home=", "--home=/x", "/x", "", "-", "--", "-v", "-q", "--verbose",
           "--demo", "--json", "--json=", "-n", "--limit", "--limit=3", "3", "0", "007", "-p", "--provider",
           "--provider=claude", "claude", "--by", "--by=day", "day", "--grep", "--grep=-x", "-x", "--pid", "--pid=5",
           "--all", "-a", "--full", "--no-pager", "--tz", "UTC", "abc123", "--since", "3d", "--until", "--cwd", ".",
           "-n3", "-qv", "--no-cache", "--strict", "--redact", "--running", "--quiet", "-h", "--version"]


def _click_reads(argv: list[str]) -> tuple | None:
    """What click's own parser makes of ``argv``, as a ``Call``'s parts (``None``: an error or help)."""
    import typer.main
    from typer._click.exceptions import ClickException
    from typer.exceptions import Exit

    group = typer.main.get_command(app)
    try:
        ctx = group.make_context("agentscan", list(argv))
        name, command, rest = group.resolve_command(ctx, [*ctx._protected_args, *ctx.args])  # type: ignore[attr-defined]
        sub = command.make_context(name, rest, parent=ctx)
    except (ClickException, Exit):
        return None
    defaults = {param: value.default for param, value in inspect.signature(_BODIES[name]).parameters.items()}
    before = {key: value for key, value in ctx.params.items() if key != "version" and value not in (None, False)}
    after = {key: value for key, value in sub.params.items() if key in _GLOBAL_NAMES and value not in (None, False)}
    options = {key: list(value) if isinstance(value, tuple) else value for key, value in sub.params.items()
               if key not in _GLOBAL_NAMES and value not in (None, False, ()) and defaults.get(key) != value}
    return name, before, after, options


@FUZZ
@given(argv=st.lists(st.sampled_from(_TOKENS), max_size=7))
def test_parse_reads_what_click_reads(argv: list[str]) -> None:
    call = fastpath.parse(argv)
    if call is not None:
        defaults = {param: value.default for param, value in inspect.signature(_BODIES[call.command]).parameters.items()}
        options = {key: value for key, value in call.options.items() if defaults.get(key) != value}
        assert (call.command, call.before, call.after, options) == _click_reads(argv)


def test_parse_takes_the_plain_lines_click_takes() -> None:
    """The comparison above must not pass by refusing everything."""
    lines = [["list"], ["-v", "list", "--json", "-n", "3"], ["tokens", "abc123", "--by=day"], ["show", "abc123", "--full"],
             ["--home", "/x", "list", "--home=/y", "-p", "claude", "--provider=codex"]]
    for argv in lines:
        call = fastpath.parse(argv)
        assert call is not None
        defaults = {param: value.default for param, value in inspect.signature(_BODIES[call.command]).parameters.items()}
        assert (call.command, call.before, call.after,
                {key: value for key, value in call.options.items() if defaults.get(key) != value}) == _click_reads(argv)


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
    refused = _process("list", "-n", "0")  # said by the command itself, on either path
    assert refused.returncode == 2 and "--limit must be a whole number of 1 or more" in refused.stderr
    assert refused.stderr.endswith("typer imported: False\n")
    unread = _process("list", "-n", "x")  # not a number: click's to say
    assert unread.returncode == 2 and unread.stderr.endswith("typer imported: True\n")


_THROUGH_TYPER = "from agentscan.cli import app; app(prog_name='agentscan')"


@pytest.mark.parametrize("argv", [["tokens", "--json"], ["list", "--all"], ["show", SESSION]], ids=" ".join)
def test_a_closed_pipe_ends_quietly_with_0(argv: list[str], isolated_home: Path) -> None:
    """``agentscan tokens | head -1``: a reader that stopped reading is no failure: exit 0
    and no traceback, both ways (click's exit 1 read as one under ``set -o pipefail``)."""
    build_home(isolated_home)
    ended = []
    for script in (_AS_CONSOLE_SCRIPT, _THROUGH_TYPER):
        reader, writer = os.pipe()
        os.close(reader)
        with os.fdopen(writer, "w") as closed:
            done = subprocess.run([sys.executable, "-c", script, *argv], stdout=closed,
                                  stderr=subprocess.PIPE, text=True, timeout=60)
        ended.append((done.returncode, done.stderr.replace("typer imported: False\n", "")))
    assert ended == [(0, ""), (0, "")]


def test_the_console_script_sends_the_snapshots_commands_here() -> None:
    """``entry`` names the fast commands without loading the snapshot (``hook`` must stay light)."""
    from agentscan import entry

    assert entry._FAST_COMMANDS == set(COMMANDS) == set(FAST_COMMANDS) == set(_BODIES)


def test_a_claude_row_pass_does_without_the_detail_model(isolated_home: Path) -> None:
    """``list`` reads Claude rows (an empty index: every one shown is read); only ``show``
    builds a detail, so only it imports the detail model's classes."""
    build_home(isolated_home)
    script = _AS_CONSOLE_SCRIPT.replace("'typer imported:', 'typer' in sys.modules",
                                        "'detail model:', 'agentscan.detailmodel' in sys.modules")
    for argv, imported in ((["list", "--json", "-p", "claude"], False), (["show", SESSION, "--json"], True)):
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ))
        assert done.returncode == 0 and done.stdout, argv
        assert done.stderr.endswith(f"detail model: {imported}\n"), (argv, done.stderr)


def test_a_cursor_row_does_without_the_detail_model_unless_its_composer_has_a_plan(isolated_home: Path) -> None:
    """``list`` reads Cursor rows from ``state.vscdb``: a composer's plan (its todos) is made
    of ``show``'s ``PlanStep``s, so only a composer that has one imports the detail model."""
    from cursor_builders import bubble, composer_data, make_state_db, state_db_path

    script = _AS_CONSOLE_SCRIPT.replace("'typer imported:', 'typer' in sys.modules",
                                        "'detail model:', 'agentscan.detailmodel' in sys.modules")
    t0 = 1_785_000_000_000
    for todos, imported in (([], False), ([{"content": "write the test", "status": "pending"}], True)):
        database = state_db_path(isolated_home)
        database.unlink(missing_ok=True)
        make_state_db(database, composers=[composer_data("c0ffee00-0000-4000-8000-000000000001", name="Cart", created=t0,
                                                         updated=t0 + 60_000, bubbles=["b1"], todos=todos)],
                      bubbles={"c0ffee00-0000-4000-8000-000000000001": [bubble("b1", 1, "refactor the cart")]})
        done = subprocess.run([sys.executable, "-c", script, "list", "--json", "--no-cache", "-p", "cursor"],
                              capture_output=True, text=True, timeout=60, env=dict(os.environ))
        assert done.returncode == 0 and "c0ffee00" in done.stdout, done.stderr
        assert done.stderr.endswith(f"detail model: {imported}\n"), (todos, done.stderr)


_COUNTING_DATACLASSES = (
    "import dataclasses, sys; sys.argv[0] = 'agentscan'\n"
    "made = []\n"
    "process = dataclasses._process_class\n"
    "def counted(cls, *args):\n"
    "    made.append(cls.__module__ + '.' + cls.__qualname__)\n"
    "    return process(cls, *args)\n"
    "dataclasses._process_class = counted\n"
    "import agentscan.scan.memo\n"
    "agentscan.scan.memo.SETTLE_NS = 0  # the home was just written: as conftest does in-process\n"
    "from agentscan.entry import main\n"
    "try:\n    main()\n"
    "finally:\n    print('dataclasses:', ' '.join(sorted(made)), file=sys.stderr)\n"
)

#: the public values (``agentscan.__all__``) a warm ``list`` or ``tokens`` makes
_PUBLIC_DATACLASSES = {"agentscan.model." + name for name in ("Counts", "ScanWarning", "SessionRef", "SessionRow",
                                                               "TokenUsage", "UsageEntry")} | {
    "agentscan.scan.listfilter.ListFilter", "agentscan.scan.tokenreport.TokenReport", "agentscan.scan.tokenreport.TokenRow"}


@pytest.mark.parametrize(("argv", "runs"), [(["list"], 1), (["list"], 2), (["tokens", "--json"], 2), (["tokens"], 2),
                                            (["tokens", "--since", "2000-01-01"], 2)])
def test_a_list_or_warm_tokens_makes_no_internal_dataclass(argv: list[str], runs: int, isolated_home: Path) -> None:
    """A frozen dataclass costs about a millisecond to create on import: the internal values a
    ``list`` (cold: the four providers' discovery and rows) or a warm ``tokens`` makes are named
    tuples or plain classes (docs/architecture.md).  The count must see something: the public
    model's classes are dataclasses.  (A remembered answer makes none: test_remembered_imports.py.)"""
    from cursor_builders import copy_real_dot_cursor

    build_home(isolated_home)
    copy_real_dot_cursor(isolated_home)  # its rows too: a cold page shows every provider's
    for run in range(runs):  # a first run discovers (and imports each provider's discovery); a second is warm
        if run:
            forget_remembered_answers()  # made again, not printed again (``scan.answers``)
        done = subprocess.run([sys.executable, "-c", _COUNTING_DATACLASSES, *argv], capture_output=True, text=True,
                              timeout=60, env=dict(os.environ))
        assert done.returncode == 0 and done.stdout, done.stderr
    if argv == ["list"]:
        assert all(f"\n{provider}:" in done.stdout for provider in ("claude", "codex", "gemini", "cursor")), done.stdout
    made = set(done.stderr.rsplit("dataclasses:", 1)[1].split())
    assert "agentscan.model.SessionRow" in made
    assert made <= _PUBLIC_DATACLASSES, " ".join(sorted(made - _PUBLIC_DATACLASSES))

