"""The tree from hook events (pass 49): a Cursor session's tokens when its last turn reports
zeros or unreadable counts, a line still being written, a subagent's stop captured before
its start, a late completion in a derived turn.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from hooks_builders import CONVERSATION, Replay, prompt, stop, trace_doc
from otlp_builders import read_otlp_file


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def three_cursor_turns(replay: Replay, last_stop: dict) -> None:
    for number, usage in enumerate([(50_000, 900, 40_000, 9_000), (70_000, 1_200, 59_000, 10_000)], start=1):
        generation = f"g{number}-0000-4000-8000-000000000000"
        replay.send(prompt(f"turn {number}", generation=generation))
        replay.send(stop(generation=generation, input_tokens=usage[0], output_tokens=usage[1],
                         cache_read_tokens=usage[2], cache_write_tokens=usage[3]))
    replay.send(prompt("turn 3", generation="g3-0000-4000-8000-000000000000"))
    replay.send(last_stop)


def test_a_last_turn_reporting_zeros_does_not_shrink_the_session_s_context(data_dir: Path) -> None:
    three_cursor_turns(Replay(data_dir), stop("aborted", generation="g3-0000-4000-8000-000000000000", input_tokens=0,
                                              output_tokens=0, cache_read_tokens=0, cache_write_tokens=0))
    doc = trace_doc()
    turn2 = doc["turns"][1]["summary"]["tokens"]
    session = doc["summary"]["tokens"]
    assert turn2["total"] == 71_200
    # The context of turn 2 (its input and cache reads), and every turn's output and cache writes.
    assert (session["input"], session["cache_read"], session["cache_write"], session["output"]) == \
        (1_000, 59_000, 19_000, 2_100)
    assert session["total"] == 81_100


def test_token_counts_that_are_no_whole_numbers_are_unknown_not_zero(data_dir: Path, tmp_path: Path) -> None:
    bad = stop("error", generation="g3-0000-4000-8000-000000000000", input_tokens="300", output_tokens=10.7,
               cache_read_tokens=None, cache_write_tokens=-5)
    three_cursor_turns(Replay(data_dir), bad)
    doc = trace_doc()
    assert doc["turns"][2]["summary"]["tokens"] is None
    assert doc["summary"]["tokens"]["total"] == 81_100
    [warning] = [w for w in doc["warnings"] if "token counts" in w["message"]]
    assert "(input_tokens, cache_write_tokens, output_tokens) were ignored" in warning["message"]
    out = tmp_path / "spans.jsonl"
    result = CliRunner().invoke(app, ["otlp", f"cursor:{CONVERSATION}", "-o", str(out)])
    assert result.exit_code == 0, result.output
    roots = [span for spans in read_otlp_file(out) for span in spans if not span.parent]
    assert len(roots) == 3
    third = [root for root in roots if root.attrs.get("agentscan.turn.id", "").startswith("g3")] or roots[2:]
    assert not [key for key in third[0].attrs if "usage" in key]
    assert roots[1].attrs["gen_ai.usage.output_tokens"] == 1_200


def test_a_last_line_still_being_written_is_no_warning(data_dir: Path) -> None:
    from agentscan.hooks import envelopes, store

    replay = Replay(data_dir)
    replay.send_all([prompt("go"), stop()])
    path = Path(store.session_path(str(data_dir), "cursor", CONVERSATION))
    whole = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(whole.splitlines(keepends=True)[0][:40])  # a hook halfway through its append
    doc = trace_doc()
    assert doc["warnings"] == [] and len(doc["turns"]) == 1
    with path.open("ab") as handle:
        handle.write(b"\n")  # ended as it is: a broken line now, said
    assert [w["message"] for w in trace_doc()["warnings"]] == [envelopes.CUT_SHORT]  # (pass 55: the hook's own start, cut)


def claude(event: str, prompt_id: str = "pr-1", **fields: object) -> dict:
    return {"hook_event_name": event, "session_id": "ooo-1", "prompt_id": prompt_id, "cwd": "/proj", **fields}


EXPLORE = {"subagent_type": "Explore", "description": "explore", "prompt": "look"}


@pytest.mark.parametrize("result_names_it", [True, False])
def test_a_subagent_stop_captured_before_its_start_is_one_subagent(data_dir: Path, result_names_it: bool) -> None:
    from hooks_builders import walk

    replay = Replay(data_dir, agent="claude")
    replay.send(claude("UserPromptSubmit", prompt="go"))
    replay.send(claude("PreToolUse", tool_name="Agent", tool_input=EXPLORE, tool_use_id="tA"))
    replay.send(claude("PreToolUse", tool_name="Grep", tool_input={"pattern": "x"}, tool_use_id="g1",
                       agent_id="a1", agent_type="Explore"))
    replay.send(claude("SubagentStop", agent_id="a1", agent_type="Explore", last_assistant_message="found"))
    replay.send(claude("SubagentStart", agent_id="a1", agent_type="Explore"))
    response = {"agentId": "a1", "status": "completed"} if result_names_it else {}
    replay.send(claude("PostToolUse", tool_name="Agent", tool_input=EXPLORE, tool_use_id="tA", tool_response=response))
    replay.send(claude("Stop"))
    doc = trace_doc("claude:ooo-1")
    subagents = [node for node in walk(doc["turns"][0]["nodes"]) if node["kind"] == "subagent"]
    assert len(subagents) == 1 and doc["summary"]["subagents"] == 1 and doc["summary"]["orphans"] == 0
    [subagent] = subagents
    assert subagent["provenance"] in ("native", "correlated") and subagent["status"] == "ok"
    [call] = [node for node in walk(doc["turns"][0]["nodes"]) if node.get("id") == "tA"]
    assert subagent in call["children"]
    assert [child["name"] for child in subagent["children"]] == ["Grep"]


def test_a_late_completion_with_a_unique_id_closes_its_call_in_an_earlier_derived_turn(data_dir: Path) -> None:
    from hooks_builders import post, pre, shell_input, walk

    same = {"generation": CONVERSATION}  # Cursor's CLI: no turn id of its own, so derived turns
    replay = Replay(data_dir)
    replay.send(prompt("build it", **same))
    replay.send(pre("Shell", shell_input("make"), "call-make", **same))
    replay.send(stop("aborted", **same))
    replay.send(prompt("and test it", **same))
    replay.send(post("Shell", shell_input("make"), "call-make", **same))  # the first turn's call, ending late
    replay.send(stop(**same))
    doc = trace_doc()
    first, second = doc["turns"]
    assert first["id"] == "derived-1" and second["id"] == "derived-2"
    [call] = [node for node in walk(first["nodes"]) if node.get("id") == "call-make"]
    assert call["status"] == "ok" and call["provenance"] != "orphan"
    assert doc["summary"]["orphans"] == 0 and not [n for n in walk(second["nodes"]) if n["kind"] == "tool"]
