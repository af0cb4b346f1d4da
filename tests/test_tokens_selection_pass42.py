"""``TokenReport.selection``: the report records the ids asked for (each one's session and the
run it names), the sessions ``--provider`` and ``--cwd`` left out (with their cwd) and how many
it covers, so the CLI only words them: each id is looked up once, by the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan import Scanner, token_report
from agentscan.cli import tokens_empty
from agentscan.scan import resolve
from builders import claude_assistant, claude_subagent_file, claude_usage, invoke
from patch_builders import IDS, project_session

API = "/home/dev/src/api"
WEB = "/home/dev/src/web"


def _home(home: Path) -> None:
    project_session(home, IDS[0], API, "api work", 1)
    project_session(home, IDS[1], WEB, "web work", 2)
    claude_subagent_file(home, IDS[0], "arun1", [claude_assistant(
        IDS[0], "2026-11-01T09:00:05Z", msg_id="m-run", request_id="r-run", usage=claude_usage(7, 1),
        sidechain=True, agentId="arun1")], project="-home-dev-src-api")


def test_the_report_records_what_was_asked_and_left_out(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        report = token_report(scanner, ids=["arun1", IDS[1], IDS[0]], cwd=API)
        chosen = report.selection
        assert [(query, ref.id, focus) for query, ref, focus in chosen.asked] == [
            ("arun1", f"claude:{IDS[0]}", "arun1"), (IDS[1], f"claude:{IDS[1]}", None),
            (IDS[0], f"claude:{IDS[0]}", None)]
        assert [(ref.id, cwd) for ref, cwd in chosen.by_cwd] == [(f"claude:{IDS[1]}", WEB)]
        assert chosen.by_provider == () and chosen.counted == 1  # one session, asked for twice
        assert [row.key for row in report.rows] == [f"claude:{IDS[0]}"]

        dropped = token_report(scanner, ids=[IDS[0], IDS[0]], providers="codex").selection
        assert [ref.id for ref in dropped.by_provider] == [f"claude:{IDS[0]}"] * 2 and dropped.counted == 0
        every = token_report(scanner).selection
        assert every.asked == () and every.by_cwd == () and every.counted == 2


def test_the_json_is_as_before(isolated_home: Path) -> None:
    """The selection is the CLI's to word: not in the report's JSON."""
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        document = token_report(scanner, ids=[IDS[1]], cwd=API).to_json()
    assert sorted(document) == ["by", "cost_usd", "cost_usd_priced", "prices", "rows", "total", "unpriced_models", "unreadable"]


def test_each_id_is_looked_up_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notes under the table (a subagent's id, the ids ``--cwd`` drops, an empty table's
    reason) come from the report: the ids were looked up again up to four more times."""
    _home(isolated_home)
    looked_up: list[str] = []
    find = resolve.find_session

    def counted(scanner, query):  # noqa: ANN001, ANN202
        looked_up.append(query)
        return find(scanner, query)

    monkeypatch.setattr(resolve, "find_session", counted)
    result = invoke("tokens", "arun1", IDS[1], "--cwd", API)
    assert result.exit_code == 0
    said = " ".join(result.stderr.split())
    assert f"arun1 is a subagent of claude:{IDS[0]}: its session is totalled" in said
    assert f"claude:{IDS[1]} (cwd {WEB}) is not under {API}: --cwd leaves it out" in said
    assert sorted(looked_up) == sorted(["arun1", IDS[1]])


def test_an_empty_table_under_a_cwd_counts_the_sessions_elsewhere(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("tokens", "--cwd", "/home/dev/elsewhere")
    assert result.exit_code == 0 and result.stdout == ""
    assert "no sessions under /home/dev/elsewhere (it does not exist; 2 elsewhere" in " ".join(result.stderr.split())


def test_one_limit_of_named_sessions(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``NAMED`` is the one limit: the ``--cwd`` note names that many, whatever it is."""
    monkeypatch.setattr(tokens_empty, "NAMED", 2)
    said = tokens_empty.cwd_drops([(f"claude:{n}", f"/p/{n}") for n in range(4)], "/q", every=False)
    assert said.endswith("claude:0 (cwd /p/0), claude:1 (cwd /p/1) and 2 more")
