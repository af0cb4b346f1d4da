"""The tree rebuilt from replayed Cursor event streams: every scenario of docs/hooks.md, "The tree"

Each stream is stored through the real capture path (``capture.capture``)
with a controlled clock, then read back with ``agentscan trace --json``.
Concurrent hooks are sent in an order that differs from their requests', so
a builder that paired by arrival order would fail these tests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hooks_builders import (
    failed_then_retried_shell,
    Replay, after_edit, after_mcp, after_shell, before_mcp, before_read, before_shell, iso_at,
    only, post, pre, prompt, shell_input, stop, tool_calls, trace_doc, walk,
)


@pytest.fixture
def replay(isolated_home: Path) -> Replay:
    return Replay(Path(os.environ["AGENTSCAN_DATA_DIR"]))


def nodes_of(doc: dict, turn: int = 0) -> list[dict]:
    return doc["turns"][turn]["nodes"]


def test_a_tool_use_id_reused_across_two_tools_pairs_by_tool_name(replay: Replay) -> None:
    batch_id = "call-batch\nfc-response"  # Cursor's real shape: one id for the batch, with a newline
    search, write = {"search_term": "hook payloads"}, {"file_path": "/work/repo/notes.md", "content": "x"}
    replay.send(prompt("look it up and write it down"), at_ms=0)
    replay.send(pre("WebSearch", search, batch_id), at_ms=10)
    replay.send(pre("Write", write, batch_id), at_ms=20)
    replay.send(post("Write", write, batch_id), at_ms=30)
    replay.send(post("WebSearch", search, batch_id), at_ms=400)

    nodes = nodes_of(trace_doc())
    web = only(nodes, kind="tool", name="WebSearch")
    written = only(nodes, kind="tool", name="Write")
    assert (web["status"], web["provenance"], web["id"]) == ("ok", "native", batch_id)
    assert (web["started_at"], web["ended_at"]) == (iso_at(10), iso_at(400))
    assert (written["status"], written["ended_at"]) == ("ok", iso_at(30))
    assert not [n for n in walk(nodes) if n["provenance"] == "orphan"]


def test_concurrent_shell_hooks_in_reversed_order_nest_under_their_own_call(replay: Replay) -> None:
    batch_id = "call-7\nfc_1"
    test, status = shell_input("dotnet test"), shell_input("git status")
    replay.send(pre("Shell", test, batch_id), at_ms=0)
    replay.send(pre("Shell", status, batch_id), at_ms=5)
    replay.send(before_shell("git status"), at_ms=10)
    replay.send(before_shell("dotnet test\r\n"), at_ms=15)  # CRLF and a trailing newline are normalised
    replay.send(after_shell("dotnet test"), at_ms=500)
    replay.send(after_shell("git status"), at_ms=510)
    replay.send(post("Shell", status, batch_id, output={"output": "clean", "exitCode": 0}), at_ms=520)
    replay.send(post("Shell", test, batch_id, output={"output": "1 failed", "exitCode": 1}), at_ms=530)

    nodes = nodes_of(trace_doc())
    for command, before_at, after_at, closed_at, exit_code, paired in (
        # the first completion had two in-flight calls with its id: its input decided
        ("git status", 10, 510, 520, 0, "correlated"),
        # by then only one call with that id and name was left in flight
        ("dotnet test", 15, 500, 530, 1, "native"),
    ):
        call = only(nodes, kind="tool", input_command=command)
        assert (call["status"], call["ended_at"], call["detail"]["exit_code"]) == ("ok", iso_at(closed_at), exit_code)
        assert call["provenance"] == paired
        [shell] = call["children"]
        assert (shell["kind"], shell["provenance"], shell["status"]) == ("shell", "correlated", "ok")
        assert shell["input"]["command"].rstrip() == command
        assert (shell["started_at"], shell["ended_at"]) == (iso_at(before_at), iso_at(after_at))


def test_concurrent_reads_and_writes_on_different_paths_attach_by_path(replay: Replay) -> None:
    read_a = {"file_path": "C:\\Repo\\Docs\\A.md"}
    read_d = {"file_path": "C:\\Repo\\src\\d.py"}
    write_b = {"file_path": "C:\\Repo\\b.md", "content": "new"}
    replace_c = {"path": "C:\\Repo\\src\\c.py", "old_string": "x", "new_string": "y"}
    replay.send(pre("Read", read_a, "r-a"), at_ms=0)
    replay.send(pre("Read", read_d, "r-d"), at_ms=1)
    replay.send(pre("Write", write_b, "w-b"), at_ms=2)
    replay.send(pre("StrReplace", replace_c, "w-c"), at_ms=3)
    # inner hooks arrive reversed, with other slashes and case than the requests
    replay.send(after_edit("c:/repo/src/C.PY"), at_ms=10)
    replay.send(after_edit("c:/repo/B.md"), at_ms=11)
    replay.send(before_read("c:/repo/src/d.py"), at_ms=12)
    replay.send(before_read("c:/repo/docs/a.md"), at_ms=13)
    for at, (tool, tool_input, call_id) in enumerate(
        [("StrReplace", replace_c, "w-c"), ("Read", read_d, "r-d"), ("Write", write_b, "w-b"), ("Read", read_a, "r-a")]
    ):
        replay.send(post(tool, tool_input, call_id), at_ms=20 + at)

    nodes = nodes_of(trace_doc())
    expected = {"r-a": ("read", "c:/repo/docs/a.md"), "r-d": ("read", "c:/repo/src/d.py"),
                "w-b": ("edit", "c:/repo/B.md"), "w-c": ("edit", "c:/repo/src/C.PY")}
    for call_id, (phase, path) in expected.items():
        call = only(nodes, kind="tool", id=call_id)
        [child] = call["children"]
        assert (child["kind"], child["name"], child["input"]["file_path"]) == ("file", phase, path)
        assert child["provenance"] == "correlated"
    summary = trace_doc()["turns"][0]["summary"]
    assert (summary["file_reads"], summary["file_edits"]) == (2, 2)


def test_concurrent_mcp_calls_are_told_apart_by_input(replay: Replay) -> None:
    alpha, beta = {"query": "alpha", "limit": 5}, {"query": "beta", "limit": 5}
    replay.send(pre("MCP:search_docs", alpha, "m-1"), at_ms=0)
    replay.send(pre("MCP:search_docs", beta, "m-2"), at_ms=1)
    # the inner hooks carry the input as a JSON string with another key order, in reverse
    replay.send(before_mcp("search_docs", {"limit": 5, "query": "beta"}, "docs"), at_ms=5)
    replay.send(before_mcp("search_docs", {"limit": 5, "query": "alpha"}, "docs"), at_ms=6)
    replay.send(after_mcp("search_docs", {"limit": 5, "query": "alpha"}, "docs"), at_ms=50)
    replay.send(after_mcp("search_docs", {"limit": 5, "query": "beta"}, "docs"), at_ms=60)
    replay.send(post("MCP:search_docs", beta, "m-2"), at_ms=70)
    replay.send(post("MCP:search_docs", alpha, "m-1"), at_ms=80)

    doc = trace_doc()
    nodes = nodes_of(doc)
    for call_id, query, before_at, after_at in (("m-1", "alpha", 6, 50), ("m-2", "beta", 5, 60)):
        call = only(nodes, kind="tool", id=call_id)
        [mcp] = call["children"]
        assert (mcp["kind"], mcp["name"], mcp["input"]["query"]) == ("mcp", "docs/search_docs", query)
        assert (mcp["started_at"], mcp["ended_at"]) == (iso_at(before_at), iso_at(after_at))
    summary = doc["turns"][0]["summary"]
    # MCP calls are counted once, by server and tool, never as generic tools
    assert summary["mcp"] == {"docs": {"search_docs": 2}}
    assert (summary["mcp_calls"], summary["tools"], summary["tool_calls"]) == (2, {}, 2)


def test_a_failed_then_retried_shell_keeps_each_execution_with_its_call(replay: Replay) -> None:
    failed_then_retried_shell(replay)

    doc = trace_doc()
    nodes = nodes_of(doc)
    failed, retried = only(nodes, kind="tool", id="try-1"), only(nodes, kind="tool", id="try-2")
    assert (failed["status"], failed["detail"]["error"], failed["ended_at"]) == ("timeout", "timed out", iso_at(100))
    [first] = failed["children"]
    assert (first["started_at"], first["ended_at"], first["status"]) == (iso_at(5), None, "timeout")
    [second] = retried["children"]
    assert (second["started_at"], second["ended_at"], second["status"]) == (iso_at(205), iso_at(300), "ok")
    assert doc["turns"][0]["summary"]["failures"] == 1
    assert doc["turns"][0]["summary"]["orphans"] == 0


def test_three_overlapping_greps_form_one_wave_whose_duration_is_its_span(replay: Replay) -> None:
    inputs = [{"pattern": p, "path": "/work/repo"} for p in ("TODO", "FIXME", "XXX")]
    for index, tool_input in enumerate(inputs):
        replay.send(pre("Grep", tool_input, f"g-{index}"), at_ms=index * 10)
    for index, tool_input in enumerate(inputs):
        replay.send(post("Grep", tool_input, f"g-{index}"), at_ms=100 + index * 10)

    nodes = nodes_of(trace_doc())
    [wave] = nodes
    assert (wave["kind"], wave["provenance"], wave["input"]) == ("wave", "inferred", {"calls": 3})
    assert [c["id"] for c in wave["children"]] == ["g-0", "g-1", "g-2"]
    assert (wave["started_at"], wave["ended_at"]) == (iso_at(0), iso_at(120))
    assert wave["detail"]["duration_ms"] == pytest.approx(120)  # the span, not 100 + 100 + 100
    assert trace_doc()["turns"][0]["summary"]["waves"] == 1


def test_sequential_calls_form_no_wave(replay: Replay) -> None:
    first, second = {"pattern": "a"}, {"pattern": "b"}
    replay.send(pre("Grep", first, "s-1"), at_ms=0)
    replay.send(post("Grep", first, "s-1"), at_ms=50)
    replay.send(pre("Grep", second, "s-2"), at_ms=60)
    replay.send(post("Grep", second, "s-2"), at_ms=100)

    nodes = nodes_of(trace_doc())
    assert [(n["kind"], n["id"]) for n in nodes] == [("tool", "s-1"), ("tool", "s-2")]


def test_identical_duplicate_calls_stay_orphans(replay: Replay) -> None:
    # Each twin comes 2.6 s after the first: within 2 s a byte-identical event is taken for a
    # second delivery of the same one (docs/hooks.md; tests/test_trace_review_fixes.py).
    same = shell_input("ls")
    replay.send(pre("Shell", same, "dup"), at_ms=0)
    replay.send(pre("Shell", same, "dup"), at_ms=2600)
    replay.send(before_shell("ls"), at_ms=2700)
    replay.send(before_shell("ls"), at_ms=5300)
    replay.send(after_shell("ls"), at_ms=5400)
    replay.send(after_shell("ls"), at_ms=8000)
    replay.send(post("Shell", same, "dup"), at_ms=8100)
    replay.send(post("Shell", same, "dup"), at_ms=10700)

    nodes = nodes_of(trace_doc())
    requests = tool_calls(nodes)
    assert len(requests) == 2
    for request in requests:  # nothing was guessed onto either call
        assert (request["status"], request["ended_at"], request["children"]) == (None, None, [])
    orphans = [n for n in nodes if n["provenance"] == "orphan"]
    # two completions, two befores, and two afters that tied in the queue and among the owners
    assert sorted(n["kind"] for n in orphans) == ["shell"] * 4 + ["tool"] * 2
    assert {n["status"] for n in orphans if n["kind"] == "tool"} == {"ok"}


def test_a_completion_without_its_request_is_an_orphan_under_the_turn(replay: Replay) -> None:
    replay.send(prompt("hi"), at_ms=0)
    replay.send(post("Read", {"file_path": "/x"}, "never-opened"), at_ms=10)
    replay.send(stop(), at_ms=20)

    nodes = nodes_of(trace_doc())
    orphan = only(nodes, kind="tool", name="Read")
    # its start is known only from the duration it reports (79.471 ms)
    assert (orphan["provenance"], orphan["started_at"], orphan["ended_at"]) == ("orphan", iso_at(10 - 79.471), iso_at(10))
    assert orphan["detail"]["duration_ms"] == 79.471


def test_long_inputs_are_bounded_in_the_trace_but_pair_on_their_full_text(replay: Replay) -> None:
    head = "x" * 70_000
    first, second = {"file_path": "/a", "content": head + "1"}, {"file_path": "/a", "content": head + "2"}
    replay.send(pre("Write", first, "same"), at_ms=0)
    replay.send(pre("Write", second, "same"), at_ms=1)
    replay.send(post("Write", second, "same"), at_ms=10)
    replay.send(post("Write", first, "same"), at_ms=20)

    nodes = nodes_of(trace_doc())
    shown = [n["input"]["content"] for n in tool_calls(nodes)]
    assert [len(text) for text in shown] == [64 * 1024] * 2 and all(t.endswith("…") for t in shown)
    assert [n["ended_at"] for n in tool_calls(nodes)] == [iso_at(20), iso_at(10)]
