"""A UX review's findings (pass 40): ``prices`` on an 80-column terminal kept the name typed
and cut or dropped the answer (PRICED AS); a misspelt name got "no price" and no guess; the
hint without a name named a spelling ``list`` never shows; ``doctor`` suggested
``hooks install --agent claude`` where the agent is a word now; ``show`` broke its tokens
line inside a term (``83,968 cache⏎read``) and cut a tool call's path at its end, the file
name lost; docs/cli.md said ``tokens --by cwd`` lists the dearest first."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app, render
from agentscan.cli.term import Terminal, width_of

runner = CliRunner()
BEDROCK = "us.anthropic.claude-sonnet-4-20250514-v1:0"


def run(*args: str, code: int = 0) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.stderr, result.exception)
    return result.stdout, result.stderr


def table(out: str) -> list[str]:
    """``prices``' table: its lines after the one naming the price data (on a terminal; a
    pipe's stdout is the table alone, pass 45), which a narrow terminal wraps (pass 49)."""
    lines = out.splitlines()
    if lines and lines[0].startswith("price data: "):
        lines = lines[1:]
        while lines and lines[0].startswith("  "):
            lines = lines[1:]
    return lines


# --- 1: prices keeps its answer at 80 columns ---------------------------------------------------


def test_at_80_columns_a_bedrock_name_s_answer_is_shown(isolated_home: Path, tty) -> None:  # noqa: ANN001
    # (pass 45) The name asked outlasts the cache prices and the answer's width: at 80 the
    # answer is cut, from its start (pass 49: ``anthropic/claude-h…`` named no model) ...
    tty(80)
    lines = table(run("prices", BEDROCK)[0])
    assert lines[0].split() == ["MODEL", "PRICED", "AS", "INPUT", "OUTPUT"]
    assert lines[1].split() == [BEDROCK, "…nnet-4-20250514-v1:0", "$3.00", "$15.00"]
    assert all(width_of(line) <= 80 for line in lines)
    # ... and where the name would be cut, it goes (the answer names the row), the answer whole
    tty(60)
    lines = table(run("prices", BEDROCK)[0])
    assert lines[1].split() == ["aws/regional.anthropic.claude-sonnet-4-20250514-v1:0", "$3.00"]
    assert all(width_of(line) <= 60 for line in lines)


def test_at_80_columns_the_answer_that_names_the_model_is_whole(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(80)
    lines = table(run("prices", "claude-sonnet-4-5")[0])
    assert lines[1].split()[0] == "anthropic/claude-sonnet-4-5"
    assert lines[2].split()[:3] == ["above", "200k", "$6.00"]  # the tier under the answer
    assert all(width_of(line) <= 80 for line in lines)


def test_the_answer_is_cut_before_the_name_asked(isolated_home: Path, tty) -> None:  # noqa: ANN001
    """Two names with one answer: MODEL tells them apart, so it stays, whole while the cache
    prices and the answer's width can give way (pass 45: it was cut first)."""
    tty(80)
    lines = table(run("prices", "claude-sonnet-4-5", "sonnet-4.5", "gpt-5")[0])
    assert lines[0].split() == ["MODEL", "PRICED", "AS", "INPUT", "OUTPUT", "CACHE", "READ"]
    rows = [line.split() for line in lines[1:] if not line.startswith(" ")]
    assert [row[:2] for row in rows] == [["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"],
                                         ["sonnet-4.5", "anthropic/claude-sonnet-4-5"], ["gpt-5", "openai/gpt-5"]]
    assert all(width_of(line) <= 80 for line in lines)
    tty(50)
    lines = table(run("prices", "claude-sonnet-4-5", "sonnet-4.5", "gpt-5")[0])
    rows = [line.split() for line in lines[1:] if not line.startswith(" ")]
    assert [row[0] for row in rows] == ["claude-sonnet-4-5", "sonnet-4.5", "gpt-5"]
    # (cut from its start, pass 49: the model's name is what tells the rows apart)
    assert rows[0][1].startswith("…") and rows[0][1].endswith("-sonnet-4-5")
    assert all(width_of(line) <= 50 for line in lines)


def test_a_name_with_no_price_keeps_its_model_column(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(80)
    lines = table(run("prices", BEDROCK, "nope-1")[0])
    assert lines[0].split()[:3] == ["MODEL", "PRICED", "AS"]
    assert lines[1].split()[1].startswith("…") and lines[1].split()[1].endswith("-v1:0")
    assert lines[2].split()[:3] == ["nope-1", "no", "price"]


def test_a_fast_mode_price_says_so(isolated_home: Path) -> None:
    out = run("prices", "opus-4.8-fast", "claude-opus-4-8", "grok-4-fast")[0]
    rows = {line.split()[0]: line for line in table(out)[1:]}
    assert "anthropic/claude-opus-4-8 (fast mode)" in rows["opus-4.8-fast"]
    assert "(fast mode)" not in rows["claude-opus-4-8"] and "(fast mode)" not in rows["grok-4-fast"]


def test_a_pipe_gets_both_columns_whole(isolated_home: Path) -> None:
    lines = table(run("prices", BEDROCK)[0])
    assert lines[1].split()[:2] == [BEDROCK, "aws/regional.anthropic.claude-sonnet-4-20250514-v1:0"]


# --- 2: a misspelt name gets the names like it ----------------------------------------------------


def test_a_misspelt_name_gets_a_guess_and_the_exit_code_stays(isolated_home: Path) -> None:
    out, err = run("prices", "claude-sonet-4-5", "gpt5")
    assert "claude-sonet-4-5: did you mean claude-sonnet-4-5?" in err.splitlines()
    assert "gpt5: did you mean gpt-5?" in err.splitlines()
    assert "no price" in out
    _, err = run("--strict", "prices", "claude-sonet-4-5", code=1)
    assert "did you mean claude-sonnet-4-5?" in err
    assert "did you mean" not in run("--quiet", "prices", "claude-sonet-4-5")[1]


def test_the_guesses_are_in_json_for_a_name_with_no_price(isolated_home: Path) -> None:
    document = orjson.loads(run("prices", "claude-sonet-4-5", "claude-sonnet-4-5", "--json")[0])
    assert [model["suggestions"] for model in document["models"]] == [["claude-sonnet-4-5"], []]


def test_provider_narrows_the_guesses_to_its_vendor(isolated_home: Path) -> None:
    document = orjson.loads(run("prices", "-p", "codex", "claude-sonet-4-5", "gpt5", "--json")[0])
    assert [model["suggestions"] for model in document["models"]] == [[], ["gpt-5"]]


def test_a_name_nothing_is_like_gets_no_guess(isolated_home: Path) -> None:
    out, err = run("prices", "zzzz-qqqq")
    assert "did you mean" not in err and "no price for 'zzzz-qqqq'" in err


def test_a_priced_name_looks_for_no_guess(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: object) -> list[str]:
        raise AssertionError("close names looked for a priced name")

    monkeypatch.setattr("agentscan.pricing.lookup.close_names", never)
    run("prices", "claude-sonnet-4-5", "gpt-5")


# --- 3: the names the hint gives, and those list shows, are found --------------------------------


def test_the_hint_names_models_as_list_shows_them_and_each_is_priced(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(100)
    hint = run("prices")[1]
    named = re.search(r"`agentscan prices ([^`A-Z]*)`", hint)
    assert named is not None and named.group(1) == "sonnet-4.5 gpt-5"
    document = orjson.loads(run("prices", *named.group(1).split(), "--json")[0])
    assert all(model["model_id"] for model in document["models"])


@pytest.mark.parametrize(("args", "model_id"), [
    (["sonnet-4.5"], "claude-sonnet-4-5"),
    (["opus-4.8-fast"], "claude-opus-4-8"),
    (["-p", "claude", "sonnet-3.5"], "claude-3-5-sonnet"),
    (["sonnet-3.7-latest"], "claude-3-7-sonnet-latest"),
    (["-p", "cursor", "sonnet-4.5-thinking"], "claude-sonnet-4-5"),
])
def test_a_short_name_a_terminal_shows_is_found(isolated_home: Path, args: list[str], model_id: str) -> None:
    document = orjson.loads(run("prices", *args, "--json")[0])
    assert document["models"][0]["model_id"] == model_id


def test_every_claude_model_s_short_name_is_priced_as_that_model(isolated_home: Path) -> None:
    """``render.model_text``'s short names, for every Claude model the price data has (but
    ``claude-v1``: ``v1`` is no family's name, and is not taken back)."""
    from genai_prices.data import providers

    ids = [model.id for provider in providers if provider.id == "anthropic" for model in provider.models
           if model.id != "claude-v1"]
    shorts = [render.model_text(model_id, Terminal(tty=True, width=80, color=False)) for model_id in ids]
    assert sum(short != model_id for short, model_id in zip(shorts, ids)) > 20
    document = orjson.loads(run("prices", "-p", "claude", *shorts, "--json")[0])
    assert [model["model_id"] for model in document["models"]] == ids


# --- 4: doctor and the hook status name the agent as a word ----------------------------------


def test_doctor_suggests_the_agent_as_a_word(isolated_home: Path) -> None:
    out = run("doctor")[0]
    commands = [line.strip() for line in out.splitlines() if line.strip().startswith("agentscan hooks install")]
    assert commands == ["agentscan hooks install claude", "agentscan hooks install cursor",
                        "agentscan hooks install gemini"]
    assert "--agent" not in out


# --- 5: show's tokens line breaks between its terms ---------------------------------------------


def _tokens_lines(lines: list[str]) -> list[str]:
    start = next(index for index, line in enumerate(lines) if line.startswith("  tokens "))
    end = next(index for index in range(start + 1, len(lines)) if not lines[index].startswith(" " * 11))
    return lines[start:end]


@pytest.mark.parametrize("session", ["gemini:5e1f0c2a", "cursor:7c0a1e55", "claude:7f3c9a12"])
@pytest.mark.parametrize("width", range(60, 101, 5))
def test_the_tokens_line_breaks_only_between_terms(isolated_home: Path, tty, session: str,  # noqa: ANN001
                                                   width: int) -> None:
    tty(400)
    [whole] = _tokens_lines(run("--demo", "show", session)[0].splitlines())
    tty(width)
    lines = _tokens_lines(run("--demo", "show", session)[0].splitlines())
    assert all(width_of(line) <= width for line in lines), lines
    for before, after in zip(lines, lines[1:]):
        # A line ends after "=" or a term; the next opens with "+" or the term after "=".
        assert before.endswith(" =") or after.lstrip().startswith("+ "), lines
    assert " ".join(" ".join(lines).split()) == " ".join(whole.split())  # nothing lost


# --- 6: show cuts a tool call's path at its start ---------------------------------------------------


@pytest.mark.parametrize("width", [45, 50, 60])
def test_a_path_summary_keeps_its_file_name(isolated_home: Path, tty, width: int) -> None:  # noqa: ANN001
    tty(width)
    lines = run("--demo", "show", "cursor:7c0a1e55")[0].splitlines()
    [write] = [line for line in lines if "Write: " in line]
    assert write.endswith("/tests/test_cache_expiry.py") and "…" in write and width_of(write) <= width


def test_a_path_then_more_keeps_the_path_whole_when_it_fits() -> None:
    from agentscan.cli.show_text import _tool_summary
    from agentscan.detailmodel import ToolEvent

    term = Terminal(tty=True, width=80, color=False)
    path = "/home/me/src/app/handlers/refund_flow.py"
    call = ToolEvent(name="Read", summary=f"{path} (lines 10-400, the whole refund flow)", paths=(path,))
    assert _tool_summary(call, 50, term) == f"{path} (lines 1…"
    assert _tool_summary(call, 30, term) == "…/handlers/refund_flow.py …"
    # A summary that names no path is cut at its end, as before.
    command = ToolEvent(name="Bash", summary="uv run pytest -q tests/test_forecast.py --maxfail 1")
    assert _tool_summary(command, 30, term).startswith("uv run pytest")


def test_a_pipe_gets_the_path_as_before(isolated_home: Path) -> None:
    out = run("--demo", "show", "cursor:7c0a1e55")[0]
    assert "Write: /home/demo/src/weather-app/tests/test_cache_expiry.py" in out


# --- 7: docs say how tokens --by cwd orders its rows ---------------------------------------------


def test_the_docs_say_by_cwd_is_ordered_by_total_tokens(isolated_home: Path) -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    row = next(line for line in docs.splitlines() if line.startswith("| `--by KEY` |"))
    assert "dearest" not in row and "by total tokens, largest first" in row
    document = orjson.loads(run("--demo", "tokens", "--by", "cwd", "--json")[0])
    totals = [entry["tokens"]["total"] for entry in document["rows"] if entry["tokens"]]
    assert totals == sorted(totals, reverse=True) and len(totals) > 2


@pytest.mark.parametrize("width", [40, 50, 60])
def test_prices_fits_a_narrow_terminal_by_leaving_prices_out(isolated_home: Path, tty, width: int) -> None:  # noqa: ANN001
    """Once MODEL is as narrow as it goes, the cache prices (then output) go, said so: the
    table is never wider than the terminal, and the answer stays."""
    tty(width)
    out, err = run("prices", "sonnet-4.5", "claude-opus-4-1", "gpt-5", "claude-sonet-4-5")
    lines = table(out)
    assert lines and all(width_of(line) <= width for line in lines), lines
    assert "PRICED AS" in lines[0] and "CACHE WRITE" not in lines[0]
    assert "left out to fit" in " ".join(err.split()) and "CACHE WRITE" in " ".join(err.split())
