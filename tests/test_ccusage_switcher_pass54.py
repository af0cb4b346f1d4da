"""A ccusage user's words, pass 54: what a switcher typed and was sent the wrong way.

- ``agentscan codex`` (``ccusage codex``: its daily report) was answered ``tokens -p codex
  --sort cost``, a by-session report.
- ``daily -p codex`` dropped the provider ("see docs/ccusage.md"), and ``-p web``, ccusage's
  project, was sent to a page that never said it.
- ``--speed``, ``--compact``, ``--no-cost``, ``--color``, ``--no-color`` and ``--no-offline``
  got no hint on ``tokens``, and "see docs/ccusage.md" in a report's line, where the page
  had none of them.
- ``--breakdown``'s hint sent the user to SQLite's ``token_days``, whose days are UTC, not
  ``tokens --by day``'s local ones; ``--by day,model`` was an ``unknown --by``.  (Since then
  ``tokens --breakdown`` is an option: tests/test_breakdown_pass54.py; a period crossed with
  models is sent to it.)
"""

from __future__ import annotations

import json
import shlex
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


def error_of(*argv: str) -> str:
    result = runner.invoke(app, list(argv))
    assert result.exit_code == 2, result.output
    return result.stderr.splitlines()[0]


# --- a report's command line ----------------------------------------------------------------

@pytest.mark.parametrize("argv, line", [
    # a provider alone is ccusage's daily report of it
    (["codex"], "agentscan tokens -p codex --by day"),
    (["claude", "--since", "20261101", "-j"], "agentscan tokens -p claude --by day --since 20261101 --json"),
    # a -p naming providers comes along; any other is ccusage's project
    (["daily", "-p", "codex", "-j"], "agentscan tokens --by day -p codex --json"),
    # a short option's value glued to it is the same words (``-pcodex``: left out before)
    (["daily", "-pcodex", "-s20261101", "-zUTC"], "agentscan tokens --by day -p codex --since 20261101 --tz UTC"),
    (["daily", "-pweb"], "agentscan tokens --by day; left out: -pweb (use --cwd: agentscan's -p is a provider)"),
    # ``daily --by-agent`` splits each day by agent: agentscan's is a table an agent
    (["daily", "--by-agent"], "agentscan tokens --by day; left out: --by-agent (run it once per agent: add -p claude, then -p codex and so on)"),
    (["monthly", "--provider=claude,gemini"], "agentscan tokens --by month -p claude,gemini"),
    (["daily", "-p", "web"], "agentscan tokens --by day; left out: -p web (use --cwd: agentscan's -p is a provider)"),
    (["codex", "daily", "-p", "claude"],
     "agentscan tokens -p codex --by day; left out: -p claude (use --cwd: agentscan's -p is a provider)"),
    # ccusage's switches agentscan needs none of, each said
    (["daily", "--all", "--no-cost", "--compact"],
     "agentscan tokens --by day; left out: --all (every provider is counted), --no-cost (COST is always shown), "
     "--compact (a table fits the terminal)"),
    (["codex", "weekly", "--speed", "fast", "--no-offline"],
     "agentscan tokens -p codex --by week; left out: --speed fast (each Codex call's tier is read from its rollout), "
     "--no-offline (agentscan prices --update fetches newer prices)"),
    (["daily", "--no-color"], "agentscan tokens --by day; left out: --no-color (NO_COLOR=1)"),
])
def test_a_reports_line_keeps_what_tokens_takes_and_says_the_rest(argv: list[str], line: str) -> None:
    said = error_of(*argv)
    assert said.endswith(f"Try: {line}"), said


def test_the_new_command_lines_run(isolated_home: Path) -> None:
    for argv in (["--demo", "codex"], ["--demo", "daily", "-p", "codex,gemini", "--json"]):
        line = error_of(*argv).split("Try: ", 1)[1].split(";")[0]
        result = runner.invoke(app, shlex.split(line)[1:])
        assert result.exit_code == 0, (line, result.output)


# --- ccusage's switches typed to tokens -----------------------------------------------------

@pytest.mark.parametrize("option, said", [
    ("--speed", "each Codex call's service tier is read from its rollout"),
    ("--compact", "a table fits the terminal by itself"),
    ("--no-cost", "COST is always shown"),
    ("--color", "FORCE_COLOR=1 turns it on in a pipe"),
    ("--no-color", "NO_COLOR=1 turns it off"),
    ("--no-offline", "agentscan prices calls offline, always"),
])
def test_a_ccusage_switch_is_answered(option: str, said: str) -> None:
    line = error_of("tokens", option)
    assert line.startswith(f"error: No such option: {option} (") and said in line, line


# --- ccusage's --breakdown ------------------------------------------------------------------

DAYS = "`agentscan export -f jsonl --days --tz local -o -` writes a record per session, day and model"


@pytest.mark.parametrize("argv, grouping", [(["tokens", "--by", "day,model"], "day"),
                                            (["tokens", "--by", "Model,DAY"], "day"),
                                            (["tokens", "--by", "day", "--by", "model"], "day"),
                                            (["tokens", "--by", "cwd,model"], "cwd")])
def test_a_grouping_crossed_with_a_model_is_sent_to_breakdown(argv: list[str], grouping: str) -> None:
    line = error_of(*argv)
    assert "--by takes one grouping, not 2" in line and f"`agentscan tokens --by {grouping} --breakdown`" in line, line


def test_other_crossings_are_still_sent_to_the_days_or_sqlite_and_an_empty_name_is_no_list() -> None:
    assert DAYS in error_of("tokens", "--by", "week,session")
    assert "`agentscan export -f sqlite` and GROUP BY both" in error_of("tokens", "--by", "cwd,provider")
    assert error_of("tokens", "--by", "day,").startswith("error: unknown --by 'day,'")


def test_the_pages_breakdown_recipe_adds_up_to_tokens_days_in_the_zone(isolated_home: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/ccusage.md's recipe, in a zone 9 hours off UTC: each day's models add up to
    ``tokens --by day``'s day (SQLite's UTC days would not)."""
    try:
        with monkeypatch.context() as patch:  # (not ``monkeypatch.undo()``: the isolated home stays)
            patch.setenv("TZ", "Asia/Tokyo")
            time.tzset()
            exported = runner.invoke(app, ["--demo", "export", "-f", "jsonl", "--days", "--tz", "local", "-o", "-"])
    finally:
        time.tzset()
    assert exported.exit_code == 0, exported.output
    by_day_model: dict[tuple[str, str], int] = defaultdict(int)
    for line in exported.stdout.splitlines():
        record = json.loads(line)
        by_day_model[record["day"], record["model"]] += record["tokens"]["total"]
    days: dict[str, int] = defaultdict(int)
    for (day, _), total in by_day_model.items():
        days[day] += total
    report = runner.invoke(app, ["--demo", "tokens", "--by", "day", "--tz", "Asia/Tokyo", "--json"])
    rows = {row["key"]: row["tokens"]["total"] for row in json.loads(report.stdout)["rows"]}
    assert days == rows and len({model for _, model in by_day_model}) > 3
    utc = runner.invoke(app, ["--demo", "tokens", "--by", "day", "--tz", "UTC", "--json"])
    assert {row["key"]: row["tokens"]["total"] for row in json.loads(utc.stdout)["rows"]} != rows  # the zone tells
    # and the page says that recipe, in this zone
    page = (Path(__file__).resolve().parents[1] / "docs" / "ccusage.md").read_text()
    assert "agentscan export -f jsonl --days --tz local -o - | jq -rs '" in page
    assert Decimal(str(json.loads(report.stdout)["cost_usd"])) > 0


# --- ccusage's id of a Codex session --------------------------------------------------------

def test_ccusages_codex_session_id_names_the_session(isolated_home: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``ccusage session --json`` keys a Codex session by its rollout's path under
    ``sessions/``, without ``.jsonl``; pasted into ``tokens ID`` or ``show ID`` it said
    ``no such file or directory``."""
    from datetime import datetime, timezone

    from codex_builders import meta, rollout_path, token_count, turn_context, usage, user_message, write_rollout

    thread = "5bfa9467-be3e-4a39-80cc-6037dbd5d301"
    started = datetime(2026, 9, 7, 16, 41, tzinfo=timezone.utc)
    path = write_rollout(rollout_path(isolated_home / ".codex", thread, started), [
        meta(thread, started), turn_context(started), user_message(started, "hello"),
        token_count(started, usage(1000, 400, 50), usage(1000, 400, 50))])
    monkeypatch.chdir(tmp_path)  # (no such relative path here)
    ccusage_id = str(path.relative_to(isolated_home / ".codex" / "sessions")).removesuffix(".jsonl")
    assert ccusage_id == f"2026/09/07/rollout-2026-09-07T16-41-00-{thread}"
    for query in (ccusage_id, ccusage_id.rsplit("/", 1)[1], ccusage_id.upper().replace("ROLLOUT", "rollout")):
        result = runner.invoke(app, ["tokens", query, "--json"])
        assert result.exit_code == 0, (query, result.output)
        assert [row["key"] for row in json.loads(result.stdout)["rows"]] == [f"codex:{thread}"]
    shown = runner.invoke(app, ["show", ccusage_id])
    assert shown.exit_code == 0 and f"codex:{thread}" in shown.stdout, shown.output
    # another thread's name is still no session, and a file of that name here is that file
    missing = runner.invoke(app, ["tokens", ccusage_id.replace("d301", "d300")])
    assert missing.exit_code == 1 and "no session matches" in missing.stderr
    # said of what was typed (a ``codex:<uuid>`` the user never typed left them wondering), then how it was read
    assert (f"no session matches '{ccusage_id.replace('d301', 'd300')}' (read as codex:{thread.replace('d301', 'd300')})"
            in missing.stderr), missing.stderr
    absent = runner.invoke(app, ["show", ccusage_id.rsplit("/", 1)[1].replace("d301", "d300")])
    assert absent.exit_code == 1 and "(read as codex:" in absent.stderr


def test_a_reports_breakdown_points_at_each_model_per_day() -> None:
    said = error_of("daily", "--since", "20261101", "-b")
    assert said.endswith("Try: agentscan tokens --by day --since 20261101 --breakdown"), said
    assert "## Each model per day" in (Path(__file__).resolve().parents[1] / "docs" / "ccusage.md").read_text()
