"""Hostile hook payloads and slow writers (issue 14, cases 11 and 17).

A payload nested hundreds of levels deep, ``NaN`` or a 30-digit integer is
valid JSON to Python's ``json`` but not to the readers (recursion, orjson's
64-bit integers).  The hook bounds them when it stores them; ``trace`` and
``otlp`` bound them again when they read (a store written by hand, or by an
older agentscan); one bad session costs one warning, never the command.

And the hook gives a payload a few seconds to arrive, without holding the
agent: a slow writer's payload is stored, one that never ends is dropped and
logged where ``doctor`` shows it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.hooks import capture, store
from agentscan.hooks.sanitize import MAX_DEPTH, TOO_DEEP, sanitize
from hooks_builders import CONVERSATION, Replay, cursor, post, pre, prompt, stop
from hostile import BAD_HOOK_SESSION as BAD, child_env, hostile_hook_session

runner = CliRunner()


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def _nested(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = {"a": [value]}
    return value


def _good_session(data_dir: Path) -> None:
    replay = Replay(data_dir)
    replay.send(prompt("a good session"), at_ms=0)
    replay.send(pre("Read", {"file_path": "/work/repo/a.py"}, "r1"), at_ms=10)
    replay.send(post("Read", {"file_path": "/work/repo/a.py"}, "r1"), at_ms=20)
    replay.send(stop(), at_ms=30)


def test_sanitize_bounds_depth_and_numbers() -> None:
    clean = sanitize({"deep": _nested(200), "nan": float("nan"), "inf": float("-inf"), "big": 10**30,
                      "ok": [1, 2.5, True, None, "s", -(2**63)]})
    assert orjson.loads(orjson.dumps(clean))["ok"] == [1, 2.5, True, None, "s", -(2**63)]
    assert (clean["nan"], clean["inf"], clean["big"]) == ("nan", "-inf", str(10**30))
    depth, node = 0, clean["deep"]
    while isinstance(node, (dict, list)):
        node = node["a"] if isinstance(node, dict) else node[0]
        depth += 1
    assert node == TOO_DEEP and depth == MAX_DEPTH - 1


def test_the_hook_stores_hostile_payloads_within_bounds(data_dir: Path) -> None:
    path = hostile_hook_session(data_dir)
    stored = path.read_bytes().splitlines()[:4]
    assert len(stored) == 4  # every hook payload was kept
    for line in stored:
        orjson.loads(line)  # bounded: orjson (and so every reader) can hold each one


def test_trace_and_otlp_survive_hostile_stored_payloads(data_dir: Path, tmp_path: Path) -> None:
    hostile_hook_session(data_dir)
    _good_session(data_dir)
    for args in (["trace", BAD, "--json"], ["trace", BAD], ["trace", BAD, "--redact", "--json"]):
        result = runner.invoke(app, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
        assert result.exit_code == 0, (args, result.output)
    doc = orjson.loads(runner.invoke(app, ["trace", BAD, "--json"]).stdout)
    assert any("nested too deep" in w["message"] for w in doc["warnings"]), doc["warnings"]
    out = tmp_path / "traces.jsonl"
    result = runner.invoke(app, ["otlp", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["traces"] >= 2  # the bad session costs no other its trace
    exported = out.read_text()
    assert CONVERSATION in exported and BAD in exported


# -- slow payloads (case 17) ----------------------------------------------------------------


def _hook(data_dir: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "agentscan", "hook", "--agent", "cursor"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=child_env({"AGENTSCAN_DATA_DIR": str(data_dir)}))


@pytest.mark.skipif(os.name != "posix", reason="select() on pipes")
def test_a_payload_that_arrives_slowly_is_stored(data_dir: Path) -> None:
    payload = orjson.dumps(prompt("slow but sure"))
    proc = _hook(data_dir)
    try:
        half = len(payload) // 2
        proc.stdin.write(payload[:half])  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        time.sleep(1.5)  # longer than the old 0.7 s budget, well within the new one
        proc.stdin.write(payload[half:])  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.wait(timeout=20) == 0
        assert proc.stdout.read() == b"{}\n"  # type: ignore[union-attr]
    finally:
        proc.kill()
        proc.stdout.close()  # type: ignore[union-attr]
    lines = _stored_lines(data_dir, 1)
    assert [orjson.loads(line)["payload"]["prompt"] for line in lines] == ["slow but sure"]


def _stored_lines(data_dir: Path, count: int, seconds: float = 30) -> list[bytes]:
    """The session's stored lines once ``count`` are there: detached children store them
    after the hook itself has exited."""
    path = Path(store.session_path(str(data_dir), "cursor", CONVERSATION))
    deadline = time.monotonic() + seconds
    lines: list[bytes] = []
    while time.monotonic() < deadline:
        lines = path.read_bytes().splitlines() if path.exists() else []
        if len(lines) >= count:
            break
        time.sleep(0.1)
    return lines


@pytest.mark.skipif(os.name != "posix", reason="select() on pipes")
def test_many_slow_writers_at_once_lose_nothing(data_dir: Path) -> None:
    """Twenty hooks whose writers each pause 2 s mid-payload, all at once on a busy machine."""
    payloads = [orjson.dumps(cursor("beforeSubmitPrompt", prompt=f"p{n}", generation_id=f"g{n}")) for n in range(20)]
    procs = [_hook(data_dir) for _ in payloads]
    try:
        for proc, payload in zip(procs, payloads):
            proc.stdin.write(payload[:10])  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
        time.sleep(2.0)
        for proc, payload in zip(procs, payloads):
            proc.stdin.write(payload[10:])  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        assert [proc.wait(timeout=60) for proc in procs] == [0] * len(procs)
    finally:
        for proc in procs:
            proc.kill()
            proc.stdout.close()  # type: ignore[union-attr]
    lines = _stored_lines(data_dir, len(payloads))
    assert sorted(orjson.loads(line)["payload"]["prompt"] for line in lines) == sorted(f"p{n}" for n in range(20))


def test_the_read_budget_is_a_few_seconds() -> None:
    assert 3 <= capture.READ_SECONDS <= 10
