"""Terminal words and rendering a demanding user (gh, git, ccusage) meets (pass 60).

``prices`` at 60 columns cut PRICED AS from its start mid-word (``…laude-sonnet-4-5``) while
the name fitted without its vendor; ``tokens -p cursor`` on a home whose Cursor sessions
recorded no usage said so twice; ``prices --at tomorrowish`` asked for a MODEL before saying
the date was bad; ``trace --last 0`` asked for an id before saying 0 was out of range; the
hook agents' names were a second table beside ``providers.LABELS``; a message about a
provider's root named it by its key (``claude: no readable root``) where sentences name it
``Claude Code``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest

from builders import invoke


def _cells(out: str) -> list[list[str]]:
    lines = out.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("MODEL"))
    return [re.split(" {2,}", line.strip()) for line in lines[start:] if line and not line.startswith(" ")]


def test_prices_at_60_columns_drops_the_vendor_whole_before_cutting_a_name(tty: Callable[..., None]) -> None:
    """Was ``…claude-haiku-4-5``, ``…/claude-opus-4-5``, ``…laude-sonnet-4-5``: each cut from
    its start at a different place, where ``claude-sonnet-4-5`` fitted whole."""
    tty(60)
    result = invoke("--demo", "prices")
    assert result.exit_code == 0, result.output
    rows = _cells(result.stdout)
    assert rows[0][:2] == ["MODEL", "PRICED AS"]
    answers = {row[0]: row[1] for row in rows[1:] if len(row) > 2}
    assert answers["claude-haiku-4-5-20251001"] == "claude-haiku-4-5"
    assert answers["claude-sonnet-4-5-20250929"] == "claude-sonnet-4-5"
    assert answers["gpt-5-codex"] == "gpt-5"
    assert not any("/" in answer for answer in answers.values()), answers


def test_tokens_of_a_home_where_no_session_recorded_usage_says_so_once(isolated_home: Path, tty: Callable[..., None],
                                                                        only_cursor: None) -> None:
    """Printed both "(+ 2 sessions that recorded no usage, not counted: cursor:…)" and "no
    usage: none of the 2 Cursor sessions recorded any": one fact, two lines."""
    from cursor_builders import assistant, user, write_transcript

    for chat in ("a6000000-0000-4000-8000-00000000ee01", "a6000000-0000-4000-8000-00000000ee02"):
        write_transcript(isolated_home, "work-app", chat, [user("an idea"), assistant("ok")])
    for args in (("tokens", "-p", "cursor"), ("tokens", "--by", "day"), ("tokens", "--by", "model")):
        tty(80)
        result = invoke(*args)
        said = " ".join((result.stdout + result.stderr).split())
        assert result.exit_code == 0 and re.fullmatch(
            r"no usage: none of the 2 Cursor sessions recorded any \(their tokens are not recorded, as "
            r"`agentscan show cursor:a6000000-0000-4000-8000-00000000ee0[12]` says of the newest\)", said), (args, said)


def _no_usage_home(home: Path) -> list[str]:
    """Two Cursor chats that recorded no usage, the second the newer; their ids."""
    from cursor_builders import assistant, user, write_transcript

    chats = ["a6000000-0000-4000-8000-00000000ee01", "a6000000-0000-4000-8000-00000000ee02"]
    for at, chat in enumerate(chats):
        write_transcript(home, "work-app", chat, [user("an idea"), assistant("ok")], mtime=1_780_000_000 + 86_400 * at)
    return chats


def test_the_show_named_is_the_newest_s_in_any_order_with_the_home_read(isolated_home: Path, tty: Callable[..., None],
                                                                         only_cursor: None) -> None:
    """"as `agentscan show ID` says of the newest" named the first row, the oldest under
    ``--reverse``; and a bare ``agentscan show`` where the run read ``--home DIR`` (or
    ``--demo``), which reads another home."""
    import shlex

    _, newest = _no_usage_home(isolated_home)
    home = shlex.quote(str(isolated_home))
    for args in (("tokens",), ("tokens", "--reverse"), ("tokens", "--by", "day", "--reverse"),
                 ("tokens", "--reverse", "--sort", "tokens"), ("tokens", "--reverse", "-n", "1")):
        for before in ((), ("--home", str(isolated_home))):
            tty(200)
            said = " ".join(invoke(*before, *args).stderr.split())
            shown = f"agentscan{f' --home {home}' if before else ''} show cursor:{newest}"
            assert f"as `{shown}` says of the newest)" in said, (before, args, said)


def test_the_sessions_are_named_where_the_note_is_not_seen(isolated_home: Path, tty: Callable[..., None],
                                                            only_cursor: None) -> None:
    """The "(+ 2 sessions that recorded no usage …)" line was left out for the note that says
    none recorded any: with ``--quiet`` (no note) or ``2>/dev/null`` on a terminal a home
    of such sessions printed nothing at all."""
    chats = _no_usage_home(isolated_home)
    for quiet, stderr in ((True, True), (False, False), (True, False)):
        tty(200, stderr=stderr)
        result = invoke(*(("--quiet",) if quiet else ()), "tokens")
        assert result.exit_code == 0 and result.stdout == (
            f"(+ 2 sessions that recorded no usage, not counted: cursor:{chats[1]}, cursor:{chats[0]})\n"), result.stdout
        # (the note on stderr as ever, where ``2>/dev/null`` drops it)
        assert ("no usage: none of the 2 Cursor sessions" in result.stderr) is not quiet, result.stderr
    tty(200)
    result = invoke("tokens")  # the note seen: the line is not said again
    assert result.stdout == "" and "no usage: none of the 2 Cursor sessions" in result.stderr, result.stdout


def test_a_bad_value_is_said_before_a_missing_argument() -> None:
    """``prices --at tomorrowish`` said "--at needs a MODEL", and ``trace --last 0`` "give a
    session ID": given them, the next run said the value was bad.  git and gh say the bad
    value first."""
    result = invoke("prices", "--at", "tomorrowish")
    assert result.exit_code == 2 and "cannot read the time 'tomorrowish'" in result.stderr, result.stderr
    result = invoke("trace", "--last", "0")
    assert result.exit_code == 2 and "--last 0: N counts turns from 1" in result.stderr, result.stderr
    # a good value, the missing argument is asked for as before
    assert "--at needs a MODEL" in invoke("prices", "--at", "2026-01-01").stderr
    assert "give a session ID" in invoke("trace", "--last", "1").stderr


def test_the_agents_display_names_are_one_table() -> None:
    """``hooks.events.HOOK_AGENTS`` was a second ``{"claude": "Claude Code", …}`` beside
    ``providers.LABELS``: the hook agents are keys, their names ``label_of``'s."""
    from agentscan.hooks.events import HOOK_AGENTS
    from agentscan.providers import LABELS

    assert set(HOOK_AGENTS) <= set(LABELS) and all(isinstance(name, str) for name in HOOK_AGENTS)
    source = Path(__file__).parent.parent / "src" / "agentscan"
    pairs = re.compile(r"""["'](claude|codex|gemini|cursor)["']\s*:\s*["'](Claude Code|Codex CLI|Gemini CLI|Cursor)["']""")
    tables = [str(path.relative_to(source)) for path in source.rglob("*.py") if pairs.search(path.read_text("utf-8"))]
    assert tables == ["providers/__init__.py"], tables


def test_the_hook_agents_are_one_name() -> None:
    """``cli.doctor_text`` imported ``HOOK_AGENTS as HOOKED_AGENT_NAMES`` and made its own
    ``HOOK_AGENTS = tuple(HOOKED_AGENT_NAMES)``: two names for one table, a reader looking
    for which one to change.  It is defined once (``hooks.events``), imported by its name."""
    source = Path(__file__).parent.parent / "src" / "agentscan"
    defined = re.compile(r"^\s*HOOK_AGENTS\s*[:=]", re.MULTILINE)
    renamed = re.compile(r"\bHOOK_AGENTS\s+as\b|=\s*(?:tuple|list)\(\s*\w*HOOK")
    texts = {str(path.relative_to(source)): path.read_text("utf-8") for path in source.rglob("*.py")}
    assert [name for name, text in texts.items() if defined.search(text)] == ["hooks/events.py"]
    assert [name for name, text in texts.items() if renamed.search(text)] == []


def test_a_provider_with_no_readable_root_is_named_as_sentences_name_it(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``error: claude: no readable root among …``: the key, where every other sentence says
    ``Claude Code``."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_home / "nonexistent"))
    for args in (("list",), ("tokens", "-p", "claude"), ("export", "-o", str(isolated_home / "x.csv"))):
        result = invoke(*args)
        assert result.exit_code == 1, (args, result.output)
        assert "error: Claude Code: no readable root among " in result.stderr, (args, result.stderr)
        assert "claude: no readable root" not in result.stderr


def test_otlp_s_line_is_wrapped_on_a_terminal_as_export_s_is(tmp_path: Path, tty: Callable[..., None]) -> None:
    """``exported 84 spans in 15 traces from 10 sessions to PATH`` was one line of 80 columns
    on a 60-column terminal, where ``export``'s "wrote … to PATH" is wrapped; a pipe keeps one line."""
    from agentscan.cli.term import width_of

    target = tmp_path / "t.json"
    piped = invoke("--demo", "otlp", "-o", str(target))
    assert piped.stdout == f"exported 84 spans in 15 traces from 10 sessions to {target}\n", piped.stdout
    tty(40)
    shown = invoke("--demo", "otlp", "-o", str(target)).stdout.splitlines()
    assert shown[-1] == f"  {target}" and all(width_of(line) <= 40 for line in shown[:-1]), shown


def test_an_unknown_agent_row_is_said_under_the_table(isolated_home: Path, tty: Callable[..., None]) -> None:
    """``unknown (1 run)`` under AGENT said nothing a newcomer could look up: a line says what
    it holds (on a terminal; a pipe and --json keep the key alone)."""
    from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

    session = "a6000000-0000-4000-8000-0000000000a1"
    claude_session_file(isolated_home, session, [
        claude_user(session, "2026-02-10T10:00:00.000Z", "go", uuid="u1"),
        claude_assistant(session, "2026-02-10T10:00:05.000Z", msg_id="msg_1", request_id="req_1",
                         usage=claude_usage(100, 7), parentUuid="u1", uuid="a1")])
    claude_subagent_file(isolated_home, session, "a1b2c3d", [
        claude_user(session, "2026-02-10T10:00:01.000Z", "look", uuid="s1", isSidechain=True),
        claude_assistant(session, "2026-02-10T10:00:02.000Z", msg_id="msg_s", request_id="req_s",
                         usage=claude_usage(50, 3), parentUuid="s1", uuid="s2", isSidechain=True)])
    tty(100)
    result = invoke("tokens", "--by", "agent")
    keys = [line.split("  ")[0] for line in result.stdout.splitlines()]
    assert any(key.startswith("unknown") for key in keys), result.stdout
    said = " ".join(result.stderr.split())
    # (was "(Explore, Plan and such)": Claude Code's kinds, where the row may be Gemini CLI's subagents)
    assert "unknown: subagents whose kind was not recorded" in said, said
    assert "Explore" not in said, said
    assert "unknown:" not in invoke("tokens", "--by", "day").stderr  # (no unknown row there)
