"""Reading Cursor transcripts: wrappers, turns, delegation and cwd."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentscan.scan.scanner import Scanner
from agentscan.providers.cursor.prompt_text import parse_clock, split_user_text
from cursor_builders import (
    assistant,
    copy_real_sample,
    tool,
    transcripts_dir,
    turn_ended,
    user,
    write_subagent,
    write_transcript,
)

S = "5e551011-0000-4000-8000-000000000001"
CHILD_1 = "c1111111-0000-4000-8000-000000000001"
CHILD_2 = "c2222222-0000-4000-8000-000000000002"
UTC = timezone.utc


def _scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["cursor"])


def _place_real(home: Path, sample: str) -> Path:
    return copy_real_sample(sample, transcripts_dir(home, "real") / S / f"{S}.jsonl")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Friday, Jul 31, 2026, 11:12 PM (UTC+8)", datetime(2026, 7, 31, 15, 12, tzinfo=UTC)),
        ("Friday, Aug 7, 2026, 10:12 PM (UTC-5)", datetime(2026, 8, 8, 3, 12, tzinfo=UTC)),
        ("Monday, Jan 5, 2026, 12:30 AM (UTC+5:30)", datetime(2026, 1, 4, 19, 0, tzinfo=UTC)),
        ("Monday, Jan 5, 2026, 12:30 PM (UTC)", datetime(2026, 1, 5, 12, 30, tzinfo=UTC)),
        ("Monday, Jan 5, 2026, 12:30 PM", None),  # no zone: unknown, not guessed
        ("Monday, Feb 30, 2026, 1:00 PM (UTC+1)", None),
        ("yesterday", None),
    ],
)
def test_timestamp_wrapper(text: str, expected: datetime | None) -> None:
    assert parse_clock(text) == expected


def test_user_query_wrapper() -> None:
    text = "<timestamp>Friday, Jul 31, 2026, 11:12 PM (UTC+8)</timestamp>\n<user_query>\n  fix it\nnow\n</user_query>\n"
    assert split_user_text(text) == ("fix it\nnow", datetime(2026, 7, 31, 15, 12, tzinfo=UTC))
    assert split_user_text("<user_query>\ntorn at the end") == ("torn at the end", None)
    assert split_user_text("plain text") == ("plain text", None)


def test_real_sample_test_session(isolated_home: Path) -> None:
    """agent-sessions' sanitized Cursor fixture: two turns, Shell calls without ids."""
    _place_real(isolated_home, "sanitized-agent-sessions-test-session.jsonl")
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert row.title == "run ls command"
    # Four assistant lines, one of them only Cursor's ``[REDACTED]`` marker (withheld reasoning)
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (2, 3, 2)
    assert row.cwd is None and row.started_at is None and row.tokens is None
    detail = scanner.show(S)
    assert [p.text for p in detail.prompts] == ["run ls command", "now show me the git status"]
    assert [(t.name, t.summary, t.status) for t in detail.tools] == [
        ("Shell", "ls -la /tmp", "unknown"),
        ("Shell", "git status", "unknown"),
    ]
    assert detail.responses[-1].text == "The repository is clean — no uncommitted changes."
    assert scanner.warnings == []


def test_real_sample_error_line(isolated_home: Path) -> None:
    _place_real(isolated_home, "synthetic-cursor-history-error-line.jsonl")
    detail = _scanner(isolated_home).show(S)
    assert detail.row.title == "hi"
    assert (detail.row.counts.prompts, detail.row.counts.responses) == (1, 0)  # its reply: ``[REDACTED]``
    assert not detail.responses
    assert detail.extra["errors"] == [{"text": "Provider Error: upstream timeout", "timestamp": None, "kind": "error",
                                       "subagent": None}]


def test_real_sample_turn_ended_success_leaves_status_unknown(isolated_home: Path) -> None:
    _place_real(isolated_home, "synthetic-agent-sessions-stage0-small-turn_ended.jsonl")
    detail = _scanner(isolated_home).show(S)
    assert [p.text for p in detail.prompts] == ["List the files.", "Run ls."]
    assert [(t.name, t.summary, t.status) for t in detail.tools] == [("Bash", "ls", "unknown")]


def test_real_sample_multi_parts_cwd_from_search_dirs(isolated_home: Path) -> None:
    _place_real(isolated_home, "synthetic-cursor-history-multi-parts.jsonl")
    (row,) = _scanner(isolated_home).list_sessions()
    # Grep path /src and Glob target_directory /src are both directories, and /src is not
    # the workspace the project folder "real" is named after: unknown, not invented.
    assert row.cwd is None
    assert (row.counts.prompts, row.counts.tool_calls) == (0, 2)
    assert row.title is None


def test_failed_turn_marks_only_the_call_it_stopped_at(isolated_home: Path) -> None:
    """The agent went on after ``make``, so it returned; the turn stopped at the write."""
    write_transcript(isolated_home, "p", S, [
        user("first"),
        assistant("ok", tool("Read", path="/w/a.py")),
        turn_ended("success"),
        user("second"),
        assistant(None, tool("Shell", command="make"), tool("Write", path="/w/b.py", contents="x")),
        turn_ended("error"),
        user("third"),
        assistant(None, tool("Shell", command="make test")),
        turn_ended("cancelled"),
        user("fourth"),
        assistant(None, tool("Grep", pattern="TODO", path="/w")),
    ])
    detail = _scanner(isolated_home).show(S)
    assert [(t.summary, t.status) for t in detail.tools] == [
        ("/w/a.py", "unknown"),
        ("make", "unknown"),
        ("/w/b.py", "error"),
        ("make test", "error"),
        ("TODO", "unknown"),
    ]


def test_prompt_times_come_from_the_timestamp_wrapper(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [
        user("one", stamp="Friday, Jul 31, 2026, 11:12 PM (UTC+8)"),
        assistant("done"),
        user("two", stamp="Friday, Jul 31, 2026, 11:40 PM (UTC+8)"),
    ], mtime=datetime(2026, 7, 31, 16, 0, tzinfo=UTC).timestamp())
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert row.started_at == datetime(2026, 7, 31, 15, 12, tzinfo=UTC)
    assert row.updated_at == datetime(2026, 7, 31, 15, 40, tzinfo=UTC)  # the newest recorded time, not the mtime
    detail = scanner.show(S)
    assert [p.timestamp for p in detail.prompts] == [
        datetime(2026, 7, 31, 15, 12, tzinfo=UTC),
        datetime(2026, 7, 31, 15, 40, tzinfo=UTC),
    ]
    assert detail.responses[0].timestamp is None  # transcripts carry no response times


def test_task_delegation_attributes_each_child_to_its_prompt(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [
        user("audit the repo"),
        assistant("Looking.", tool("Read", path="/w/app/README.md")),
        turn_ended(),
        user("now split the work"),
        assistant(None,
                  tool("Task", description="find tests", prompt="Find every test file", subagent_type="explore"),
                  tool("Task", description="lint", prompt="Run the linter on src")),
        assistant("Both done.", tool("Write", path="/w/app/NOTES.md", contents="n")),
    ])
    # Child 2 was spawned by the first Task call; names sort the other way on purpose.
    write_subagent(isolated_home, "p", S, CHILD_2, [
        user("Find every test file"), assistant(None, tool("Glob", glob_pattern="**/test_*.py", target_directory="/w/app")),
    ])
    write_subagent(isolated_home, "p", S, CHILD_1, [
        user("<user_query>\nRun the linter on src\n</user_query>", wrap=False),
        assistant(None, tool("Shell", command="ruff check src", working_directory="/w/app")),
        turn_ended("error"),
    ])
    detail = _scanner(isolated_home).show(S)
    assert detail.extra["delegations"] == [
        {"subagent": CHILD_2, "prompt": 2, "agent_type": "explore", "description": "find tests"},
        {"subagent": CHILD_1, "prompt": 2, "agent_type": None, "description": "lint"},
    ]
    # Each child's calls follow the Task call that spawned it.
    assert [(t.name, t.subagent, t.status) for t in detail.tools] == [
        ("Read", None, "unknown"),
        ("Task", None, "unknown"),
        ("Glob", CHILD_2, "unknown"),
        ("Task", None, "unknown"),
        ("Shell", CHILD_1, "error"),
        ("Write", None, "unknown"),
    ]
    assert [(s.id, s.agent_type, s.tokens) for s in detail.subagents] == [(CHILD_1, None, None), (CHILD_2, "explore", None)]
    # Child prompts are generated Task prompts, not the session's conversation.
    assert [p.text for p in detail.prompts] == ["audit the repo", "now split the work"]
    assert detail.row.counts.tool_calls == 4


def test_a_child_no_task_explains_goes_to_the_last_prompt(isolated_home: Path) -> None:
    write_transcript(isolated_home, "p", S, [user("one"), user("two"), user("three")])
    write_subagent(isolated_home, "p", S, CHILD_1, [user("something unrelated"), assistant(None, tool("Read", path="/x"))])
    detail = _scanner(isolated_home).show(S)
    assert detail.extra["delegations"] == [{"subagent": CHILD_1, "prompt": 3, "agent_type": None, "description": None}]
    assert [(t.name, t.subagent) for t in detail.tools] == [("Read", CHILD_1)]


@pytest.mark.parametrize(
    ("tools", "child_tools", "expected"),
    [
        # working_directory beats every path
        ([tool("Read", path="/w/app/src/a.py"), tool("Shell", command="ls", working_directory="/w/app/")], [], "/w/app"),
        # common parent of absolute file paths
        ([tool("Read", path="/w/app/src/a.py"), tool("StrReplace", path="/w/app/tests/t.py", old_string="a", new_string="b")], [], "/w/app"),
        # relative paths say nothing
        ([tool("Read", path="src/a.py")], [], None),
        # a filesystem root names no project
        ([tool("Read", path="/etc/hosts"), tool("Read", path="/w/a.py")], [], None),
        # Windows paths are compared as Windows paths
        ([tool("Read", path="C:\\Users\\me\\proj\\a.py"), tool("Write", path="c:\\Users\\me\\proj\\lib\\b.py", contents="")], [],
         "C:\\Users\\me\\proj"),
        # a child's working_directory is used when the parent names none
        ([tool("Read", path="/w/app/src/a.py")], [tool("Shell", command="ls", working_directory="/w/other")], "/w/other"),
    ],
)
def test_cwd_inference(isolated_home: Path, tools: list, child_tools: list, expected: str | None) -> None:
    # In an empty window (no workspace: the slug names no folder) the tools' folders are all there is
    # (a named workspace is checked against the slug: test_cursor_cwd_named.py).
    write_transcript(isolated_home, "empty-window", S, [user("go"), assistant(None, *tools)])
    if child_tools:
        write_subagent(isolated_home, "empty-window", S, CHILD_1, [user("sub"), assistant(None, *child_tools)])
    (row,) = _scanner(isolated_home).list_sessions()
    assert row.cwd == expected


def test_bad_lines_are_warnings(isolated_home: Path) -> None:
    path = write_transcript(isolated_home, "p", S, [user("fine")])
    with path.open("ab") as handle:
        handle.write(b"{not json\n[1, 2]\n{\"role\": \"assistant\", \"message\": {\"content\": [{\"type\": \"text\", \"text\": \"late\"}]}}")
    scanner = _scanner(isolated_home)
    (row,) = scanner.list_sessions()
    assert (row.counts.prompts, row.counts.responses) == (1, 1)
    assert sorted((w.line, w.message.split(":")[0]) for w in scanner.warnings) == [
        (2, "invalid JSON skipped"),
        (3, "JSON line is an array, not an object; skipped"),
    ]


def test_empty_transcript(isolated_home: Path) -> None:
    path = write_transcript(isolated_home, "p", S, [])
    assert path.stat().st_size == 0
    scanner = _scanner(isolated_home)
    assert scanner.list_sessions() == []  # it recorded nothing: not listed (docs/cli.md), but exported
    (row,) = scanner.all_rows()
    assert (row.title, row.counts.prompts) == (None, 0)
