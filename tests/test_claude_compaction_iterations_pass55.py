"""The API's server-side compaction in a Claude transcript's usage: an ``iterations`` entry
of type ``compaction``.

Anthropic's "Compaction at a token threshold" docs (platform.claude.com/docs/en/build-with-claude/
compaction-threshold, beta ``compact-2026-01-12``; the Bedrock copy, docs.aws.amazon.com/bedrock/
latest/userguide/claude-messages-compaction.md, adds ``compact-2026-09-04``) give the response's
usage as ``{"input_tokens": 23000, "output_tokens": 1000, "iterations": [{"type": "compaction",
"input_tokens": 180000, "output_tokens": 3500}, {"type": "message", "input_tokens": 23000,
"output_tokens": 1000}]}``: the summarising step is billed, on the request's model, and the
top-level counts are the ``message`` iteration's alone.  A response that stops after the summary
(``stop_reason: "compaction"``, ``pause_after_compaction``) carries top-level zeros and that one
entry (public API clients' recorded streams: ``"usage":{"input_tokens":0,"output_tokens":0,
"iterations":[{"type":"compaction","input_tokens":54453,"output_tokens":883}]}``).  Claude Code
copies the API's ``usage`` into its records whole, ``iterations`` included (ccusage issue 1115's
real advisor record).  Before, such an entry was never read: its tokens were missing from every
total, and a lone one was not even looked at (the one-entry fast path).
"""

from __future__ import annotations

import json
from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "c5500000-0000-4000-8000-000000000001"
MODEL = "claude-opus-4-6"


def _at(second: int) -> str:
    return f"2026-11-02T10:00:{second:02d}.000Z"


def _by_model() -> dict[str, tuple[int, int, int, int]]:
    report = cli_json("tokens", "--by", "model")
    return {row["key"]: tuple(row["tokens"][k] for k in ("input", "cache_read", "cache_write", "output"))
            for row in report["rows"]}


def _docs_example(msg: str = "msg_c1", request: str = "req_c1", second: int = 2, **extra: object) -> dict:
    usage = {**claude_usage(input=23000, output=1000), "iterations": [
        {"type": "compaction", "input_tokens": 180000, "output_tokens": 3500},
        {"type": "message", "input_tokens": 23000, "output_tokens": 1000},
    ], **extra}
    return claude_assistant(S, _at(second), msg_id=msg, request_id=request, model=MODEL, usage=usage,
                            blocks=[{"type": "text", "text": "Continuing from the summary."}], uuid=f"a{second}")


def test_a_compaction_entry_counts_beside_the_message(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [claude_user(S, _at(1), "keep going"), _docs_example()])
    assert _by_model() == {MODEL: (23000 + 180000, 0, 0, 1000 + 3500)}
    report = cli_json("tokens")
    assert report["total"]["total"] == 23000 + 1000 + 180000 + 3500
    assert report["warnings"] == []


def test_a_lone_compaction_entry_is_read(isolated_home: Path) -> None:
    # A response that paused after compacting: the whole bill is in its one entry.
    usage = {**claude_usage(), "iterations": [{"type": "compaction", "input_tokens": 54453, "output_tokens": 883}]}
    claude_session_file(isolated_home, S, [
        claude_user(S, _at(1), "compact now"),
        claude_assistant(S, _at(2), msg_id="msg_p", request_id="req_p", model=MODEL, usage=usage,
                         blocks=[{"type": "compaction", "content": "Summary of the session."}], uuid="a2"),
    ])
    assert _by_model() == {MODEL: (54453, 0, 0, 883)}


def test_each_copy_of_the_record_counts_the_compaction_once(isolated_home: Path) -> None:
    # One record per content block, each repeating the usage: one call, one compaction.
    claude_session_file(isolated_home, S, [_docs_example(second=2), _docs_example(second=3)])
    assert _by_model() == {MODEL: (203000, 0, 0, 4500)}
    row = cli_json("list", "--all")["sessions"][0]
    assert row["tokens"]["total"] == 203000 + 4500


def test_a_fast_mode_request_compacts_at_fast_mode(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, [_docs_example(speed="fast")])
    assert _by_model() == {f"{MODEL}-fast": (203000, 0, 0, 4500)}


def test_a_session_that_goes_on_counts_its_later_compaction(isolated_home: Path) -> None:
    # The cached read resumes after what it read (``incremental``): the appended record's
    # compaction counts as a fresh read's does.
    path = claude_session_file(isolated_home, S, [claude_user(S, _at(1), "keep going"), _docs_example()])
    assert cli_json("tokens")["total"]["total"] == 207500
    with path.open("a") as handle:
        handle.write(json.dumps(_docs_example(msg="msg_c2", request="req_c2", second=9)) + "\n")
    warm, fresh = cli_json("tokens"), cli_json("tokens", "--no-cache")
    assert warm["total"] == fresh["total"] and warm["total"]["total"] == 2 * 207500
