"""Pass 58, what a person meets in the terminal.

* ``trace <an id one slip off>`` offers the session meant, as ``show`` does.
* ``tokens -n N --json`` is taken, as ``list -n N --json`` is (a page of N rows, ``more``
  after them), not a usage error.
* ``--cwd`` naming a folder with no session under it offers the projects it nearly names.
* A progress line too wide for the terminal cuts its words, never its count.
* Schema names: the rule is written down (docs/json.md), and each name a document carries is
  one it lists.
* The user's pages say how agentscan behaves, not in which pass it changed.
"""

from __future__ import annotations

import ast
import io
import os
import re
from pathlib import Path
from typing import Iterator

import orjson
import pytest

from builders import cli_json, claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from hooks_builders import Replay

REPO = Path(__file__).resolve().parents[1]


# --- 1. trace: the id meant ---------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["7f3c9a13", "f73c9a12", "claude:7f3c9a13", "7F3C9A13"])
def test_demo_trace_of_an_id_one_slip_off_offers_the_one_meant(typed: str) -> None:
    result = invoke("--demo", "trace", typed)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == "hint: did you mean 'claude:7f3c9a12'?", result.stderr


@pytest.fixture
def store(isolated_home: Path) -> Iterator[Replay]:
    replay = Replay(Path(os.environ["AGENTSCAN_DATA_DIR"]), agent="claude")
    for session in ("abcdef12-0000-4000-8000-000000000001", "abcdef34-0000-4000-8000-000000000002",
                    "0123cdef-0000-4000-8000-000000000003"):
        replay.send({"hook_event_name": "UserPromptSubmit", "session_id": session, "prompt": "hi", "cwd": "/w"})
    yield replay


@pytest.mark.parametrize(("typed", "hint"), [
    ("abcdeg12", "hint: did you mean 'claude:abcdef12'?"),
    ("0123dcef", "hint: did you mean 'claude:0123cdef'?"),  # (two neighbours swapped)
    # one slip from both sessions' first 6: that prefix opens neither alone, so none is offered
    ("abcdeg", None),
    ("99999999", None),
])
def test_trace_offers_a_captured_session_only_when_its_id_opens_it(store: Replay, typed: str,
                                                                   hint: str | None) -> None:
    result = invoke("trace", typed)
    assert result.exit_code == 1 and f"no hook events for {typed!r}" in result.stderr, result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("hint: did you mean")]
    assert said == ([hint] if hint else []), result.stderr
    if hint is not None:  # the id offered opens that session
        meant = hint.split("'")[1]
        assert invoke("trace", meant, "--json").exit_code == 0


# --- 2. --limit with --json, in list and tokens alike ---------------------------------------------


def _home(home: Path, count: int) -> None:
    for index in range(count):
        native = f"{index:08x}-5858-4000-8000-000000000000"
        ts = f"2026-11-{1 + index:02d}T10:00:00.000Z"
        path = claude_session_file(home, native, [
            claude_user(native, ts, f"task {index}"),
            claude_assistant(native, ts, msg_id=f"m{index}", request_id=f"r{index}",
                             usage=claude_usage(100 + index, 10)),
        ])
        os.utime(path, (1_790_000_000 + index * 86_400,) * 2)


def test_tokens_takes_limit_with_json_as_list_does(isolated_home: Path) -> None:
    _home(isolated_home, 5)
    every = cli_json("tokens", "--sort", "date")
    page = cli_json("tokens", "-n", "2")
    assert [row["key"] for row in page["rows"]] == [row["key"] for row in every["rows"][:2]]
    assert page["rows"][0]["key"] == "claude:00000004-5858-4000-8000-000000000000"  # the table's order: newest first
    assert page["more"] is True and list(page)[:4] == ["schema", "by", "rows", "more"]
    assert page["total"] == every["total"] and page["cost_usd"] == every["cost_usd"]  # every row's, as TOTAL
    assert cli_json("tokens", "-n", "5")["more"] is False
    assert "more" not in every and "more" not in cli_json("tokens")  # (no --limit: as it was)
    listed = cli_json("list", "-n", "2")
    assert [row["id"] for row in listed["sessions"]] == [row["key"] for row in page["rows"]] and listed["more"]
    # --reverse turns the rows, then the first N are taken, as the table takes them
    turned = cli_json("tokens", "-n", "2", "--reverse")
    assert [row["key"] for row in turned["rows"]] == [row["key"] for row in every["rows"][::-1][:2]]


def test_a_remembered_page_of_tokens_is_the_page_made_anew(isolated_home: Path) -> None:
    _home(isolated_home, 4)
    first = invoke("tokens", "-n", "2", "--json").stdout
    whole = invoke("tokens", "--json").stdout
    assert invoke("tokens", "-n", "2", "--json").stdout == first  # (its own slot: not the whole answer)
    assert invoke("tokens", "--json").stdout == whole
    assert invoke("--no-cache", "tokens", "-n", "2", "--json").stdout == first
    assert len(orjson.loads(first)["rows"]) == 2 and len(orjson.loads(whole)["rows"]) == 4


def test_the_hint_offers_the_page_with_json(isolated_home: Path) -> None:
    said = invoke("--demo", "tokens", "last", "--json").stderr
    assert "tokens -n 1 --json` gives the newest session's tokens (tokens takes session ids)" in said, said


# --- 3. --cwd: the project meant ----------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["weather", "weather-ap", "src/weather-app", "/home/demo/src/weather",
                                   "/home/demo/weather-app", "wether-app", "Weather-App"])
@pytest.mark.parametrize("command", ["list", "tokens"])
def test_a_cwd_that_nearly_names_a_project_offers_it(command: str, typed: str) -> None:
    result = invoke("--demo", command, "--cwd", typed)
    assert result.exit_code == 0 and result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert lines[0].startswith("no sessions under ") and "11 elsewhere" in lines[0], lines
    assert lines[1] == "hint: did you mean --cwd /home/demo/src/weather-app (5 sessions)?", lines


def test_a_folder_above_the_projects_is_offered_by_its_name() -> None:
    said = invoke("--demo", "list", "--cwd", "src").stderr
    assert "hint: did you mean --cwd /home/demo/src (11 sessions)?" in said, said


def test_a_cwd_that_names_nothing_near_gets_no_guess() -> None:
    said = invoke("--demo", "list", "--cwd", "zzz-nothing").stderr
    assert "no sessions under" in said and "hint" not in said, said
    assert invoke("--demo", "list", "--cwd", "weather", "--json").stderr == ""  # (a script's JSON: nothing said)


def test_nearly_named_picks_the_nearest_kind_of_likeness() -> None:
    from agentscan.scan.cwdnear import NearFolder, nearly_named

    cwds = ["/home/me/src/app", "/home/me/src/app", "/home/me/old/app", "/home/me/src/api",
            *[f"/home/me/work/project-{n}" for n in range(6)], None]
    # the same name first, the more trailing names shared the nearer (``src/app`` typed elsewhere)
    assert nearly_named("/tmp/x/src/app", cwds) == ([NearFolder("/home/me/src/app", 2),
                                                     NearFolder("/home/me/old/app", 1)], 2)
    assert nearly_named("/tmp/x/APP", cwds)[0][0] == NearFolder("/home/me/src/app", 2)  # (any case)
    # a name it begins: at most 3, by sessions, then how many in all
    assert nearly_named("/tmp/project", cwds) == ([NearFolder(f"/home/me/work/project-{n}", 1) for n in range(3)], 6)
    # the likest alone, one slip away; none that far off
    assert nearly_named("/tmp/projetc-4", cwds) == ([NearFolder("/home/me/work/project-4", 1)], 1)
    assert nearly_named("/tmp/zzz", cwds) == ([], 0)
    assert nearly_named("/tmp/zq", cwds) == ([], 0)
    # (two letters begin too many names: only the likest are offered for them)
    assert nearly_named("/tmp/pr", cwds) == ([], 0)
    # the folder asked for is never offered for itself; a Windows path's folders by either separator
    assert nearly_named("/home/me/src/app", cwds)[0] == [NearFolder("/home/me/old/app", 1)]
    assert nearly_named("C:\\Users\\me\\Ap", ["c:\\Users\\me\\App"]) == ([NearFolder("c:\\Users\\me\\App", 1)], 1)
    assert nearly_named("/x/me", ["/home/me/a"]) == ([NearFolder("/home/me", 1)], 1)  # (not /home, nor /)


def test_a_hint_of_many_names_the_command_that_lists_every_project(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan import invocation
    from agentscan.cli.cwdhint import near_cwd_hint

    monkeypatch.setattr(invocation, "running_home", [" --home /mnt/old"])  # (the home the command read)

    said = near_cwd_hint("/tmp/pro", [f"/home/me/pro{n}" for n in range(5)] + ["/srv/my p"])
    assert said is not None and said.startswith("hint: did you mean --cwd ")
    assert said.endswith("(2 more: `agentscan --home /mnt/old tokens --by cwd` lists every project)"), said
    spaced = near_cwd_hint("/tmp/my ap", ["/srv/my app"])
    assert spaced == "hint: did you mean --cwd '/srv/my app' (1 session)?"  # (as a shell takes it)


# --- 4. the progress line keeps its count ------------------------------------------------------------


@pytest.mark.parametrize("width", [20, 30, 40])
def test_a_narrow_terminal_cuts_the_progress_words_not_the_count(monkeypatch: pytest.MonkeyPatch,
                                                                  width: int) -> None:
    from agentscan.cli import progress as progress_module
    from agentscan.cli import term
    from agentscan.progress import BUNDLING

    monkeypatch.setattr(term, "terminal_width", lambda: width)
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = progress_module.StderrProgress(stream)
    with progress.named(BUNDLING):
        progress.expect(1500)
        clock[0] += 2.0
        progress.advance(1057)
    line = stream.getvalue().rpartition("\r\x1b[K")[2]
    assert line.endswith(" 1,057/1,500"), line
    assert term.width_of(line) <= width - 1 and line.startswith("bundl"), line
    if width < 40:
        assert "…" in line  # (the words cut: 42 columns whole)


def test_a_huge_files_read_keeps_how_far_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import progress as progress_module
    from agentscan.cli import term

    monkeypatch.setattr(term, "terminal_width", lambda: 30)
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = progress_module.StderrProgress(stream)
    progress.reading("7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d.jsonl", 0, 1_000_000_000)
    clock[0] += 2.0
    progress.reading("7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d.jsonl", 500_000_000, 1_000_000_000)
    line = stream.getvalue().rpartition("\r\x1b[K")[2]
    assert line.endswith(" 500 of 1,000 MB") and line.startswith("reading 7f3c") and len(line) <= 29, line


# --- 5. schema names ------------------------------------------------------------------------------------------


def _schema_names() -> set[str]:
    """Every ``agentscan.<name>/N`` a document can carry: those written out, and the command
    names given to ``render.envelope`` and ``render.emit_json_body``, which make the rest."""
    names: set[str] = set()
    for path in (REPO / "src" / "agentscan").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names.update(re.findall(r"agentscan\.([a-z_-]+)/\d", text))
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
                    in ("envelope", "emit_json_body") and node.args and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    return names


def test_every_schema_name_is_documented_and_new_ones_follow_the_rule() -> None:
    names = _schema_names()
    assert {"list", "show", "tokens", "trace", "hooks_status", "trace-list", "usage_day"} <= names, names
    text = (REPO / "docs" / "json.md").read_text(encoding="utf-8")
    rule = text[text.index("**Schema names.**"):text.index("## Shared shapes")]
    for name in names:
        assert f"agentscan.{name}/1" in text, name
        assert f"`{name}`" in rule or f"agentscan.{name}/1" in rule, name  # (each named in the rule)
    # The one name with a dash, kept as scripts read it; every other is words joined by ``_``.
    assert {name for name in names if not re.fullmatch(r"[a-z]+(_[a-z]+)*", name)} == {"trace-list"}


# --- 7. no pass notes in the user's pages -------------------------------------------------------------------

#: the pages that record how agentscan was made, not how it behaves: their history stays
_HISTORY = {"performance.md", "performance-history.md", "architecture.md"}
PASS_NOTE = re.compile(r"\b(?:pass ?\d+\b|(?:since|before|in|by|until|after) pass\b"
                       r"|(?:twenty|thirty|forty|fifty|sixty)-\w+ pass\b)", re.IGNORECASE)


def test_the_users_pages_carry_no_pass_notes() -> None:
    pages = [REPO / "README.md", *(path for path in (REPO / "docs").rglob("*.md") if path.name not in _HISTORY)]
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()[:80]}" for path in pages
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if PASS_NOTE.search(line)]
    assert found == [], "\n".join(found)
