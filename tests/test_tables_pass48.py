"""Pass 48: a ``summary`` record names its session whatever the order of it and its leaf
(every path that finds a title agrees); ``tokens --by project``; Claude's reasoning shown as
``-`` in the text table."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentscan.context import ScanContext
from agentscan.providers.claude import halfjoin, halves, rowresume
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.titles import MAX_SUMMARIES, title_of
from agentscan.scan.scanner import Scanner
from builders import claude_session_file
from claude_events import SESSION, lines_of, lower_row_limits, qa_turns
from spies import record_calls, record_results

_NAME = "Fixing the flaky build"


def _summary(leaf: str, text: str = _NAME) -> dict:
    return {"type": "summary", "summary": text, "leafUuid": leaf}


def _home_with(tmp_path: Path, records: list) -> Path:
    home = tmp_path / "home"
    claude_session_file(home, SESSION, []).write_bytes(lines_of(records))
    return home


def _row_and_facts(home: Path) -> tuple[str | None, str | None]:
    """The row's title (its pass) and the table's (``tablefacts``, from the bytes)."""
    scanner = Scanner(home=home, env={}, use_cache=False)
    with scanner:
        provider = scanner.provider("claude")
        (ref,) = provider.discover(scanner.ctx)
        row = provider.row(ref, scanner.ctx)
        facts = ClaudeProvider().table_facts(ref, scanner.ctx)
    assert facts is not None
    return row.title, facts.title


# -- (a) a summary after its leaf -----------------------------------------------------------


@pytest.mark.parametrize("where", ["last", "first", "middle"])
def test_a_summary_names_the_session_before_or_after_its_leaf(tmp_path: Path, where: str) -> None:
    turns = qa_turns(3)
    leaf = turns[-1]["uuid"]
    records = {"last": [*turns, _summary(leaf)], "first": [_summary(leaf), *turns],
               "middle": [*turns[:3], _summary(turns[1]["uuid"]), *turns[3:]]}[where]
    assert _row_and_facts(_home_with(tmp_path, records)) == (_NAME, _NAME)


def test_a_summary_of_another_session_still_comes_last(tmp_path: Path) -> None:
    records = [*qa_turns(2), _summary("not-in-this-file")]
    assert _row_and_facts(_home_with(tmp_path, records)) == ("question 0", "question 0")


def test_of_two_summaries_the_one_whose_leaf_comes_last_names_it(tmp_path: Path) -> None:
    turns = qa_turns(4)
    early, late = turns[1]["uuid"], turns[6]["uuid"]
    for records in ([_summary(late, "late leaf"), *turns, _summary(early, "early leaf")],
                    [_summary(early, "early leaf"), *turns, _summary(late, "late leaf")],
                    [*turns, _summary(early, "early leaf"), _summary(late, "late leaf")]):
        home = _home_with(tmp_path / str(len(list(tmp_path.iterdir()))), records)
        assert _row_and_facts(home) == ("late leaf", "late leaf")


def test_a_leaf_only_nested_in_a_record_is_no_leaf(tmp_path: Path) -> None:
    turns = qa_turns(2)
    turns[1]["toolUseResult"] = {"uuid": "nested-leaf"}
    records = [*turns, _summary("nested-leaf")]
    assert _row_and_facts(_home_with(tmp_path, records)) == ("question 0", "question 0")


def test_pending_summaries_stay_bounded(tmp_path: Path) -> None:
    turns = qa_turns(2)
    records = [*turns, *(_summary(f"other-{n}", f"other {n}") for n in range(MAX_SUMMARIES * 2))]
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records))
    summary = summarize(path, ScanContext(tmp_path, {}))
    assert len(summary.pending_summaries) <= MAX_SUMMARIES and len(summary.summaries) <= MAX_SUMMARIES


# -- the huge-file halves -------------------------------------------------------------------


def _halved_title(path: Path, tmp_path: Path, seam: int, monkeypatch: pytest.MonkeyPatch) -> tuple[str | None, bool]:
    joined = record_calls(monkeypatch, halfjoin.Join, "apply", lambda *args: "joined")
    parts = halves.Halves(path, ScanContext(tmp_path, {}), os.stat(path), seam)
    try:
        summary, totals, progress = parts.first_half(ShowFacts())
        summary, _ = parts.join(summary, totals, None, progress)
    finally:
        parts.stop()
    return title_of(summary), bool(joined)


def _seam_before(path: Path, index: int) -> int:
    data = path.read_bytes()
    return [0, *(n + 1 for n, byte in enumerate(data) if byte == 0x0A)][index]


@pytest.mark.parametrize("case", ["summary in the second half, leaf in the first",
                                  "summary in the first half, leaf in the second",
                                  "leading summary, leaf in the second half"])
def test_the_halves_title_a_summary_as_one_pass_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)
    turns = qa_turns(8)
    if case.startswith("summary in the second"):
        records, seam = [*turns[:12], _summary(turns[3]["uuid"]), *turns[12:]], 6
    elif case.startswith("summary in the first"):
        records, seam = [*turns[:3], _summary(turns[12]["uuid"]), *turns[3:]], 8
    else:
        records, seam = [_summary(turns[12]["uuid"]), *turns], 8
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records))
    title, _ = _halved_title(path, tmp_path, _seam_before(path, seam), monkeypatch)
    assert title == title_of(summarize(path, ScanContext(tmp_path, {}))) == _NAME


def test_the_halves_take_a_later_summary_renaming_a_leaf_the_first_half_matched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 48: the join dropped the second half's summary of a leaf already matched)
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)
    turns = qa_turns(8)
    leaf = turns[3]["uuid"]
    records = [{"type": "summary", "summary": "first name", "leafUuid": leaf}, *turns[:12],
               {"type": "summary", "summary": "second name", "leafUuid": leaf}, *turns[12:]]
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records))
    title, joined = _halved_title(path, tmp_path, _seam_before(path, 8), monkeypatch)
    assert joined and title == title_of(summarize(path, ScanContext(tmp_path, {}))) == "second name"


def test_a_line_nesting_a_pending_leaf_many_times_is_decoded_once(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 48: each nested "uuid" decoded its whole line again: N² on a crafted record)
    from agentscan.providers.claude import lateleaves

    decoded = record_calls(monkeypatch, lateleaves, "line_record", lambda *args, **kwargs: None)
    nested = {"type": "user", "uuid": "u1", "toolUseResult": [{"uuid": "L"}] * 500}
    path = tmp_path / "t.jsonl"
    path.write_bytes(lines_of([nested, {"type": "assistant", "uuid": "L"}]))
    assert lateleaves.late_leaves(path, {"L": path.stat().st_size + 1}) == {"L": path.stat().st_size}
    assert len(decoded) == 2


def test_a_line_after_a_summary_nesting_its_leaf_is_looked_at_once() -> None:
    # (review of pass 48: each nested uuid of a line past its summary searched the line's ends
    # again, N searches of its N bytes, before a later summary's leaf was looked for)
    from agentscan.providers.claude import lateleaves

    class Counted(bytes):
        searches = 0

        def find(self, *args: object) -> int:  # type: ignore[override]
            Counted.searches += 1
            return super().find(*args)  # type: ignore[arg-type]

        def rfind(self, *args: object) -> int:  # type: ignore[override]
            Counted.searches += 1
            return super().rfind(*args)  # type: ignore[arg-type]

    lines = [{"type": "summary", "summary": "x", "leafUuid": "X"},
             {"type": "user", "uuid": "u1", "toolUseResult": [{"uuid": "X"}] * 500},
             {"type": "assistant", "uuid": "a1"}, {"type": "summary", "summary": "y", "leafUuid": "Y"}]
    data = Counted(lines_of(lines))
    ends = [n + 1 for n, byte in enumerate(data) if byte == 0x0A]
    found: dict[str, int] = {}
    lateleaves._scan(data, len(data), 0, {"X": ends[0], "Y": ends[3]}, found)
    assert found == {} and Counted.searches < 10


# -- the row resumed from its kept state ----------------------------------------------------


def _title(home: Path, *, cache: bool) -> str | None:
    env = {"HOME": str(home), "AGENTSCAN_CACHE_DIR": str(home.parent / "cache")}
    with Scanner(env=env, use_cache=cache) as scanner:
        (row,) = scanner.all_rows()
        return row.title


def test_a_resumed_row_finds_a_summary_appended_after_its_leaf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)
    loads = record_results(monkeypatch, rowresume, "load")
    turns = qa_turns(6)
    home = _home_with(tmp_path, turns)
    assert _title(home, cache=True) == "question 0"
    path = next((home / ".claude" / "projects").rglob("*.jsonl"))
    with path.open("ab") as handle:
        handle.write(lines_of([_summary(turns[4]["uuid"]), *qa_turns(1, start=6)]))
    assert _title(home, cache=True) == _title(home, cache=False) == _NAME
    assert loads and loads[-1] is not None  # (the second scan went on from the kept state)


def test_a_kept_state_holds_its_summaries_told_not_pending(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 48: kept pending, every run after an append scanned the file again)
    from agentscan.providers.claude import lateleaves

    lower_row_limits(monkeypatch)
    loads = record_results(monkeypatch, rowresume, "load")
    turns = qa_turns(6)
    home = _home_with(tmp_path, [*turns, _summary(turns[4]["uuid"])])
    assert _title(home, cache=True) == _NAME
    scans = record_calls(monkeypatch, lateleaves, "late_leaves", lambda *args: None)
    path = next((home / ".claude" / "projects").rglob("*.jsonl"))
    with path.open("ab") as handle:
        handle.write(lines_of(qa_turns(1, start=6)))
    assert _title(home, cache=True) == _NAME
    assert loads and loads[-1] is not None and not scans


# -- (b) ``tokens --by project`` ------------------------------------------------------------


@pytest.mark.parametrize("value", ["project", "Projects"])
@pytest.mark.parametrize("json", [False, True])
def test_by_project_is_by_cwd(isolated_home: Path, value: str, json: bool) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app

    def run(by: str) -> tuple[int, str]:
        result = CliRunner().invoke(app, ["--demo", "tokens", "--by", by, *(["--json"] if json else [])])
        return result.exit_code, result.stdout

    by_project, by_cwd = run(value), run("cwd")
    assert by_project == by_cwd and by_cwd[0] == 0 and by_cwd[1]


def test_by_project_beside_by_cwd_is_one_grouping(isolated_home: Path) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, ["--demo", "tokens", "--by", "cwd", "--by", "project"])
    assert result.exit_code == 0, result.stderr


# -- (c) REASONING ``-`` where no agent records it apart -------------------------------------


def _claude_home(home: Path) -> None:
    claude_session_file(home, SESSION, qa_turns(2))


def _tokens(*argv: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, ["tokens", *argv])
    return result.exit_code, result.stdout


def _reasoning_cells(out: str) -> dict[str, str]:
    """Each line's REASONING cell by its first cell (a right-aligned column: the last word
    before where its header ends)."""
    lines = [line for line in out.splitlines() if line.strip()]
    end = lines[0].index("REASONING") + len("REASONING")
    return {line.split()[0]: line[:end].split()[-1] for line in lines[1:] if not line.startswith("(")}


@pytest.mark.parametrize("by", ["session", "day", "model", "provider", "cwd"])
def test_claude_reasoning_is_a_dash_not_0_in_the_text_table(isolated_home: Path, by: str) -> None:
    _claude_home(isolated_home)
    code, out = _tokens("--by", by)
    assert code == 0
    cells = _reasoning_cells(out)
    assert "TOTAL" in cells and set(cells.values()) == {"-"}, out  # every row's, and TOTAL's


def test_the_json_keeps_claude_reasoning_0(isolated_home: Path) -> None:
    import json

    _claude_home(isolated_home)
    code, out = _tokens("--json")
    doc = json.loads(out)
    assert code == 0 and doc["rows"][0]["tokens"]["reasoning"] == 0 and doc["total"]["reasoning"] == 0


@pytest.mark.parametrize("by", ["session", "provider", "day"])
def test_an_agent_that_records_reasoning_keeps_its_figures(by: str) -> None:
    from typer.testing import CliRunner

    from agentscan.cli import app

    cells = _reasoning_cells(CliRunner().invoke(app, ["--demo", "tokens", "--by", by]).stdout)
    assert cells["TOTAL"] == "6157"  # the demo's Codex and Gemini sessions record it
    if by == "session":
        assert {cells[key] for key in cells if key.startswith(("claude:", "cursor:"))} == {"-"}
        assert all(cells[key] not in ("-", "0") for key in cells if key.startswith(("codex:", "gemini:")))
    elif by == "provider":
        assert (cells["claude"], cells["cursor"], cells["codex"]) == ("-", "-", "1728")
    else:
        # A day of Claude's or Cursor's calls alone says ``-`` too, since pass 51 (it said 0);
        # one mixing agents shows the others' figure (a lower bound, ``≥``, on a terminal).
        assert (cells["2026-11-28"], cells["2026-11-29"], cells["2026-11-27"]) == ("-", "-", "3306")
        assert "0" not in cells.values()
