"""A list cut short is said one way (``toolkit.andmore``): ``a, b, c and 4 more`` on a line, its
first lines and ``… and 4 more files`` under them.  Six copies had drifted: ``and 1 more
events`` (Cursor's hooks), ``and 1 more rows of that index`` and ``1 more bad lines``
(Codex), ``doctor``'s last line without its ``…``, the warnings' ``… 2 more`` without its
``and``, counts with and without ``,``; and Claude's
gone sessions past the first three were left out of "no session matches" unsaid."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from codex_builders import at, meta, rollout_path, session_index_entry, user_message, write_rollout, write_session_index

SRC = Path(__file__).parent.parent / "src" / "agentscan"


def test_the_words_of_a_cut_list() -> None:
    from agentscan.toolkit.andmore import and_more, cut_lines, first_of

    assert and_more(2000) == "and 2,000 more"
    assert and_more(1, "file") == "and 1 more file" and and_more(2, "file") == "and 2 more files"
    assert and_more(1, "row of that index", "rows of that index") == "and 1 more row of that index"
    assert and_more(3, "row of that index", "rows of that index") == "and 3 more rows of that index"
    assert first_of(["a", "b", "c"], 3) == "a, b, c"  # (not cut: no count)
    assert first_of(["a", "b", "c", "d"], 2, "event") == "a, b and 2 more events"
    assert first_of([1, 2, 3], 1, say="#{}".format) == "#1 and 2 more"
    assert first_of(["a", "b", "c"], 2).isascii()  # (no "…" in a line's list: "~" on an ASCII stream)
    assert cut_lines(["x", "y"], 2, indent="  ") == ["x", "y"]
    assert cut_lines(["x", "y", "z"], 1, "file", indent="  ") == ["x", "  … and 2 more files"]


def test_cursors_hook_events_cut_after_three_agree_with_their_count() -> None:
    from agentscan.hooks.configreport import _events_text

    assert _events_text(["A", "B", "C", "D"]) == "A, B, C and 1 more event"  # (was "1 more events")
    assert _events_text(["A", "B", "C", "D", "E"]) == "A, B, C and 2 more events"
    assert _events_text(["A", "B", "C"]) == "A, B and C" and _events_text(["A"]) == "A"


def test_one_more_bad_session_index_line_is_one_line(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    thread = "019a0000-0000-7000-8000-00000000aaaa"
    write_rollout(rollout_path(codex, thread, at(0)), [meta(thread, at(0)), user_message(at(1), "hi")],
                  mtime=at(10).timestamp())
    write_session_index(codex, [b"[]"] * 6 + [orjson.dumps(session_index_entry(thread, "Kept", at(3)))])
    result = CliRunner().invoke(app, ["list", "--json", "--provider", "codex"])
    assert result.exit_code == 0, result.output
    said = [warning["message"] for warning in orjson.loads(result.stdout)["warnings"]]
    assert said[-1] == "… and 1 more bad line in this file skipped", said  # (was "1 more bad lines")


def test_no_module_builds_a_cut_list_of_its_own() -> None:
    """``and {n} more`` written outside ``toolkit.andmore`` is a seventh way (the pattern matches
    the copies this pass folded, as a check that it would find one)."""
    pattern = re.compile(r"and \{[^}]*\}[^\"']* more|and \{[\w.]*plural\(.*'more |… \{[^}]*\} more")
    folded = ['f" and {len(held) - _SHOWN} more"', "f\"… and {plural(len(rest), 'more session')} whose\"",
              'f"{\', \'.join(events[:3])} and {len(events) - 3} more events"',
              "f\"    and {render.plural(len(files) - SHOWN_FILES, 'more file')}\"",
              'f"warning: … {len(warnings) - len(shown)} more (use --verbose or --json to see all)"']
    assert all(pattern.search(copy) for copy in folded)
    modules = [path for path in SRC.rglob("*.py") if path.name != "andmore.py"]
    assert len(modules) > 300, len(modules)
    copies = [f"{path.relative_to(SRC)}: {line.strip()}" for path in modules
              for line in path.read_text(encoding="utf-8").splitlines() if pattern.search(line)]
    assert copies == [], copies


def test_claudes_gone_sessions_past_three_are_counted_not_left_out_unsaid(isolated_home: Path) -> None:
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

    def turn(session: str, step: int) -> list[dict]:
        return [claude_user(session, f"2026-05-{step + 1:02d}T10:00:00.000Z", f"step {step}", uuid=f"u{step}"),
                claude_assistant(session, f"2026-05-{step + 1:02d}T10:00:05.000Z", msg_id=f"m{step}",
                                 request_id=f"r{step}", usage=claude_usage(10, 1), parentUuid=f"u{step}", uuid=f"a{step}")]

    # Five gone sessions whose ids begin alike, each copied at the start of a live one.
    for n in range(5):
        gone, live = f"aaaaaaaa-4444-4000-8000-00000000005{n}", f"cccccccc-4444-4000-8000-00000000005{n}"
        claude_session_file(isolated_home, live, turn(gone, 1) + turn(live, 2), mtime=1.7e9)
    said = invoke("show", "aaaaaaaa")
    assert said.exit_code == 1
    lines = [line.strip() for line in said.stderr.splitlines()]
    assert sum("'s transcript is gone" in line for line in lines) == 3, said.stderr
    assert "… and 2 more gone sessions" in lines, said.stderr  # (were left out, unsaid)
