"""Pass 56's review of US-only inference (``<model> (us-only)``, ``pricing.inferencegeo``):
``prices`` said neither fast mode nor US-only for ``claude-opus-4-8-fast (us-only)`` (its variant
was parsed off the display name's last part), so a narrow terminal, MODEL left out, read as the
list price; ``prices "claude-opus-4-6 (US-only)"`` was the list price; a terminal's ``tokens --by
model`` kept the snapshot date of a US-only call's model; OTLP chat spans did not say a call ran
US-only; and Claude Code's own count (``cost-state``) naming the model a US-only call ran had no
test that it is a call the transcript holds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agentscan.cli.prices_text import answers_name_them
from agentscan.pricing.modelnames import spellings, undated
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke
from test_claude_cost_state_pass54 import _state, _usage

S = "9e09e09e-5656-4000-8000-00000000000a"
OPUS_46, OPUS_48 = "claude-opus-4-6", "claude-opus-4-8"


def _call(second: int, model: str, geo: str | None, **usage: Any) -> dict:
    counts = claude_usage(100, 20, **usage)
    if geo is not None:
        counts["inference_geo"] = geo
    return claude_assistant(S, f"2026-11-20T10:00:{second:02d}.000Z", msg_id=f"msg_{second}",
                            request_id=f"req_{second}", model=model, usage=counts, uuid=f"a{second}")


def _session(home: Path, *records: dict) -> None:
    claude_session_file(home, S, [claude_user(S, "2026-11-20T10:00:01.000Z", "go"), *records])


def _priced_as(*names: str) -> dict[str, str]:
    """A pipe's ``prices`` table: MODEL -> PRICED AS (cells split on two spaces or more)."""
    lines = invoke("prices", *names).stdout.splitlines()
    return {cells[0]: cells[1] for cells in (re.split(" {2,}", line) for line in lines[1:])}


def test_prices_says_fast_mode_and_us_only() -> None:
    said = _priced_as(f"{OPUS_48}-fast (us-only)", f"{OPUS_48}-fast", f"{OPUS_46} (us-only)", OPUS_46)
    assert said == {f"{OPUS_48}-fast (us-only)": f"anthropic/{OPUS_48} (fast mode, US-only)",
                    f"{OPUS_48}-fast": f"anthropic/{OPUS_48} (fast mode)",
                    f"{OPUS_46} (us-only)": f"anthropic/{OPUS_46} (US-only)",
                    OPUS_46: f"anthropic/{OPUS_46}"}


def test_prices_json_names_the_variant_and_the_multiplier() -> None:
    models = cli_json("prices", f"{OPUS_48}-fast (us-only)", f"{OPUS_46} (us-only)", f"{OPUS_48}-fast", OPUS_46,
                      "gpt-5.5 (priority)")["models"]
    assert [(found["variant"], found["multiplier"]) for found in models] == [
        ("fast mode, US-only", 1.1), ("US-only", 1.1), ("fast mode", None), (None, None), ("priority tier", None)]
    # The rows are told apart by PRICED AS alone: a narrow terminal may leave MODEL out.
    assert answers_name_them(models[:4])
    assert not answers_name_them([models[1], {**models[1], "query": "opus-4.6 (us-only)"}])


def test_a_narrow_terminal_without_model_still_says_us_only(tty) -> None:  # noqa: ANN001
    tty(44)
    out = invoke("prices", f"{OPUS_46} (us-only)").stdout
    rows = [re.split(" {2,}", line) for line in out.splitlines() if "$5.50" in line]
    # MODEL is left out (the name asked is nowhere): PRICED AS is all that names the row.
    assert [row[0] for row in rows] == [f"anthropic/{OPUS_46} (US-only)"] and "(us-only)" not in out, out


@pytest.mark.parametrize("suffix", [" (US-only)", " (Us-Only)"])
def test_the_suffix_in_another_case_is_us_only(suffix: str) -> None:
    found = cli_json("prices", OPUS_46 + suffix)["models"][0]
    assert (found["price_fields"]["input_mtok"], found["variant"]) == (5.5, "US-only")


def test_a_dated_us_only_model_reads_undated() -> None:
    assert undated("claude-sonnet-4-5-20250929 (us-only)") == "claude-sonnet-4-5 (us-only)"
    assert spellings("claude-sonnet-4-5-20250929 (us-only)")[1] == "sonnet-4.5 (us-only)"


def test_tokens_by_model_on_a_terminal_drops_the_date_of_a_us_only_model(isolated_home: Path, tty) -> None:  # noqa: ANN001
    _session(isolated_home, _call(2, "claude-sonnet-4-5-20250929", "us"), _call(3, "claude-sonnet-4-5-20250929", None))
    tty(100)
    names = [line.split("  ")[0] for line in invoke("tokens", "--by", "model").stdout.splitlines()]
    assert "sonnet-4.5 (us-only)" in names and "sonnet-4.5" in names, names


def test_cost_state_naming_a_us_only_call_s_model_is_in_the_transcript(isolated_home: Path) -> None:
    _session(isolated_home, _call(2, OPUS_46, "us"))
    _session(isolated_home, _call(2, OPUS_46, "us"), _state(S, 0.01, **{OPUS_46: _usage(100, 20)}))
    said = cli_json("show", S)["session"]["agent_reported"]
    assert said["not_in_transcript"] == []


def test_grep_finds_the_model_not_the_suffix(isolated_home: Path) -> None:
    _session(isolated_home, _call(2, OPUS_46, "us"))
    assert [row["id"] for row in cli_json("list", "--grep", OPUS_46)["sessions"]] == [f"claude:{S}"]
    assert [row["id"] for row in cli_json("list", "--grep", "opus-4.6")["sessions"]] == [f"claude:{S}"]
    assert cli_json("list", "--grep", "us-only")["sessions"] == []


def test_an_otlp_chat_span_says_it_ran_us_only(isolated_home: Path, tmp_path: Path) -> None:
    from otlp_builders import otlp, read_otlp_file

    _session(isolated_home, _call(2, OPUS_46, "us"), _call(3, OPUS_46, "global"), _call(4, OPUS_48, "us", speed="fast"))
    out = tmp_path / "traces.jsonl"
    result = otlp("--output", str(out), "--json")
    assert result.exit_code == 0, result.output
    (spans,) = read_otlp_file(out)
    chats = sorted((s for s in spans if s.name.startswith("chat")), key=lambda s: s.end)
    assert [(s.attrs["gen_ai.request.model"], s.attrs.get("agentscan.request.inference_geo"),
             s.attrs.get("agentscan.request.speed")) for s in chats] == [
        (OPUS_46, "us", None), (OPUS_46, None, None), (OPUS_48, "us", "fast")]
