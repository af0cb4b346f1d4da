"""Escape sequences planted in a provider's files never reach the terminal: every human
output shows each control character of a field from a transcript (a model, a cwd, a git
branch, a tool's name, a subagent's id and type) or from a file or directory name (a path,
a session's id) as U+FFFD, on a terminal and in a pipe, warnings and notes on stderr too."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

#: OSC (retitle the terminal), a bell, CSI (clear the screen) and C1's one-byte CSI
OSC, BEL, CSI, C1 = "\x1b]0;", "\x07", "\x1b[2J", "\x9b"
BAD = ("\x1b", "\x07", "\x9b")
S = "e5ca9e00-0000-4000-8000-000000000001"
MODEL = f"claude-{OSC}modelpwn{BEL}sonnet-{C1}31m4-5"
CWD = f"/home/dev/{OSC}cwdpwn{BEL}pro ject"
BRANCH = f"feat{CSI}{OSC}branchpwn{BEL}"
PROJECT = f"-home-dev-dir{OSC}dirpwn{BEL}x"
TOOL = f"Ba{OSC}toolpwn{BEL}sh"
AGENT = f"a{OSC}subpwn{BEL}1"


def _hostile(home: Path) -> None:
    """One Claude session whose every field shown on the card holds an escape sequence,
    in a project directory whose name holds one, with a subagent whose file name does."""
    extra = {"cwd": CWD, "gitBranch": BRANCH}
    claude_session_file(home, S, [
        claude_user(S, "2026-11-20T10:00:00.000Z", "hello", **extra),
        claude_assistant(S, "2026-11-20T10:00:05.000Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 20),
                         model=MODEL, blocks=[{"type": "text", "text": "ok"},
                                              {"type": "tool_use", "id": "toolu_1", "name": TOOL, "input": {"command": "ls"}},
                                              {"type": "tool_use", "id": "toolu_2", "name": "TodoWrite", "input": {"todos": [
                                                  {"content": "step one", "status": f"in{OSC}planpwn{BEL}_progress"}]}}],
                         **extra),
        claude_user(S, "2026-11-20T10:00:06.000Z", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}],
                    **extra),
        claude_assistant(S, "2026-11-20T10:00:07.000Z", msg_id="m2", request_id="r2", usage=claude_usage(1, 1),
                         model=MODEL, **extra),
    ], project=PROJECT)
    claude_subagent_file(home, S, AGENT, [
        claude_user(S, "2026-11-20T10:00:01.000Z", "look around", sidechain=True, agentId=AGENT, **extra),
        claude_assistant(S, "2026-11-20T10:00:02.000Z", msg_id="s1", request_id="rs1", usage=claude_usage(3, 1),
                         model=MODEL, sidechain=True, agentId=AGENT, **extra),
    ], project=PROJECT, meta={"agentType": f"Expl{OSC}typepwn{BEL}ore"})


def _run(*args: str) -> tuple[str, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.stdout, result.stderr


def _assert_clean(text: str, where: object) -> None:
    found = [ch for ch in BAD if ch in text]
    assert not found, (where, found, text)


def _line(out: str, start: str) -> str:
    return next(line for line in out.splitlines() if line.lstrip().startswith(start))


@pytest.mark.parametrize("terminal", [False, True])
def test_show_card_cleans_every_field_from_the_files(isolated_home: Path, tty, terminal: bool) -> None:  # noqa: ANN001
    _hostile(isolated_home)
    if terminal:
        tty(200, color=False)
    out, err = _run("show", S[:8])
    _assert_clean(out + err, "show")
    for field in ("cwd ", "model ", "branch ", "path "):
        assert "\ufffd" in _line(out, field), (field, out)
    # A path keeps its spaces (it is copied from here), and says which directory it is.
    assert "/home/dev/\ufffd]0;cwdpwn\ufffdpro ject" in _line(out, "cwd ")
    assert "-home-dev-dir\ufffd]0;dirpwn\ufffdx" in _line(out, "path ")
    assert "Ba\ufffd]0;toolpwn\ufffdsh" in out  # the tool call's name
    subagents = out.split("subagents (1)")[1]
    # (on a terminal the run is named by its 8-character prefix, as ``tokens`` names it)
    assert ("\ufffd]0;sub" if terminal else "\ufffd]0;subpwn") in subagents and "\ufffd]0;typepwn" in subagents, out
    assert "[in\ufffd]0;planpwn\ufffd_progress] step one" in out  # the plan's step


def test_show_cleans_the_focus_and_the_hooks_line(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _hostile(isolated_home)
    # ``show`` of a subagent's id: the card says whose part it is, naming the subagent.
    out, err = _run("show", AGENT)
    _assert_clean(out + err, "show <subagent>")
    assert "subagent a\ufffd]0;subpwn\ufffd1 of this session" in _line(out, "focus "), out
    # A session with hook events names the command that traces it, with its id.
    evil = f"e7{OSC}hookpwn{BEL}x"
    claude_session_file(isolated_home, evil, [
        claude_user(evil, "2026-11-21T10:00:00.000Z", "hi"),
        claude_assistant(evil, "2026-11-21T10:00:05.000Z", msg_id="m", request_id="r", usage=claude_usage(5, 5)),
    ])
    monkeypatch.setattr("agentscan.hooks.eventcounts.hook_event_counts", lambda ids, env=None: dict.fromkeys(ids, 3))
    out, err = _run("show", f"e7{OSC}hook")
    _assert_clean(out + err, "show <hostile id>")
    assert out.startswith("claude:e7\ufffd]0;hookpwn\ufffdx\n"), out
    assert "3 captured hook events (agentscan trace claude:e7\ufffd]0;hookpwn\ufffdx)" in out, out


def test_show_full_cleans_the_response_label_the_tool_and_the_subagent(isolated_home: Path) -> None:
    _hostile(isolated_home)
    out, err = _run("show", S[:8], "--full", "--no-pager")
    _assert_clean(out + err, "show --full")
    assert "response (claude-\ufffd]0;modelpwn\ufffdsonnet-\ufffd31m4-5)" in out, out
    assert "Ba\ufffd]0;toolpwn\ufffdsh  ok" in out
    assert "subagent a\ufffd]0;subpwn\ufffd1 (Expl\ufffd]0;typepwn\ufffdore)" in out, out


@pytest.mark.parametrize("terminal", [False, True])
def test_tokens_by_model_cleans_the_model_column_and_the_no_price_note(isolated_home: Path, tty,  # noqa: ANN001
                                                                       terminal: bool) -> None:
    _hostile(isolated_home)
    if terminal:
        tty(200, color=False)  # stderr a terminal too: the "no price" note is said there
    out, err = _run("tokens", "--by", "model")
    _assert_clean(out + err, "tokens --by model")
    assert "\ufffd]0;modelpwn\ufffd" in out.splitlines()[1], out
    assert "warning: Claude Code model claude-\ufffd]0;modelpwn\ufffdsonnet-\ufffd31m4-5: no price" in " ".join(err.split())
    if terminal:  # the note names no model (its warning, cleaned above, does)
        assert "COST '-': unknown" in " ".join(err.split()), err


@pytest.mark.parametrize("terminal", [False, True])
def test_list_and_tokens_clean_a_session_id_from_a_file_name(isolated_home: Path, tty, terminal: bool) -> None:  # noqa: ANN001
    evil = f"e5{OSC}idpwn{BEL}x"  # its escape in the short id a terminal shows too
    claude_session_file(isolated_home, evil, [
        claude_user(evil, "2026-11-21T10:00:00.000Z", "hi"),
        claude_assistant(evil, "2026-11-21T10:00:05.000Z", msg_id="m", request_id="r", usage=claude_usage(5, 5)),
    ])
    _hostile(isolated_home)
    if terminal:
        tty(200, color=False)
    for args in (["-v", "list"], ["tokens"], ["doctor"]):  # (``tokens``: a subagent's id on a line of its own too)
        out, err = _run(*args)
        _assert_clean(out + err, args)
        assert "e5\ufffd]0;" in out, (args, out)
    # Grouped, a session that recorded no usage is in no row: the line under the table names it.
    unrecorded = f"e6{OSC}nousage{BEL}x"
    claude_session_file(isolated_home, unrecorded, [
        claude_user(unrecorded, "2026-11-22T10:00:00.000Z", "hi"),
        claude_assistant(unrecorded, "2026-11-22T10:00:05.000Z", msg_id="m", request_id="r", usage=None),
    ])
    out, err = _run("tokens", "--by", "model")
    _assert_clean(out + err, "tokens --by model")
    assert "e6\ufffd]0;" in (out if terminal else err), out  # (on stderr in a pipe: pass 42)


def test_doctor_cleans_the_paths_it_names(tmp_path: Path, isolated_home: Path) -> None:
    home = tmp_path / f"ho{OSC}homepwn{BEL}me"
    _hostile(home)
    out, err = _run("--home", str(home), "doctor")
    _assert_clean(out + err, "doctor")
    assert out.startswith(f"home: {tmp_path}/ho\ufffd]0;homepwn\ufffdme (from --home)"), out


def test_the_lines_under_a_tokens_table_clean_the_keys_they_are_given(capsys: pytest.CaptureFixture[str]) -> None:
    # A patched table (``cli.tablepatch``) gives its folded and empty sessions' ids as read.
    from agentscan.cli.term import Terminal
    from agentscan.cli.tokens_folds import Folded
    from agentscan.cli.tokens_notes import print_notes

    for terminal in (Terminal(tty=False, width=80, color=False), Terminal(tty=True, width=12, color=False)):
        print_notes("session", terminal, Folded([f"claude:a{OSC}x{BEL}"], recorded_nothing=[f"claude:b{C1}1"]))
        out = "".join(capsys.readouterr())  # (on stderr in a pipe: pass 42)
        _assert_clean(out, terminal)
        assert "claude:a\ufffd]0;x\ufffd" in out and "claude:b\ufffd1" in out, out


def test_every_warning_line_is_cleaned_where_it_is_said(isolated_home: Path, tty) -> None:  # noqa: ANN001
    # A file that cannot be read names its path: a directory name's escape sequence shown.
    bad = isolated_home / ".claude" / "projects" / f"-x{OSC}warnpwn{BEL}y" / "e5ca9e22-0000-4000-8000-000000000001.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"{not json\n")
    _hostile(isolated_home)
    for terminal in (False, True):
        if terminal:
            tty(60, color=False)  # wrapped on a terminal
        out, err = _run("-v", "list")
        _assert_clean(out + err, ("list -v", terminal))
        assert "-x\ufffd]0;warnpwn\ufffdy" in err and "claude-\ufffd]0;modelpwn\ufffd" in err, err


def test_warnings_and_notes_are_cleaned_whoever_made_them(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from agentscan.cli import render, term
    from agentscan.model import ScanWarning

    monkeypatch.setattr(term, "stderr_is_tty", lambda: False)
    warning = ScanWarning(path=f"model:claude/x{OSC}t{BEL}", message=f"no price for it{C1}31m\nsecond line", line=None)
    render.warn_summary([warning])
    render.note(f"a note {OSC}t{BEL}\nits second line")
    err = capsys.readouterr().err
    _assert_clean(err, "stderr")
    # A warning stays one line (for grep); a note keeps its own lines.
    assert err.splitlines() == ["warning: Claude Code model x\ufffd]0;t\ufffd: no price for it\ufffd31m\ufffdsecond line",
                                "a note \ufffd]0;t\ufffd", "its second line"]


def test_plain_text_is_printed_as_it_was() -> None:
    from agentscan.cli import render
    from agentscan.cli.term import Terminal

    pipe, terminal = Terminal(tty=False, width=80, color=False), Terminal(tty=True, width=80, color=False)
    assert render.model_text("claude-opus-4-5-20251101", pipe) == "claude-opus-4-5-20251101"
    assert render.model_text("claude-opus-4-5-20251101", terminal) == "opus-4.5"
    assert render.model_text(f"claude-{OSC}x{BEL}", pipe) == "claude-\ufffd]0;x\ufffd"
    assert render.model_text("\n", pipe) == "-"


def test_prices_cleans_the_name_asked_for(isolated_home: Path) -> None:
    out, err = _run("prices", f"son{OSC}q{BEL}net")
    _assert_clean(out + err, "prices")
    assert "son\ufffd]0;q\ufffdnet" in out, out


def test_a_patched_tokens_table_cleans_a_session_id_too(isolated_home: Path, tty) -> None:  # noqa: ANN001
    import time

    def add(native: str, day: int, mtime: float) -> None:
        claude_session_file(isolated_home, native, [
            claude_user(native, f"2026-11-{day}T11:00:00.000Z", "hi"),
            claude_assistant(native, f"2026-11-{day}T11:00:05.000Z", msg_id=f"m{day}", request_id=f"r{day}",
                             usage=claude_usage(5, 5)),
        ], project=f"-home-dev-p{day}", mtime=mtime)

    now = time.time() - 3600
    add(f"e8{OSC}patchpwn{BEL}x", 20, now - 100)
    for n in range(3):
        add(f"{n}aaaaaaa-0000-4000-8000-000000000001", 10 + n, now - 200 - n)
    tty(200, color=False)
    for n in range(2):  # the second table is patched from the first (``cli.tablepatch``)
        out, err = _run("tokens")
        _assert_clean(out + err, ("tokens", n))
        assert "e8\ufffd]0;" in out, out
        add(f"n{n}aaaaaa-0000-4000-8000-000000000001", 21 + n, now - 50 + n)
