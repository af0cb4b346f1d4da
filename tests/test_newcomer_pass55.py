"""A newcomer's pass 55 (a gh, git and ccusage user trying agentscan from its README).

- ``prices``' note on an ASCII stream read ``(web search, 1-hour cache writes, ~)``: the
  ``…`` of a list stood in as ``~``; the note says it in words.
- ``tokens --since last week`` unquoted got the generic list of time forms for ``last``
  (``list`` and ``export``, which take no id, already said to quote it): ``tokens`` took
  ``week`` for a session id.  It now says the window the two words name.
  ``otlp``, which takes ids too, alike.
- A resumed session's card counted a part's prompts as ``1234 prompts``: counted words
  come from ``toolkit.words.plural`` (``1,234 prompts``).
- No way to list days newest first (ccusage's ``daily --order desc``): ``tokens --reverse``
  (git log's word) turns the rows' order, in the table and ``--json``; ``agentscan daily
  --order desc`` is answered with ``tokens --by day --reverse``.
- ``tokens today --until 2d`` offered ``tokens --since today --until 2d``, which fails.
- The COST legend read ``'>$~'`` on an ASCII stream (``'≥$…'``): now ``'≥$N'``.
- ``show``'s counts wrapped inside a count (``12 tool calls, 1`` / ``interrupted``).
"""

from __future__ import annotations

from typer.testing import CliRunner

from agentscan.cli.show_lineage import _parts_text
from agentscan.cli.typer_app import app

runner = CliRunner()


def test_prices_note_needs_no_stand_in_on_an_ascii_stream(tty) -> None:  # noqa: ANN001
    tty(200, color=False)
    err = runner.invoke(app, ["--demo", "prices"]).stderr
    note = next(line for line in err.splitlines() if "--json has every price" in line)
    assert note.isascii(), note  # (a "…" stands in as "~" where the stream holds ASCII only)


def test_the_cost_legend_stands_in_as_the_table_s_own_form_on_an_ascii_stream() -> None:
    from agentscan.cli.streams import stood_in
    from agentscan.cli.tokens_notes import cost_forms_note

    class Ascii:
        encoding = "ascii"
        errors = "strict"

    # (read ``'>$~'`` where the table shows ``>$3.03``: the legend's ``…`` stood in as ``~``)
    assert "'>$N': at least" in stood_in(cost_forms_note({"-", "≥"}), Ascii())


def test_tokens_since_two_words_unquoted_says_the_window_they_name() -> None:
    result = runner.invoke(app, ["--demo", "tokens", "--since", "last", "week"])
    assert result.exit_code == 2
    assert "cannot read the time 'last': --since takes one word ('week' was read as a session id); " \
        "last week is --since " in result.stderr
    assert "use a date" not in result.stderr  # (not the list of every form)


def test_tokens_until_two_words_unquoted_names_its_own_option() -> None:
    result = runner.invoke(app, ["--demo", "tokens", "--by", "day", "--until", "past", "day"])
    assert result.exit_code == 2
    assert "'past': --until takes one word ('day' was read as a session id); the past day is --since 1d" \
        in result.stderr


def test_an_id_before_the_unquoted_window_does_not_hide_it() -> None:
    result = runner.invoke(app, ["--demo", "tokens", "7f3c9a12", "--since", "this", "month"])
    assert result.exit_code == 2
    assert "'this': --since takes one word ('month' was read as a session id); this month is --since " \
        in result.stderr


def test_otlp_which_takes_ids_too_says_the_window(tmp_path) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["--demo", "otlp", "--since", "last", "week", "-o", str(tmp_path / "t.jsonl")])
    assert result.exit_code == 2
    assert "'last': --since takes one word ('week' was read as a session id); last week is --since " in result.stderr
    assert not (tmp_path / "t.jsonl").exists()


def test_a_session_id_after_a_time_is_still_looked_up() -> None:
    result = runner.invoke(app, ["--demo", "tokens", "--since", "3d", "nosuchsession"])
    assert result.exit_code == 1
    assert "no session matches 'nosuchsession'" in result.stderr


def test_a_resumed_card_counts_a_part_s_prompts_with_thousands_separators() -> None:
    said = _parts_text([("claude:b", 1234), ("claude:d", 1)])
    assert said == ("those of its first 1,234 prompts, listed on claude:b's card, "
                    "and those of its next 1 prompt, listed on claude:d's card")


# --- tokens --reverse: the newest day first (ccusage's ``--order desc``) -------------------


def _keys(argv: list[str]) -> list[str]:
    import json

    result = runner.invoke(app, ["--demo", "tokens", *argv, "--json"])
    assert result.exit_code == 0, result.output
    return [row["key"] for row in json.loads(result.stdout)["rows"]]


def test_reverse_puts_the_newest_day_first_in_the_table_and_the_json() -> None:
    days = _keys(["--by", "day"])
    assert days == sorted(days) and len(days) > 2
    assert _keys(["--by", "day", "--reverse"]) == days[::-1]
    table = runner.invoke(app, ["--demo", "tokens", "--by", "day", "--reverse"]).stdout.splitlines()
    assert [line.split()[0] for line in table[1:-1]] == days[::-1]
    assert table[-1].startswith("TOTAL")


def test_reverse_turns_any_sort_s_order() -> None:
    dearest = _keys(["--sort", "cost"])
    assert _keys(["--sort", "cost", "--reverse"]) == dearest[::-1]


def test_reverse_is_its_own_answer_when_the_answer_is_remembered(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    # (a warm ``tokens --by day`` prints its kept answer: never for --reverse, nor the reverse's for it)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "cache"))
    for _ in range(2):
        days = [line.split()[0] for line in runner.invoke(app, ["--demo", "tokens", "--by", "day"]).stdout.splitlines()]
        newest = [line.split()[0] for line in
                  runner.invoke(app, ["--demo", "tokens", "--by", "day", "--reverse"]).stdout.splitlines()]
        assert newest[1:-1] == days[1:-1][::-1]


def test_a_cut_table_in_reverse_shows_the_oldest_sessions_and_says_so(tty) -> None:  # noqa: ANN001
    tty(200, color=False)
    result = runner.invoke(app, ["--demo", "tokens", "--reverse", "-n", "2"])
    lines = result.stdout.splitlines()
    assert lines[1].startswith("gemini:9b7d3e41")  # (the demo's oldest session)
    assert any("newer sessions, summed" in line for line in lines)
    assert "2 of 9 sessions, oldest first; the other 7 summed in one line" in " ".join(result.stderr.split())


def test_ccusage_s_order_desc_is_offered_as_reverse() -> None:
    result = runner.invoke(app, ["--demo", "daily", "--order", "desc"])
    assert "Try: agentscan --demo tokens --by day --reverse" in result.stderr
    assert "left out" not in result.stderr
    result = runner.invoke(app, ["--demo", "weekly", "-odesc", "--json"])
    assert "Try: agentscan --demo tokens --by week --json --reverse" in result.stderr
    result = runner.invoke(app, ["--demo", "monthly", "--order=asc"])  # (ccusage's default: oldest first)
    assert result.stderr.splitlines()[0].endswith("Try: agentscan --demo tokens --by month")


def test_a_time_typed_as_an_id_is_never_offered_with_an_until_before_it() -> None:
    # (``tokens today --until 2d`` offered ``tokens --since today --until 2d``, which fails:
    # ``--since must be before --until``)
    result = runner.invoke(app, ["--demo", "tokens", "today", "--until", "2d"])
    assert "hint: `agentscan --demo tokens --since today` counts tokens from then on (--since must be before " \
        "--until: --until 2d left out; tokens takes session ids)" in result.stderr
    offered = result.stderr.split("`")[1].split()[1:]
    assert runner.invoke(app, offered).exit_code == 0
    kept = runner.invoke(app, ["--demo", "tokens", "yesterday", "--until", "yesterday"]).stderr
    assert "tokens --since yesterday --until yesterday`" in kept  # (a window that holds a day: kept whole)


def test_show_s_counts_wrap_between_counts_never_inside_one(tty) -> None:  # noqa: ANN001
    from agentscan.cli.show_text import _field
    from agentscan.cli.term import terminal

    tty(60, color=False)
    lines = _field("counts", "2 prompts, 2 responses, 12 tool calls, 1 interrupted", terminal())
    assert lines == ["  counts   2 prompts, 2 responses, 12 tool calls,", "           1 interrupted"]
    assert all(len(line) <= 60 for line in lines)
    narrow = _field("counts", "1 prompt, 2 responses, 7 tool calls (+3 by subagents)", terminal()._replace(width=40))
    assert narrow == ["  counts   1 prompt, 2 responses,", "           7 tool calls (+3 by", "           subagents)"]
