"""A Cursor turn's root span, sent live at its ``stop`` and exported again by a batch ``otlp``
under the same ids, carries the same usage: the live one had Cursor's stop snapshot, the
batch one the sum of the calls the state database recorded (1,050 tokens against 320), so a
backend's turn changed with whichever copy came last.  The calls keep their own usage."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from cursor_builders import bubble, composer_data, make_state_db, state_db_path
from hooks_builders import BASE_NS, CONVERSATION, GENERATION, MS, Replay, post, pre, prompt, response, stop
from otlp_builders import otlp, read_otlp_file
from agentscan.otlp import live


def iso(ms: int) -> str:
    return datetime.fromtimestamp((BASE_NS + ms * MS) / 1e9, timezone.utc).isoformat().replace("+00:00", "Z")


def usage(attributes: dict) -> dict:
    return {key: value for key, value in attributes.items() if "usage" in key}


def test_the_live_root_and_the_batch_root_say_the_same_usage(isolated_home: Path, tmp_path: Path) -> None:
    data_dir = Path(os.environ["AGENTSCAN_DATA_DIR"])
    replay = Replay(data_dir)
    replay.send(prompt("go"), at_ms=0)
    replay.send(pre("Shell", {"command": "ls"}, "t1"), at_ms=100)
    replay.send(post("Shell", {"command": "ls"}, "t1"), at_ms=200)
    replay.send(response("done"), at_ms=300)
    stopped = replay.send(stop(input_tokens=1000, output_tokens=50, cache_read_tokens=400, cache_write_tokens=0), at_ms=400)
    make_state_db(state_db_path(isolated_home), composers=[composer_data(
        CONVERSATION, name="go", created=BASE_NS // 10**6, updated=(BASE_NS + 400 * MS) // 10**6,
        model="claude-4.5-sonnet", bubbles=["b1", "b2"], fs_path="/work/repo")],
        bubbles={CONVERSATION: [bubble("b1", 1, "go", created=iso(0)),
                                bubble("b2", 2, "done", tokens=(300, 20), created=iso(250))]})

    [live_root] = live.closed_spans(str(data_dir), "cursor", CONVERSATION, stopped, "stop", GENERATION).spans
    out = tmp_path / "batch.jsonl"
    assert otlp(f"cursor:{CONVERSATION}", "-o", str(out)).exit_code == 0
    [spans] = read_otlp_file(out)
    [batch_root] = [span for span in spans if not span.parent]
    [chat] = [span for span in spans if span.name.startswith("chat")]
    assert batch_root.span_id == live_root.span_id
    assert usage(batch_root.attrs) == usage(live_root.attributes)  # before: total 320 against 1,050
    assert batch_root.attrs["agentscan.usage.total"] == 1050
    assert chat.attrs["agentscan.usage.total"] == 320  # the call keeps its own
