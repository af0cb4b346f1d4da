"""``tokens --breakdown`` (pass 54): ccusage's most used flag, each row's models under it.

Before, ``tokens --breakdown`` was an unknown option sent to an ``export --days`` + ``jq``
recipe, and ``--by day,model`` to the same.  Now each row (of every ``--by`` but ``model``)
has its models: lines under it in the table, ``models`` in ``--json``, adding up to the row
exactly and agreeing with ``--by model`` over the row's period and with the export's days,
in a zone with a clock change inside the report.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders import cli_json, forget_remembered_answers, invoke
from codex_builders import Calls, line, meta, rollout_path, task_started, turn_context, user_message, write_rollout

from agentscan.cli import app

runner = CliRunner()
ZONE = "America/New_York"  # its clock goes back on 2026-11-01, inside the demo's calls
THREAD = "019d1000-0000-7000-8000-0000000b4254"


def _tiered_thread(start: datetime) -> list[dict[str, Any]]:
    """A Codex thread whose calls straddle New York's midnights around the clock change, on
    the ``priority`` tier and on none."""
    calls = Calls()
    lines = [meta(THREAD, start), task_started(start), turn_context(start, model="gpt-5.5"), user_message(start, "go")]
    for hours, tier in ((0, "priority"), (2, "default"), (25, "priority"), (26, "default")):
        moment = start + timedelta(hours=hours)
        lines += [line(moment, "event_msg", {"type": "thread_settings_applied", "thread_settings": {
                      "cwd": "/work/project", "model": "gpt-5.5", "model_provider_id": "openai", "service_tier": tier}}),
                  calls.call(moment + timedelta(seconds=5), 10_000 + hours, 4_000, 1_000, 200)]
    return lines


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """The demo's sessions (Claude Code, Codex, Gemini CLI and Cursor, with subagents of
    each) and a Codex thread on a service tier."""
    from agentscan.demo import demo_home

    shutil.copytree(demo_home(), isolated_home, dirs_exist_ok=True)
    start = datetime(2026, 11, 1, 3, 30, tzinfo=UTC)  # 23:30 on Oct 31 in New York
    write_rollout(rollout_path(isolated_home / ".codex", THREAD, start), _tiered_thread(start))
    return isolated_home


def _usage(doc: dict[str, Any]) -> dict[str, int]:
    return doc["tokens"]


def _add(usages: list[dict[str, int]]) -> dict[str, int]:
    summed: dict[str, int] = defaultdict(int)
    for usage in usages:
        for name, value in usage.items():
            summed[name] += value
    return dict(summed)


@pytest.mark.parametrize("by", ["day", "week", "month", "session", "provider", "cwd", "agent"])
def test_each_rows_models_add_up_to_it_exactly(home: Path, by: str) -> None:
    doc = cli_json("tokens", "--by", by, "--breakdown", "--tz", ZONE)
    assert doc["rows"]
    for row in doc["rows"]:
        models = row["models"]
        if row["tokens"] is None:
            assert models == []
            continue
        assert _add([_usage(part) for part in models]) == row["tokens"], (by, row["key"])
        assert {"model", "tokens", "cost_usd", "cost_usd_priced", "unpriced_models"} == set(models[0])
        costs = [Decimal(str(part["cost_usd"])) for part in models]
        assert costs == sorted(costs, reverse=True)  # the dearest first
    # subagents' calls are in their models: a row of delegated calls alone has its models
    if by == "agent":
        runs = {row["key"]: row for row in doc["rows"]}
        assert runs["reviewer"]["own"] is None and runs["reviewer"]["models"][0]["tokens"] == runs["reviewer"]["tokens"]
    assert "models" not in cli_json("tokens", "--by", by, "--tz", ZONE)["rows"][0]  # only when asked for
    # the costs too, exactly (the library's Decimals: the JSON's are rounded to the millionth)
    from agentscan import Scanner
    from agentscan.scan.tokens import token_report

    for row in token_report(Scanner(home=home, env={}), by=by, breakdown=True, tz=ZONE).rows:
        if row.tokens is not None:
            assert row.models and sum(part.cost or 0 for part in row.models) == row.cost, (by, row.key)


def test_a_days_models_are_by_models_of_that_day_and_the_export_days(home: Path) -> None:
    doc = cli_json("tokens", "--by", "day", "--breakdown", "--tz", ZONE)
    broken = {(row["key"], part["model"]): part for row in doc["rows"] for part in row["models"]}
    models = {model for _, model in broken}
    # the service tier's calls are a model of their own, as --by model keys them; a subagent's model too
    assert {"gpt-5.5", "gpt-5.5 (priority)", "claude-haiku-4-5-20251001", "gpt-5.1-codex-mini"} <= models
    # New York's Oct 31 holds the first priority call, Nov 1 (25 hours long) the next two
    assert ("2026-10-31", "gpt-5.5 (priority)") in broken and ("2026-11-01", "gpt-5.5") in broken
    for day in {day for day, _ in broken}:
        by_model = cli_json("tokens", "--by", "model", "--since", day, "--until", day, "--tz", ZONE)
        assert {(day, row["key"]): (row["tokens"], row["cost_usd"]) for row in by_model["rows"]} == \
            {key: (part["tokens"], part["cost_usd"]) for key, part in broken.items() if key[0] == day}, day
    exported = invoke("export", "-f", "jsonl", "--days", "--tz", ZONE, "-o", "-")
    assert exported.exit_code == 0, exported.output
    days: dict[tuple[str, str], list[dict[str, int]]] = defaultdict(list)
    for text in exported.stdout.splitlines():
        record = json.loads(text)
        days[record["day"], record["model"]].append(record["tokens"])
    assert {key: _add(usages) for key, usages in days.items()} == {key: part["tokens"] for key, part in broken.items()}


def test_a_warm_breakdown_reads_the_cached_sums_not_the_calls(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cached group is one model's: ``--by day --breakdown`` decodes no call the plain
    ``--by day`` does not (and prints what a cold one does)."""
    from agentscan.scan import tokens

    cold = cli_json("tokens", "--by", "day", "--breakdown")
    cli_json("tokens", "--by", "day")
    forget_remembered_answers()
    decoded: list[int] = []
    collect = tokens.collect

    def counting(*args: Any, **kwargs: Any) -> Any:
        usage = collect(*args, **kwargs)
        decoded.append(sum(len(part.entries) for part in usage.values()))
        return usage

    monkeypatch.setattr(tokens, "collect", counting)
    plain = cli_json("tokens", "--by", "day")
    warm = cli_json("tokens", "--by", "day", "--breakdown")
    assert decoded[0] == decoded[1]
    assert warm["rows"] == cold["rows"] and [row["tokens"] for row in warm["rows"]] == [row["tokens"] for row in plain["rows"]]
    assert cli_json("tokens", "--by", "day", "--breakdown")["rows"] == cold["rows"]  # remembered, as made
    assert "models" not in cli_json("tokens", "--by", "day")["rows"][0]  # its own answer, not the other's


def test_the_table_has_a_line_a_model_under_each_row(home: Path) -> None:
    out = invoke("tokens", "--by", "day", "--breakdown", "--tz", ZONE)
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert "\x1b" not in out.stdout  # a pipe: no colour
    at = lines.index(next(text for text in lines if text.startswith("2026-10-31 ")))
    model_line = lines[at + 1]
    assert model_line.startswith("  gpt-5.5 (priority) ")
    day, model = re.split(r"\s{2,}", lines[at].strip()), re.split(r"\s{2,}", model_line.strip())
    assert day[1:] == model[1:]  # that day's one model: its figures are the day's
    plain = invoke("tokens", "--by", "day", "--tz", ZONE).stdout.splitlines()
    assert [text.split() for text in lines if not text.startswith(" ")] == [text.split() for text in plain]


def test_a_terminal_names_the_models_as_by_model_does(home: Path, tty: Any) -> None:
    tty(160)
    out = invoke("tokens", "--by", "week", "-b")
    assert out.exit_code == 0, out.output
    assert re.search(r"^  haiku-4\.5 ", out.stdout, re.M) and "claude-haiku-4-5-20251001" not in out.stdout
    by_session = invoke("tokens", "--breakdown", "--all").stdout.splitlines()
    at = next(index for index, text in enumerate(by_session) if text.startswith("claude:7f3c9a12"))
    assert [text.split()[0] for text in by_session[at + 1:at + 5]] == ["sonnet-4.5", "haiku-4.5", "own", "↳"]


def test_by_model_with_breakdown_is_a_usage_error(home: Path) -> None:
    result = runner.invoke(app, ["tokens", "--by", "model", "--breakdown"])
    assert result.exit_code == 2
    assert "--breakdown splits each row by model, and --by model's rows are models already" in result.stderr
    from agentscan import Scanner
    from agentscan.errors import UsageProblem
    from agentscan.scan.tokens import token_report

    with pytest.raises(UsageProblem) as refused:
        token_report(Scanner(home=home, env={}), by="model", breakdown=True)
    # In the library's words, naming its parameter, as the README says every UsageProblem does
    # (it said ``--breakdown`` and ``--by model``, with no ``parameter``).
    assert refused.value.parameter == "breakdown"
    assert "breakdown=True" in str(refused.value) and "--" not in str(refused.value)
    # The library knows no CLI spelling: the CLI's sentence is the CLI's (cli.tokensrules).
    import inspect

    from agentscan.scan.tokenmodels import check

    assert list(inspect.signature(check).parameters) == ["by", "breakdown"]
    assert "give --by day, week, month" in result.stderr


def test_a_models_line_shows_what_its_row_would(isolated_home: Path, tty: Any) -> None:
    """An unpriced model's cost is ``-`` and said so under the table; by session a Claude
    model's REASONING is ``-`` as its session's is (Claude Code records none apart)."""
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    session = "11111111-2222-3333-4444-555555555555"
    claude_session_file(isolated_home, session, [
        claude_user(session, "2026-11-07T10:00:00.000Z", "work", cwd="/w/p"),
        claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10)),
        claude_assistant(session, "2026-11-07T10:00:02.000Z", msg_id="m2", request_id="r2", usage=claude_usage(1000, 50),
                         model="my-local-llama")], project="-w-p")
    tty(120)
    lines = invoke("tokens", "--breakdown").stdout.splitlines()
    sonnet, local = (re.split(r"\s{2,}", text.strip()) for text in lines[2:4])
    assert sonnet == ["sonnet-4.5", "100", "0", "0", "10", "-", "110", "<$0.01"]
    assert local == ["my-local-llama", "1,000", "0", "0", "50", "-", "1,050", "-"]
    assert "COST '-': unknown" in invoke("tokens", "--breakdown").stderr
    (row,) = cli_json("tokens", "--breakdown", "--by", "day")["rows"]
    assert [(part["model"], part["cost_usd"], part["unpriced_models"]) for part in row["models"]] == [
        ("claude-sonnet-4-5-20250929", row["cost_usd_priced"], []), ("my-local-llama", None, ["my-local-llama"])]


@pytest.mark.parametrize("by", ["day", "week", "month", "provider", "cwd", "session"])
@pytest.mark.parametrize("width", [30, 40])
def test_a_narrow_terminal_cuts_the_models_names_not_the_line(home: Path, tty: Any, by: str, width: int) -> None:
    # ``  gemini-3.1-pro-preview`` held a 30-column table at 33 (and a 40-column one at 40+)
    # where the table without it fits: its name is cut at its end, as ``--by model``'s are;
    # a row's own key (a day, an id, a path) never is.
    from agentscan.cli.term import width_of

    tty(width, color=False)
    plain = invoke("tokens", "--by", by).stdout.splitlines()
    lines = invoke("tokens", "--by", by, "-b").stdout.splitlines()
    over = [text for text in lines if width_of(text) > width]
    assert over == [text for text in plain if width_of(text) > width], over
    assert any(text.startswith("  gemini-") for text in lines)


def test_a_pipe_names_the_models_whole(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "30")
    assert re.search(r"^  gemini-3\.1-pro-preview +\d", invoke("tokens", "--by", "day", "-b").stdout, re.M)
