"""Events delivered twice, after the pass-36 review.

* Two parallel reads of one file (a big file read in chunks, different offsets) send the same
  ``beforeReadFile`` payload (the content is redacted to the same length): both are reads,
  not one read delivered twice; a read delivered twice while no other call waits for one
  still counts once.
* ``show``'s count of a session's hook events (``hook_event_counts``) counts a second
  delivery once, as ``trace`` does (the reviewer's session of 52 events, each delivered
  twice, was shown as 104 captured hook events).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentscan.hooks import hook_event_counts, store
from hooks_builders import CONVERSATION, Replay, before_read, post, pre, prompt, stop, trace_doc, walk

BIG = "/work/repo/src/big.ts"
CHUNKS = ({"file_path": BIG, "offset": 1, "limit": 400}, {"file_path": BIG, "offset": 401, "limit": 400})


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def chunked_read(replay: Replay, *, reads: int = 2) -> None:
    """The reviewer's gen_chunked_read.py: two Read calls of one file at once, then ``reads`` read hooks."""
    replay.send(prompt("read big.ts"), at_ms=0)
    for i, chunk in enumerate(CHUNKS):
        replay.send(pre("Read", chunk, f"call_r{i}"), at_ms=10 + i)
    for i in range(reads):
        replay.send(before_read(BIG, content="line\n" * 800), at_ms=20 + i)
    for i, chunk in enumerate(CHUNKS):
        replay.send(post("Read", chunk, f"call_r{i}", duration=5 + i), at_ms=30 + i)
    replay.send(stop(), at_ms=40)


def file_reads(doc: dict) -> list[dict]:
    return [n for turn in doc["turns"] for n in walk(turn["nodes"]) if n["kind"] == "file"]


def test_two_parallel_reads_of_one_file_are_two_reads_with_no_warning(data_dir: Path) -> None:
    chunked_read(Replay(data_dir))
    doc = trace_doc()
    assert len(file_reads(doc)) == 2
    assert doc["warnings"] == []  # no "delivered twice … registered in more than one settings file?"
    assert doc["summary"]["file_reads"] == 2


def test_a_read_delivered_twice_for_one_call_still_counts_once(data_dir: Path) -> None:
    replay = Replay(data_dir)
    replay.send(prompt("read it"), at_ms=0)
    replay.send(pre("Read", {"file_path": BIG}, "call_r1"), at_ms=10)
    replay.send(before_read(BIG), at_ms=20)
    replay.send(before_read(BIG), at_ms=21)  # agentscan registered twice: the same hook, run twice
    replay.send(post("Read", {"file_path": BIG}, "call_r1"), at_ms=30)
    doc = trace_doc()
    [read] = file_reads(doc)
    assert read["provenance"] == "correlated"
    assert [w["message"] for w in doc["warnings"]] == [
        "1 hook event was delivered twice and counted once; is agentscan registered in more than one settings file?"]


def test_show_counts_a_second_delivery_once_as_trace_does(data_dir: Path) -> None:
    replay = Replay(data_dir)
    payloads = [prompt("go"), pre("Read", {"file_path": BIG}, "r1"), before_read(BIG), post("Read", {"file_path": BIG}, "r1"),
                stop()]
    for index, payload in enumerate(payloads):
        replay.send(payload, at_ms=100 * index)
        replay.send(payload, at_ms=100 * index + 3)  # each delivered twice
    path = store.session_path(str(data_dir), "cursor", CONVERSATION)
    assert store.count_envelopes(path) == 10  # the store holds each twice, and `trace --list` counts them
    assert hook_event_counts([f"cursor:{CONVERSATION}"]) == {f"cursor:{CONVERSATION}": 5}
    doc = trace_doc()
    assert "5 hook events were delivered twice" in doc["warnings"][0]["message"]


def test_show_counts_every_event_of_a_session_without_repeats(data_dir: Path) -> None:
    chunked_read(Replay(data_dir))  # two equal read payloads: the tree, not the bytes, says they are two reads
    assert hook_event_counts([f"cursor:{CONVERSATION}", "cursor:nothing-here"]) == {f"cursor:{CONVERSATION}": 8}
