"""A newcomer's 40-column pane (pass 51).

A one-word model or branch ran past the card's edge (72 columns at 40); the card's marker
column was 3 wide on an all-ok card and 5 or 6 wide once an ``error`` or ``denied`` call came
in, so two cards' names did not line up; in ``--full`` a subagent's head whose id was long
(``2026-02-11 21:17  ↳ subagent acompact-fffbd0``, 44 columns) and the deep indentation of a
compaction prompt's list (31 spaces, wrapped 20 columns at a time to 51) ran over too.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Callable

from builders import REAL, cells, claude_assistant, claude_base, claude_session_file, claude_usage, claude_user, invoke
from agentscan.cli.term import width_of

LONG_MODEL = "claude-experimental-superlong-research-preview-model-20261201"
LONG_BRANCH = "feature/JIRA-12345-refactor-the-forecast-cache-invalidation"


def _card(*args: str) -> list[str]:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _session(home: Path, native: str, *, status: str = "ok", model: str = "claude-sonnet-4-5-20250929",
             branch: str = "main") -> None:
    """A Claude session of one prompt and one ``Bash`` call, which ended ``status``."""
    extra: dict[str, Any] = {"gitBranch": branch}
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "t1", "content": "1 failed" if status == "error" else "ok"}
    if status == "error":
        result["is_error"] = True
    claude_session_file(home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "fix the cache", uuid="u1", **extra),
        claude_assistant(native, "2026-11-02T09:00:10.000Z", msg_id="m1", request_id="r1", usage=claude_usage(10, 5),
                         model=model, uuid="a1", parentUuid="u1",
                         blocks=[{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}],
                         **extra),
        {**claude_base(native, "2026-11-02T09:00:12.000Z", uuid="r1u", parentUuid="a1", **extra), "type": "user",
         "message": {"role": "user", "content": [result]}},
    ])


# --- a long model or branch -------------------------------------------------------------------------


def test_a_long_model_and_branch_fit_a_40_column_card(isolated_home: Path, tty: Callable[..., None]) -> None:
    _session(isolated_home, "11111111-2222-4333-8444-555555555555", model=LONG_MODEL, branch=LONG_BRANCH)
    tty(40, color=False)
    lines = _card("show", "11111111")
    assert [line for line in lines if width_of(line) > 40 and not line.startswith("    ")] == []
    model = next(line for line in lines if line.startswith("  model "))
    branch = next(line for line in lines if line.startswith("  branch "))
    assert width_of(model) <= 40 and model.endswith("…") and "claude-experimental" in model, model
    assert width_of(branch) == 40 and branch.startswith("  branch   feature/JIRA-12345-") and branch.endswith("…")


def test_a_long_model_goes_whole_under_its_label_where_it_fits_there(isolated_home: Path,
                                                                   tty: Callable[..., None]) -> None:
    _session(isolated_home, "11111111-2222-4333-8444-555555555555", model=LONG_MODEL, branch=LONG_BRANCH)
    tty(68, color=False)
    lines = _card("show", "11111111")
    at = lines.index("  model")
    assert lines[at + 1] == f"    {LONG_MODEL}"
    at = lines.index("  branch")  # (70 columns on its line)
    assert lines[at + 1] == f"    {LONG_BRANCH}"
    tty(120, color=False)
    assert f"  model    {LONG_MODEL}" in _card("show", "11111111")


def test_a_pipe_names_a_long_model_and_branch_whole(isolated_home: Path) -> None:
    _session(isolated_home, "11111111-2222-4333-8444-555555555555", model=LONG_MODEL, branch=LONG_BRANCH)
    lines = _card("show", "11111111")
    assert f"  model    {LONG_MODEL}" in lines and f"  branch   {LONG_BRANCH}" in lines


def test_a_long_model_is_named_as_list_names_it_before_it_is_cut() -> None:
    from agentscan.cli.showfit import word_field
    from agentscan.cli.term import Terminal

    term = Terminal(tty=True, width=30, color=False)
    assert word_field("model", "claude-sonnet-4-5-20250929", term) == ["  model", "    claude-sonnet-4-5-20250929"]
    term = Terminal(tty=True, width=28, color=False)
    assert word_field("model", "claude-sonnet-4-5-20250929", term) == ["  model    sonnet-4.5"]


# --- the marker column ------------------------------------------------------------------------------


def test_the_marker_column_is_one_width_on_every_card(isolated_home: Path, tty: Callable[..., None]) -> None:
    _session(isolated_home, "aaaaaaaa-2222-4333-8444-555555555555", status="ok")
    _session(isolated_home, "bbbbbbbb-2222-4333-8444-555555555555", status="error")
    tty(80, color=False)
    ok = next(line for line in _card("show", "aaaaaaaa") if "Bash: pytest" in line)
    error = next(line for line in _card("show", "bbbbbbbb") if "Bash: pytest" in line)
    assert ok.index("Bash") == error.index("Bash") == len("  denied "), (ok, error)
    assert ok == "  ok     Bash: pytest -q" and error == "  error  Bash: pytest -q"


# --- show --full -------------------------------------------------------------------------------------


def test_show_full_fits_a_40_column_pane_but_its_paths(isolated_home: Path, tty: Callable[..., None]) -> None:
    """The real spotter session: its compaction worker's head, 44 columns, and the 31-space
    indentation of its prompt's list, 51, ran over."""
    shutil.copytree(REAL / "claude" / "projects", isolated_home / ".claude" / "projects", copy_function=shutil.copyfile)
    tty(40, color=False)
    lines = _card("show", "258c7280", "--full", "--no-pager")
    paths = {"/home/USER/projects/spotter-worktrees/spotter-gqc", "~/.claude/projects/"}
    # (pass 53: a tool's input, a URL here, is kept whole for the terminal to fold, as a path is)
    assert [line for line in lines if width_of(line) > 40 and not any(p in line for p in paths)
            and not line.strip().startswith("https://")] == []
    at = lines.index("2026-02-11 21:17  ↳ subagent")
    assert lines[at + 1] == "    acompact-fffbd0"  # whole: it opens the run
    # a deep list keeps what indentation leaves 20 columns: 40 - 8 - 20
    assert lines[lines.index("                    If there is a next") + 1] == "                    step, include direct"


def test_a_compaction_too_wide_beside_its_time_goes_under_it(isolated_home: Path, tty: Callable[..., None]) -> None:
    shutil.copytree(REAL / "claude" / "projects", isolated_home / ".claude" / "projects", copy_function=shutil.copyfile)
    tty(30, color=False)
    lines = _card("show", "258c7280", "--full", "--no-pager")
    at = lines.index("2026-02-11 21:18  ── context")
    assert lines[at + 1:at + 3] == ["    compacted automatically", "    (167,094 tokens before)"]


# --- errors wrapped to the terminal ----------------------------------------------------------------


def test_a_usage_error_is_wrapped_to_the_terminal_its_command_whole(tty: Callable[..., None]) -> None:
    """``agentscan --demo 7f3c9a12`` (the README's id without ``show``) said its hint in one
    line of 103 columns; click's errors, and agentscan's own, are wrapped as a note is."""
    tty(40, color=False)
    result = invoke("--demo", "7f3c9a12")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert all(width_of(line) <= 40 for line in lines), lines
    assert lines[0].startswith("error: No such command '7f3c9a12'.") and lines[1].startswith("  ")
    assert any(line.strip().startswith("agentscan --demo show 7f3c9a12") for line in lines), lines  # (whole)
    assert lines[-1] == "Try 'agentscan --help' for help."
    for args in (["--demo", "list", "--since", "yesterdy"], ["--demo", "tokens", "--by", "dy"], ["--demo", "show", "zzzzzz"]):
        result = invoke(*args)
        assert result.exit_code != 0 and all(width_of(line) <= 40 for line in result.stderr.splitlines()), result.stderr


def test_a_piped_usage_error_stays_on_one_line() -> None:
    result = invoke("--demo", "7f3c9a12")
    assert result.stderr.splitlines()[0] == ("error: No such command '7f3c9a12'. Try: agentscan --demo show 7f3c9a12"
                                             " (a session's id goes after show)")


# --- a grouped row's REASONING when some of its agents record none apart ---------------------------


def _reasoning(lines: list[str], key: str) -> str:
    """The REASONING cell of the row ``key`` (a terminal's columns are 2 spaces or more apart,
    a pipe's one)."""
    split = cells if "  " in lines[0] else str.split
    header = split(lines[0]) if split is cells else lines[0].replace("CACHE ", "CACHE_").split()
    row = next(line for line in lines if line.startswith(key))
    return split(row)[header.index("REASONING")]


def test_a_grouped_row_of_agents_that_record_no_reasoning_apart_is_no_zero(tty: Callable[..., None]) -> None:
    """The demo by day: 2026-11-28 holds Claude's calls alone (its thinking inside OUTPUT),
    which said REASONING ``0``; 2026-11-27 holds Gemini's and Claude's, and showed Gemini's
    figure as if it were the day's."""
    tty(150, color=False)
    result = invoke("--demo", "tokens", "--by", "day")
    lines = result.stdout.splitlines()
    assert _reasoning(lines, "2026-11-28") == "-"
    assert _reasoning(lines, "2026-11-27") == "≥3,306"
    assert _reasoning(lines, "2026-10-14") == "1,123"  # (Gemini's alone: whole)
    assert _reasoning(lines, "TOTAL") == "≥6,157"
    assert "REASONING ≥N: at least N" in " ".join(result.stderr.split())


def test_a_pipe_keeps_a_partial_reasoning_a_number() -> None:
    piped = invoke("--demo", "tokens", "--by", "day").stdout.splitlines()  # (for awk)
    assert _reasoning(piped, "2026-11-28") == "-" and _reasoning(piped, "2026-11-27") == "3306"


def test_by_provider_and_by_session_rows_are_whole_or_unknown(tty: Callable[..., None]) -> None:
    tty(150, color=False)
    lines = invoke("--demo", "tokens", "--by", "provider").stdout.splitlines()
    assert _reasoning(lines, "gemini") == "4,429" and _reasoning(lines, "claude") == "-"


# --- a warning's path ------------------------------------------------------------------------------


def test_a_warning_names_its_file_from_home_on_a_terminal(isolated_home: Path, tty: Callable[..., None]) -> None:
    native = "cccccccc-2222-4333-8444-555555555555"
    _session(isolated_home, native)
    path = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{native}.jsonl"
    path.write_bytes(path.read_bytes() + b"{not json\n" + path.read_bytes().splitlines(keepends=True)[-1])
    piped = invoke("list").stderr
    assert f"warning: {path}:4: " in piped  # (a pipe's, for grep: whole)
    tty(200, color=False)
    said = invoke("list").stderr
    assert f"warning: ~/.claude/projects/-home-dev-project/{native}.jsonl:4: " in said, said
