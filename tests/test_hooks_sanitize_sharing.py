"""``sanitize`` copies only the containers on the way to a value out of bounds: one huge integer
in a 5 MB tool response no longer copies the whole payload (~28 MB more at the hook's peak, now
~0.5 MB); every other container is the very one given, and the result is what a full copy gave."""

from __future__ import annotations

import json
import random
from typing import Any

from agentscan.hooks.sanitize import MAX_DEPTH, sanitize
from sanitize_oracle import recursive_sanitize


def test_one_bad_value_copies_only_the_containers_above_it() -> None:
    rows = [{"id": i, "meta": {"z": [1, 2, 3]}, "tags": ["a"]} for i in range(2000)]
    payload = json.loads(json.dumps({"hook_event_name": "PostToolUse", "tool_response": {"rows": rows}, "cwd": "/p"}))
    payload["tool_response"]["rows"][1000]["meta"]["z"][1] = 10**30
    before = json.dumps(payload)
    clean = sanitize(payload)
    assert clean == recursive_sanitize(payload) and json.dumps(payload) == before  # the payload given is left as it was
    assert clean["tool_response"]["rows"][1000]["meta"]["z"] == [1, str(10**30), 3]
    # The path to it is copied: the payload, tool_response, rows, row 1000, its meta, z.
    path = [clean, clean["tool_response"], clean["tool_response"]["rows"], clean["tool_response"]["rows"][1000],
            clean["tool_response"]["rows"][1000]["meta"], clean["tool_response"]["rows"][1000]["meta"]["z"]]
    given = [payload, payload["tool_response"], payload["tool_response"]["rows"], payload["tool_response"]["rows"][1000],
             payload["tool_response"]["rows"][1000]["meta"], payload["tool_response"]["rows"][1000]["meta"]["z"]]
    assert all(copied is not original for copied, original in zip(path, given))
    # Everything else is shared (before: every one of the 8,000 containers was copied).
    shared = [i for i in range(2000) if clean["tool_response"]["rows"][i] is payload["tool_response"]["rows"][i]]
    assert len(shared) == 1999
    assert clean["tool_response"]["rows"][1000]["tags"] is payload["tool_response"]["rows"][1000]["tags"]


def random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth < 80 and roll < 0.35:
        return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randrange(4))}
    if depth < 80 and roll < 0.6:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return rng.choice(["s", 1, 2**63, -(2**63) - 1, 1.5, float("nan"), float("-inf"), True, None, 10**40, ""])


def test_the_shared_copy_equals_a_recursive_sanitize_on_random_payloads() -> None:
    rng = random.Random(50)
    for _ in range(400):
        value = random_value(rng, 0)
        depth = rng.choice([0, 0, 0, MAX_DEPTH - 3])
        assert sanitize(value, depth) == recursive_sanitize(value, depth)
    deep: Any = {"n": 10**30}  # a bad value and a too-deep container on one long path
    for _ in range(MAX_DEPTH + 10):
        deep = [deep, {"ok": 1}]
    assert sanitize({"d": deep, 1: 2}) == recursive_sanitize({"d": deep, 1: 2})
