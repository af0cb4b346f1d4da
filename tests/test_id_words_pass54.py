"""A word typed where ``tokens`` takes an id, given back with the rest of the line (pass 54).

``agentscan tokens daily --since 7d -p claude`` hinted ``tokens --by day`` alone: run as
offered, it answered another question (every agent's, all time).  ``tokens codex daily``
hinted ``tokens -p codex`` and dropped ``daily``; ``tokens by day`` was told ``'by' is too
short``; ``prices gpt-5 --at now`` got the list of forms a time takes, though its help says
the default is now.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, fastpath

runner = CliRunner()

#: a line typed, and the hint it gets (after ``agentscan --demo``)
CASES = [
    (["tokens", "daily", "--since", "7d", "-p", "claude"],
     "tokens --by day --since 7d -p claude` adds up tokens, one line per day (tokens takes session ids)"),
    (["tokens", "--breakdown", "daily"], "tokens --by day --breakdown` adds up tokens, one line per day"),
    (["tokens", "codex", "daily"], "tokens -p codex --by day` adds up its sessions' tokens"),
    (["tokens", "daily", "codex"], "tokens --by day -p codex` adds up tokens, one line per day"),
    (["tokens", "by", "day"], "tokens --by day` adds up tokens, one line per day (tokens takes session ids)"),
    (["tokens", "per", "week", "--json"], "tokens --by week --json` adds up tokens, one line per week"),
    (["tokens", "today", "--cwd", "daily"], "tokens --since today --cwd daily` counts tokens from then on"),
    # one --by, as tokens takes it: models in each day are --breakdown's (as ``--by day --by model`` says)
    (["tokens", "daily", "--by", "model"], "tokens --by day --breakdown` adds up tokens, one line per day"),
    (["tokens", "models", "daily"], "tokens --by day --breakdown` adds up tokens, one line per day"),
    (["tokens", "daily", "--by", "day", "--json"], "tokens --by day --json` adds up tokens"),
    (["tokens", "blocks", "-p", "claude"], "tokens --since 5h -p claude` adds up the last 5 hours' tokens (agentscan has no"),
    (["tokens", "daily", "--demo", "-q"], "tokens --by day -q` adds up tokens"),  # (--demo said once)
    (["tokens", "last", "yesterday"], "tokens -n 1 --since yesterday` shows the newest session's tokens first"),
]


@pytest.mark.parametrize(("words", "said"), CASES)
def test_the_hint_keeps_the_other_words_by_typer(words: list[str], said: str) -> None:
    result = runner.invoke(app, ["--demo", *words])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[1].startswith(f"hint: `agentscan --demo {said}"), result.stderr


@pytest.mark.parametrize(("words", "said"), CASES)
def test_the_hint_keeps_the_other_words_by_the_fast_path(words: list[str], said: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert fastpath.parse(["--demo", *words]) is not None  # (the fast path's to run)
    assert fastpath.run(["--demo", *words]) == 1
    assert capsys.readouterr().err.splitlines()[1].startswith(f"hint: `agentscan --demo {said}")


def test_the_line_offered_runs() -> None:
    hint = runner.invoke(app, ["--demo", "tokens", "codex", "daily", "--json"]).stderr.splitlines()[1]
    offered = hint.split("`")[1].split()[1:]
    assert offered == ["--demo", "tokens", "-p", "codex", "--by", "day", "--json"]
    ran = runner.invoke(app, offered)
    assert ran.exit_code == 0, ran.output
    assert orjson.loads(ran.stdout)["by"] == "day"


def test_by_with_no_grouping_after_it_is_still_an_id(isolated_home: Path) -> None:
    result = runner.invoke(app, ["--demo", "tokens", "by"])
    assert "too short" in result.stderr and "--by" not in result.stderr


def test_show_of_a_provider_still_names_list() -> None:
    result = runner.invoke(app, ["--demo", "show", "codex", "--json"])
    assert result.stderr.splitlines()[1] == "hint: `agentscan --demo list -p codex` lists its sessions"


@pytest.mark.parametrize("at", ["now", "NOW"])
def test_prices_at_now_is_the_prices_now(isolated_home: Path, at: str) -> None:
    plain = runner.invoke(app, ["prices", "gpt-5", "--json"])
    now = runner.invoke(app, ["prices", "gpt-5", "--at", at, "--json"])
    assert now.exit_code == 0, now.output
    assert orjson.loads(now.stdout) == orjson.loads(plain.stdout)


# --- ``tokens last week``: a window said aloud, not the newest session (``last``) -------------


@pytest.mark.parametrize(("words", "window"), [
    (["last", "week"], r"--since (\d{4}-W\d{2}) --until \1"),
    (["previous", "month"], r"--since (\d{4}-\d{2}) --until \1"),
    (["last", "day"], r"--since yesterday --until yesterday"),
    (["this", "week"], r"--since \d{4}-W\d{2}"),
    (["this", "month", "-p", "codex"], r"--since \d{4}-\d{2} -p codex"),
    (["past", "week"], r"--since 7d"),
])
def test_a_window_said_aloud_is_its_options(words: list[str], window: str) -> None:
    import re

    result = runner.invoke(app, ["--demo", "tokens", *words])
    assert result.exit_code == 1
    hint = result.stderr.splitlines()[1]
    assert re.fullmatch(rf"hint: `agentscan --demo tokens {window}` counts the tokens of .* \(tokens takes session ids\)",
                        hint), hint
    assert runner.invoke(app, hint.split("`")[1].split()[1:]).exit_code == 0  # (the line offered runs)


def test_last_alone_is_still_the_newest_session() -> None:
    result = runner.invoke(app, ["--demo", "tokens", "last"])
    assert result.stderr.splitlines()[1].startswith("hint: `agentscan --demo tokens -n 1` shows the newest session's")


@pytest.mark.parametrize(("typed", "said"), [
    ("last week", r"last week is --since (\d{4}-W\d{2}) --until \1"),
    ("Past Day", r"the past day is --since 1d"),
    ("this month", r"this month is --since \d{4}-\d{2}"),
])
def test_since_a_window_said_aloud_names_its_options(typed: str, said: str) -> None:
    import re

    result = runner.invoke(app, ["--demo", "tokens", "--since", typed])
    assert result.exit_code == 2
    assert re.fullmatch(rf"error: cannot read the time {typed!r}: {said}", result.stderr.splitlines()[0]), result.stderr


# --- a phrase wherever typed; a hint never offers a line known to fail (pass 54, last mend) ---

#: a line typed, and the hint it gets (after ``agentscan --demo``)
PHRASED = [
    # ``by day`` after another word (``codex``) is ``--by day``, not ``by`` kept as an id (too short)
    (["tokens", "codex", "by", "day"], "tokens -p codex --by day` adds up its sessions' tokens"),
    (["tokens", "daily", "per", "week"], "tokens --by day` adds up tokens, one line per day (--by takes one "
     "grouping, not 2 (day, week): --by week left out; tokens takes session ids)"),
    # two groupings: one offered, the other said left out in ``--by``'s error's words
    (["tokens", "weekly", "daily"], "tokens --by week` adds up tokens, one line per week (--by takes one grouping, "
     "not 2 (week, day): --by day left out; tokens takes session ids)"),
    (["tokens", "codex", "weekly", "daily"], "tokens -p codex --by week` adds up its sessions' tokens (--by takes "
     "one grouping, not 2 (week, day): --by day left out)"),
    (["tokens", "codex", "models", "daily"], "tokens -p codex --by day --breakdown` adds up its sessions' tokens"),
    # no --limit under a grouping, no --breakdown under --by model
    (["tokens", "daily", "last"], "tokens --by day` adds up tokens, one line per day (--limit shapes the table by "
     "session; --by day shows every row: -n 1 left out; tokens takes session ids)"),
    (["tokens", "last", "daily"], "tokens --by day` adds up tokens, one line per day (--limit"),
    (["tokens", "last", "--json"], "tokens -n 1 --json` gives the newest session's tokens (tokens takes session ids)"),
    (["tokens", "codex", "daily", "-n", "2"], "tokens -p codex --by day` adds up its sessions' tokens (--limit"),
    (["tokens", "daily", "-a"], "tokens --by day` adds up tokens, one line per day (--all shapes the table"),
    # a second --since would silently win over the one the hint names (click keeps the last)
    (["tokens", "today", "yesterday"], "tokens --since today` counts tokens from then on (--since takes one time: "
     "--since yesterday left out; tokens takes session ids)"),
    (["tokens", "models", "--breakdown"], "tokens --by model` adds up tokens, one line per model (--by model's rows "
     "are models already: --breakdown left out; tokens takes session ids)"),
]


@pytest.mark.parametrize(("words", "said"), PHRASED)
def test_a_phrase_anywhere_and_no_line_known_to_fail(words: list[str], said: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    result = runner.invoke(app, ["--demo", *words])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[1].startswith(f"hint: `agentscan --demo {said}"), result.stderr
    assert fastpath.run(["--demo", *words]) == 1  # (the fast path says the same)
    assert capsys.readouterr().err.splitlines()[1].startswith(f"hint: `agentscan --demo {said}")


def test_a_window_said_after_a_provider_is_the_window() -> None:
    import re

    # ``tokens codex last week`` offered ``-n 1 --by week``, which fails: the week, as ``tokens last week -p codex``
    hint = runner.invoke(app, ["--demo", "tokens", "codex", "last", "week"]).stderr.splitlines()[1]
    assert re.fullmatch(r"hint: `agentscan --demo tokens -p codex --since (\d{4}-W\d{2}) --until \1` adds up its "
                        r"sessions' tokens", hint), hint
    alone = runner.invoke(app, ["--demo", "tokens", "last", "week", "-p", "codex"]).stderr.splitlines()[1]
    assert hint.split("`")[1].split()[-4:] == alone.split("`")[1].split()[3:7]  # (the same week)


#: every kind of line a hint is built for, each to be offered a line that runs
LINES = [[*CASES_WORDS] for CASES_WORDS, _said in CASES + PHRASED] + [
    ["tokens", "codex", "last", "week"], ["tokens", "codex", "this", "month", "per", "day"],
    ["tokens", "weekly", "daily", "monthly"], ["tokens", "last", "week", "daily"], ["tokens", "daily", "last", "week"],
    ["tokens", "yesterdy", "daily"], ["tokens", "today", "weekly", "last"],
    ["tokens", "codex", "last", "--json"], ["tokens", "blocks", "daily"], ["tokens", "blocks", "last", "--json"], ["tokens", "by", "model", "--breakdown"],
    ["tokens", "daily", "--json", "last"], ["tokens", "codex", "by", "day", "last"],
    # (final read: ``-n 1`` for ``last`` beside a typed ``--all`` or ``-n 5``)
    ["tokens", "last", "--all"], ["tokens", "last", "-n", "5"], ["tokens", "latest", "--limit", "3"],
]


@pytest.mark.parametrize("words", LINES, ids=" ".join)
def test_every_line_offered_runs(words: list[str]) -> None:
    result = runner.invoke(app, ["--demo", *words])
    assert result.exit_code == 1
    hint = result.stderr.splitlines()[1]
    offered = hint.split("`")[1].split()[1:]
    ran = runner.invoke(app, offered)
    assert ran.exit_code == 0, (hint, ran.output)
