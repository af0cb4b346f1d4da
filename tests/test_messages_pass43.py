"""Pass 43: messages that did not say what to do next, or said something else than what followed.

- ``show`` with no ID said click's bare ``Missing argument 'ID'.``, and ``export`` with no
  ``--format`` ``Missing option '--format' / '-f'.``: now what to give, and where the ids are.
- ``hooks status`` (and ``doctor`` with no session) said "for the agent you use, run:" over
  two commands: one for each agent.
- ``agentscan help`` described ``tokens`` as grouping by session, period, model, cwd or agent:
  ``--by provider`` too.
- ``export --days`` said "26 usage-day rows of 26 sessions" when 7 of them have no row.
- ``tokens`` on a terminal named each model with no price twice (a note, then its warning), and
  the warning offered ``prices --update`` for a model of one's own that no update prices.
"""

from __future__ import annotations

import csv
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.doctor_text import HOOKS_OPTIONAL
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from pricing_builders import claude_unknown_model_session

runner = CliRunner()


def one_line(text: str) -> str:
    return " ".join(text.split())


# --- a missing argument ------------------------------------------------------------------------

@pytest.mark.parametrize("args, error", [
    (["show"], "error: give a session ID (`agentscan list` shows the newest sessions' ids)"),
    (["show", "--json"], "error: give a session ID (`agentscan list` shows the newest sessions' ids)"),
    # the ids of the home this run reads, the global option before the command or after it
    (["--demo", "show"], "error: give a session ID (`agentscan --demo list` shows the newest sessions' ids)"),
    (["show", "--demo"], "error: give a session ID (`agentscan --demo list` shows the newest sessions' ids)"),
    (["show", "--home", "/tmp/a b"], "error: give a session ID (`agentscan --home '/tmp/a b' list` shows the "
                                     "newest sessions' ids)"),
    (["export", "-o", "x.txt"], "error: give a --format (-f): jsonl, csv or sqlite, or an --output ending in .jsonl, "
                                ".ndjson, .csv, .sqlite, .sqlite3 or .db"),
])
def test_a_missing_required_parameter_says_what_to_give(args: list[str], error: str, isolated_home: Path) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    command = "show" if "show" in args else "export"
    assert result.stderr.splitlines() == [error, f"Try 'agentscan {command} --help' for help."]
    assert result.stdout == ""


def test_the_usage_and_help_still_say_the_id_is_required() -> None:
    result = runner.invoke(app, ["show", "--help"])
    assert result.stdout.splitlines()[0] == "Usage: agentscan show [OPTIONS] ID"
    # export's --format is not: --output's extension says it (pass 45).
    shown = " ".join(runner.invoke(app, ["export", "--help"]).stdout.split())
    assert ("-f, --format FORMAT jsonl, csv or sqlite (default: what --output's extension says: .jsonl, .csv, "
            ".sqlite, …). -o, --output PATH") in shown and "[required]" not in shown


def test_other_usage_errors_of_show_are_click_s_as_before(isolated_home: Path) -> None:
    result = runner.invoke(app, ["show", "abcdef12", "extra"])
    # (in agentscan's words since pass 47: tests/test_usage_words_pass47.py)
    assert result.exit_code == 2 and "unexpected argument 'extra': show takes one ID" in result.stderr


# --- hooks not installed -----------------------------------------------------------------------

def test_hooks_status_asks_for_each_agent_s_install(isolated_home: Path) -> None:
    out = runner.invoke(app, ["hooks", "status"]).stdout
    assert out.startswith(f"hooks:\n  {HOOKS_OPTIONAL}\n  to install, for each agent you use, run:\n"
                          "    agentscan hooks install claude\n    agentscan hooks install cursor\n")


@pytest.mark.parametrize("found, lead, agents", [
    ((), "to install, for each agent you use, run:", ["claude", "cursor"]),
    (("claude", "cursor"), "to install, for each agent you use, run:", ["claude", "cursor"]),
    (("cursor",), "to install, run:", ["cursor"]),
])
def test_the_install_lead_fits_the_commands_under_it(found: tuple[str, ...], lead: str, agents: list[str]) -> None:
    from agentscan.cli.doctor_text import hook_lines
    from agentscan.cli.term import Terminal

    hooks = {"configs": [], "installed": False, "errors": {"last": [], "path": "x"},
             "store": {"by_agent": {}, "sessions": 0, "path": "/d", "source": "default", "exists": False}}
    lines = hook_lines(hooks, Terminal(tty=False, width=200, color=False), "", found)
    assert lines[1:3 + len(agents)] == [f"  {HOOKS_OPTIONAL}", f"  {lead}",
                                        *(f"    agentscan hooks install {a}" for a in agents)]


# --- help's one-liners -------------------------------------------------------------------------

def test_tokens_one_liner_names_every_grouping() -> None:
    from agentscan.scan.groupby import GROUPINGS
    from agentscan.static_help import TOP_LEVEL_HELP

    line = next(line for line in TOP_LEVEL_HELP.splitlines() if line.startswith("  tokens "))
    periods = {"day", "week", "month"}  # "period"
    assert "period" in line
    for key in set(GROUPINGS) - periods:
        assert key in line, (key, line)
    assert line == "  tokens  Token totals by session, period, model, provider, cwd or agent."


# --- export --days: the sessions its rows are of ---------------------------------------------------

def test_export_days_counts_the_sessions_its_rows_are_of(isolated_home: Path, tmp_path: Path) -> None:
    days, index = tmp_path / "days.csv", tmp_path / "all.jsonl"
    said = runner.invoke(app, ["--demo", "export", "-f", "csv", "--days", "-o", str(days)])
    assert said.exit_code == 0, said.output
    assert runner.invoke(app, ["--demo", "export", "-f", "jsonl", "-o", str(index)]).exit_code == 0
    with days.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    covered = len({row["session_id"] for row in rows})
    total = len(index.read_bytes().splitlines())
    assert 0 < covered < total  # the demo has sessions that recorded no tokens
    assert said.stdout == (f"wrote {len(rows)} usage-day rows of {covered} sessions to {days} "
                           f"(csv, {total - covered} more sessions recorded no tokens)\n")


def test_the_export_result_counts_the_sessions_of_its_days(tmp_path: Path) -> None:
    from agentscan.export.rows import UsageDay
    from agentscan.export.run import export

    made = [UsageDay(session, day, "m", None, (1, 0, 0, 1, 0))
            for session, day in (("a", "2026-11-01"), ("a", "2026-11-02"), ("b", "2026-11-01"))]
    result = export("jsonl", tmp_path / "d.jsonl", [], made, per_day=True)
    assert (result.usage_days, result.usage_day_sessions) == (3, 2)
    assert export("jsonl", tmp_path / "s.jsonl", [], made).usage_day_sessions == 0  # not --days


# --- a model with no price ------------------------------------------------------------------------

def _price_warning(model: str) -> str:
    doc = orjson.loads(runner.invoke(app, ["tokens", "--json"]).stdout)
    [message] = [w["message"] for w in doc["warnings"] if w["path"] == f"model:claude/{model}"]
    return message


UPDATE = "; for a model newer than this data, agentscan prices --update fetches newer prices"


def test_a_model_of_one_s_own_is_offered_no_update(isolated_home: Path) -> None:
    claude_unknown_model_session(isolated_home)
    message = _price_warning("aide-gpt-5")
    assert "--update" not in message
    # (pass 45) the fact, naming the price data once, what the gap looks like, and why no
    # update helps; no Markdown, no legend (the table's note says what - and ≥$… mean)
    from agentscan.pricing.source import current

    assert message == (f"no price: {current({}).label} has no model matching 'aide-gpt-5'; "
                       "a cost that includes its calls shows as - (unknown) or with ≥ (a lower bound); a name "
                       "of one's own (a gateway's, a local model's) is in no public price list: a price list of your "
                       "own prices it (AGENTSCAN_PRICES_URL: docs/pricing.md)")


def test_a_public_vendor_s_model_newer_than_the_data_is_offered_an_update(isolated_home: Path) -> None:
    claude_unknown_model_session(isolated_home, model="claude-opus-99-1")
    assert _price_warning("claude-opus-99-1").endswith(UPDATE)


def test_an_untimed_call_is_offered_no_update(isolated_home: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.pricing import book, unpriced

    context = ScanContext.create(env={"AGENTSCAN_DATA_DIR": str(isolated_home / "data")})
    prices = book.PriceBook(context)
    key = prices._unpriced_key("claude", "claude-sonnet-4-5", unpriced.UNTIMED)
    prices._report(key)
    [warning] = context.warnings.listed()
    assert "--update" not in warning.message


@pytest.mark.parametrize("name, public", [
    ("gpt-9", True), ("claude-opus-9", True), ("o7-mini", True), ("gemini-9-pro", True), ("openai/gpt-9", True),
    ("eu.anthropic.claude-opus-9", True), ("GPT-9", True),
    ("aide-gpt-5", False), ("omega-2", False), ("gptx-1", False), ("my-model", False), ("mystery-1", False),
    # a local model is in no price list (review s43): Ollama's by its prefix or its tag
    ("ollama/llama3", False), ("llama3.1:8b", False), ("qwen2.5-coder:7b", False), ("gemma3:27b", False),
    ("qwen2.5-coder:7b-instruct-q4_0", False), ("llama3:latest", False),
    ("o3pro", True), ("llama3.1", True), ("anthropic.claude-3-5-sonnet-20240620-v1:0", True),
])
def test_public_family(name: str, public: bool) -> None:
    from agentscan.pricing.aliases import public_family

    assert public_family(name) is public


def test_each_public_family_is_one_the_bundled_data_lists() -> None:
    """The list is of families whose newer models an update may bring: each has models there."""
    import re

    from genai_prices.data import providers

    from agentscan.pricing.aliases import PUBLIC_FAMILIES as families, public_family

    ids = [model.id for provider in providers for model in provider.models]
    for family in families:
        # the family as a name's start, after a vendor's ``amazon/`` or ``amazon.``
        assert any(re.search(rf"(?:^|[/.]){family}", model_id, re.IGNORECASE) and public_family(model_id)
                   for model_id in ids), family


def test_a_terminal_names_the_model_once(isolated_home: Path, tty) -> None:  # noqa: ANN001
    # A priced call beside the unpriced one: the TOTAL is a lower bound (≥).
    claude_unknown_model_session(isolated_home)
    claude_session_file(isolated_home, "c1a0de00-0000-4000-8000-0000000000aa", [
        claude_user("c1a0de00-0000-4000-8000-0000000000aa", "2025-10-02T10:00:00.000Z", "hi", uuid="y1"),
        claude_assistant("c1a0de00-0000-4000-8000-0000000000aa", "2025-10-02T10:00:05.000Z", msg_id="my",
                         request_id="ry", usage=claude_usage(input=1_000, output=100), uuid="y2"),
    ])
    tty(200, color=False)
    result = runner.invoke(app, ["tokens", "--by", "model"])
    err = one_line(result.stderr)
    assert "COST '-': unknown; '≥$N': at least what the priced calls cost" in err
    assert err.count("Claude Code model aide-gpt-5: no price") == 1 and "no price for aide-gpt-5" not in err
    verbose = one_line(runner.invoke(app, ["-v", "tokens", "--by", "model"]).stderr)
    assert ("warning: Claude Code model aide-gpt-5: no price: genai-prices ") in verbose
    assert " (bundled data) has no model matching 'aide-gpt-5'; a cost that includes its calls shows as - (unknown) or with ≥ (a lower bound)" in verbose


def test_the_model_is_named_though_more_warnings_than_are_shown(isolated_home: Path, tty) -> None:  # noqa: ANN001
    # Review s43: the note says "a model has no price (see warnings)" without naming it; with
    # six transcripts' bad lines before it, its warning was among the "… N more".
    for number in range(6):
        session = f"c1a0de00-0000-4000-8000-0000000001{number:02d}"
        path = claude_session_file(isolated_home, session, [
            claude_user(session, "2025-10-02T10:00:00.000Z", "hi", uuid=f"u{number}"),
            claude_assistant(session, "2025-10-02T10:00:05.000Z", msg_id=f"m{number}", request_id=f"r{number}",
                             usage=claude_usage(input=10, output=1), uuid=f"a{number}"),
        ], project=f"-home-dev-p{number}")
        good = path.read_bytes().splitlines(keepends=True)
        path.write_bytes(good[0] + b'{"type": "assistant", "usage":{"n": NaN}}\n' + good[1])
    claude_unknown_model_session(isolated_home)
    tty(200, color=False)
    err = one_line(runner.invoke(app, ["tokens"]).stderr)
    assert "Claude Code model aide-gpt-5: no price" in err and "… and 2 more" in err
