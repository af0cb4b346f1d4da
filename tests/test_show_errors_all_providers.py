"""``show`` lists the errors Claude, Codex and Gemini recorded, as it lists Cursor's.

Each provider fills the detail's ``errors`` (``{"text", "timestamp", "kind",
"subagent"}``, the newest 20 by time, each text cut at 1 KiB): Claude's API
errors written as replies (``isApiErrorMessage``) and its ``system`` error and
refusal records, Codex's ``error`` events, Gemini's ``error`` messages.  A
Claude API error written as a reply is no response: not among ``responses``,
not in the row's count, not the card's ``last response``; its (zero) tokens
count as before.  A huge Claude transcript shown from its end, and one whose
row pass was read by halves, list the same errors as the forward read.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import orjson
import pytest

from agentscan.model import TokenUsage
from agentscan.providers.claude import halfjoin, halves, rowresume
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.tailfacts import TailFacts
from agentscan.scan.scanner import Scanner
from agentscan.toolkit.detail import ERROR_BYTES
from agentscan.toolkit.newesterrors import ERRORS_KEPT
from builders import (
    claude_assistant,
    claude_base,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    invoke,
    lay_out_real_claude,
)
from claude_events import SESSION, forward_and_from_end, lines_of, lower_row_limits, split_huge_passes
from codex_builders import agent_message, at, iso, lay_out_real_codex, line, meta, rollout_path, turn_context
from codex_builders import user_message, write_rollout
from gemini_builders import REAL_JSONL, gemini, lay_out_real_gemini, rewind, tokens, user, write_chat
from gemini_builders import meta as gemini_meta
from spies import record_calls

S = "e5e5e5e5-0000-4000-8000-000000000001"
AGENT = "a1b2c3d4e5f6a7b8c"


def _at(second: int) -> str:
    return f"2026-03-01T10:00:{second:02d}.000Z"


def _api_error_reply(ts: str, text: str = "API Error: Rate limit reached", *, msg_id: str = "msg_err", **extra) -> dict:
    """What Claude Code writes for a failed request: a ``<synthetic>`` reply of no usage."""
    return {**claude_assistant(S, ts, msg_id=msg_id, request_id=None, usage=claude_usage(),
                               blocks=[{"type": "text", "text": text}], model="<synthetic>", **extra),
            "isApiErrorMessage": True, "error": "rate_limit"}


def _system(ts: str, subtype: str, **fields) -> dict:
    return {**claude_base(S, ts, uuid=f"sys-{ts}"), "type": "system", "subtype": subtype, "level": "error", **fields}


def _overloaded(ts: str, attempt: int = 1) -> dict:
    return _system(ts, "api_error", error={"message": "Overloaded", "status": 529}, retryInMs=2000,
                   retryAttempt=attempt, maxRetries=10)


def _conversation(*, errors: bool) -> list[dict]:
    """A prompt, a reply, then (``errors``) a failed try and the API error written as a reply."""
    records = [
        claude_user(S, _at(1), "why does the server not start?"),
        claude_assistant(S, _at(2), msg_id="m1", request_id="r1", usage=claude_usage(input=10, output=5),
                         blocks=[{"type": "text", "text": "Let me look."}]),
    ]
    if errors:
        records += [_overloaded(_at(3)), _api_error_reply(_at(4))]
    return records


def _error(text: str, ts: str | None, kind: str, subagent: str | None = None) -> dict:
    return {"text": text, "timestamp": ts, "kind": kind, "subagent": subagent}


def _scanner(home: Path, provider: str) -> Scanner:
    return Scanner(home=home, provider_names=[provider])


# -- Claude -------------------------------------------------------------------------


def test_claude_api_error_reply_is_an_error_not_a_response(isolated_home: Path, tmp_path: Path) -> None:
    claude_session_file(isolated_home, S, _conversation(errors=True))
    (row,) = _scanner(isolated_home, "claude").list_sessions()
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 1, 0)
    detail = _scanner(isolated_home, "claude").show(S)
    assert detail.row.counts == row.counts
    assert [(r.text, r.model) for r in detail.responses] == [("Let me look.", "claude-sonnet-4-5-20250929")]
    assert detail.extra["errors"] == [
        _error("529 Overloaded (retry 1 of 10)", _at(3), "api_error"),
        _error("API Error: Rate limit reached", _at(4), "rate_limit"),
    ]
    # The synthetic reply's tokens (none) count as before: the same as without the errors.
    assert detail.row.tokens == row.tokens == TokenUsage(input=10, output=5)
    plain = tmp_path / "plain"
    claude_session_file(plain, S, _conversation(errors=False))
    assert Scanner(home=plain, provider_names=["claude"], use_cache=False).show(S).row.tokens == row.tokens


def test_claude_card_lists_the_errors_and_the_real_last_response(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _conversation(errors=True))
    result = invoke("--home", str(isolated_home), "show", S[:8])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "1 prompt, 1 response" in text
    errors = text.split("errors (2)\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert errors == ["  2026-03-01 10:00  529 Overloaded (retry 1 of 10)",
                      "  2026-03-01 10:00  API Error: Rate limit reached"]
    assert text.split("last response\n", 1)[1].strip() == "Let me look."
    full = invoke("--home", str(isolated_home), "show", S[:8], "--full", "--no-pager").output
    assert "error\n    API Error: Rate limit reached" in full
    assert "response (<synthetic>)" not in full


def test_claude_real_catalog_refusal_and_system_errors(isolated_home: Path) -> None:
    """agent-sessions' schema catalog: an ``api_refusal``, a ``system/error`` 429, ``api_error``
    records of every shape it knows (their values trimmed), a ``model_refusal_fallback``."""
    lay_out_real_claude(isolated_home)
    detail = _scanner(isolated_home, "claude").show("ses_stage0_small")
    errors = detail.extra["errors"]
    assert errors[-2:] == [
        _error("refused (policy): Refused for policy reasons.", "2025-12-16T00:00:06.000Z", "api_refusal"),
        _error("429 [trimmed for fixture]", "2025-12-16T00:00:20.000Z", "error"),
    ]
    # Their times were trimmed: older than any, in the file's order.
    assert [(e["kind"], e["timestamp"]) for e in errors[:-2]] == [
        ("api_error", None), ("api_error", None), ("api_error", None), ("api_error", None),
        ("model_refusal_fallback", None)]
    # The authentication error's message is the innermost one of the API's body; an api_error
    # that says nothing is said as its subtype.
    assert [e["text"] for e in errors[:4]] == ["[trimmed for fixture]"] * 3 + ["api error"]
    assert errors[4]["text"].startswith("refused ([trimmed for fixture]): ")
    assert "fell back from [trimmed for fixture] to [trimmed for fixture]" in errors[4]["text"]


def test_claude_subagent_errors_are_the_sessions_named_by_the_subagent(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S, _conversation(errors=False))
    claude_subagent_file(isolated_home, S, AGENT, [
        claude_user(S, _at(5), "search the repo", sidechain=True, agentId=AGENT),
        {**_api_error_reply(_at(6), "API Error: 500 Internal server error", sidechain=True, agentId=AGENT),
         "error": "unknown"},
    ])
    detail = _scanner(isolated_home, "claude").show(S)
    assert detail.extra["errors"] == [_error("API Error: 500 Internal server error", _at(6), "unknown", AGENT)]
    (sub,) = detail.subagents
    assert [p.text for p in sub.prompts] == ["search the repo"] and sub.responses == ()


def test_claude_errors_are_bounded_newest_kept(isolated_home: Path) -> None:
    long = "x" * (3 * ERROR_BYTES)
    records = [claude_user(S, _at(0), "go")]
    records += [_system(f"2026-03-01T10:{minute:02d}:00.000Z", "api_error", error={"message": f"try {minute} {long}"})
                for minute in range(1, 31)]
    claude_session_file(isolated_home, S, records)
    errors = _scanner(isolated_home, "claude").show(S).extra["errors"]
    assert len(errors) == ERRORS_KEPT == 20
    assert [e["text"].split()[1] for e in errors] == [str(minute) for minute in range(11, 31)]
    assert all(len(e["text"].encode()) <= ERROR_BYTES and e["text"].endswith("…") for e in errors)


def test_claude_huge_transcript_from_its_end_lists_what_the_forward_read_lists(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An API error between two records of one message parts them, read either way."""
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    home = tmp_path / "home"
    claude_session_file(home, S, [
        *_conversation(errors=True),
        claude_user(S, _at(5), "again"),
        claude_assistant(S, _at(6), msg_id="m2", request_id="r2", usage=claude_usage(input=3, output=1),
                         blocks=[{"type": "text", "text": "one"}]),
        _api_error_reply(_at(7), msg_id="msg_err2"),
        claude_assistant(S, _at(8), msg_id="m2", request_id="r2", usage=claude_usage(input=3, output=1),
                         blocks=[{"type": "text", "text": "two"}]),
        _system(_at(9), "api_refusal", apiRefusalCategory="cyber", apiRefusalExplanation="Not allowed."),
    ])
    forward, tail, row = forward_and_from_end(home)
    assert tail is not None  # shown from its end
    assert [r.text for r in forward.responses] == [r.text for r in tail.responses] == ["Let me look.", "one", "two"]
    assert forward.truncated == tail.truncated
    assert forward.extra["errors"] == tail.extra["errors"] == [
        _error("529 Overloaded (retry 1 of 10)", _at(3), "api_error"),
        _error("API Error: Rate limit reached", _at(4), "rate_limit"),
        _error("API Error: Rate limit reached", _at(7), "rate_limit"),
        _error("refused (cyber): Not allowed.", _at(9), "api_refusal"),
    ]
    assert row.counts.responses == 2  # (the row counts messages: m1 and m2)


def test_an_error_s_kind_is_cut_alike_read_forward_or_from_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A kind is the file's own word: a hostile one of any length is cut where errors are kept,
    # by the collector and by the facts a huge transcript's row pass keeps, at the same length.
    from agentscan.toolkit.detail import ERROR_KIND_CHARS

    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    home = tmp_path / "home"
    claude_session_file(home, S, [*_conversation(errors=False), _system(_at(5), "x" * 500 + "_error", content="boom")])
    forward, tail, _ = forward_and_from_end(home)
    assert tail is not None
    assert forward.extra["errors"] == tail.extra["errors"] == [_error("boom", _at(5), "x" * ERROR_KIND_CHARS)]
    # What the facts keep (in the index, for every later run) is cut already, as the text is.
    facts = ShowFacts()
    facts.feed(_system(_at(5), "x" * 500 + "_error", content="boom"))
    assert facts.errors == [["boom", _at(5), "x" * ERROR_KIND_CHARS]]


def test_show_facts_keep_their_errors_through_a_resume_state_the_index_and_a_join() -> None:
    first, second = ShowFacts(), ShowFacts()
    for minute in range(15):
        first.feed(_overloaded(f"2026-03-01T10:{minute:02d}:00.000Z"))
    for minute in range(15, 30):
        second.feed(_api_error_reply(f"2026-03-01T10:{minute:02d}:00.000Z"))
    again = ShowFacts()
    again.load_state(orjson.loads(orjson.dumps(first.to_state())))
    assert list(again.errors) == list(first.errors) and len(first.errors) == 15
    halfjoin._join_facts(first, second)
    assert [error[1][11:16] for error in first.errors] == [f"10:{minute:02d}" for minute in range(10, 30)]
    assert first.errors[-1] == ["API Error: Rate limit reached", "2026-03-01T10:29:00.000Z", "rate_limit"]
    # A hostile file's kind (any ``…_error`` subtype) is cut, as its text is.
    first.feed(_system("2026-03-01T10:30:00.000Z", "y" * 300 + "_error", error="boom"))
    assert first.errors[-1] == ["boom", "2026-03-01T10:30:00.000Z", "y" * 64]
    facts = TailFacts(1, 0, 0, 0, 0, 1, 0, 1, None, {}, {}, [], 0, tuple(tuple(e) for e in first.errors))
    assert TailFacts.from_json(orjson.loads(orjson.dumps(facts.to_json()))) == facts


def test_claude_halves_join_the_errors_of_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The row pass of a huge transcript read by halves, one on each core: the errors of the
    helper's half join the first half's, as one pass keeps them."""
    lower_row_limits(monkeypatch, helper=True)
    monkeypatch.setattr(rowresume, "MAX_BYTES", -1)  # no resume state: the halves' case
    records: list = []
    for turn in range(6):
        records += [claude_user(SESSION, f"2026-03-01T10:{turn:02d}:00.000Z", f"prompt {turn}"),
                    {**_overloaded(f"2026-03-01T10:{turn:02d}:10.000Z", turn + 1), "sessionId": SESSION},
                    claude_assistant(SESSION, f"2026-03-01T10:{turn:02d}:20.000Z", msg_id=f"m{turn}",
                                     request_id=f"r{turn}", usage=claude_usage(input=4, output=2),
                                     blocks=[{"type": "text", "text": f"answer {turn}"}])]
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records))
    data = path.read_bytes()
    starts = [index + 1 for index, byte in enumerate(data) if byte == 0x0A]
    seam = starts[8]  # the start of the fourth turn
    monkeypatch.setattr(halves, "find_seam", lambda path, size: seam)
    joined = record_calls(monkeypatch, halfjoin.Join, "apply", lambda *args: "joined")

    def seen(cache: str) -> tuple:
        env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / cache)}
        with Scanner(env=env) as scanner:
            return scanner.all_rows()[0].to_json(), scanner.show(SESSION).to_json()

    split_huge_passes(monkeypatch, True)
    split = seen("split")
    assert joined
    split_huge_passes(monkeypatch, False)
    assert split == seen("one")
    assert [(e["text"], e["timestamp"]) for e in split[1]["errors"]] == [
        (f"529 Overloaded (retry {turn + 1} of 10)", f"2026-03-01T10:{turn:02d}:10.000Z") for turn in range(6)]


# -- Codex --------------------------------------------------------------------------

THREAD = "019e0000-0000-7000-8000-00000000e001"
CHILD = "019e0000-0000-7000-8000-00000000e002"


def test_codex_error_events_are_listed_and_turn_aborted_is_not(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    write_rollout(rollout_path(codex, THREAD, at(0)), [
        meta(THREAD, at(0)), turn_context(at(1)), user_message(at(2), "refactor the parser"),
        agent_message(at(3), "On it."),
        line(at(4), "event_msg", {"type": "error", "message": "stream disconnected before completion: rate limit exceeded"}),
        line(at(5), "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        line(at(6), "event_msg", {"type": "error", "message": "You've hit your usage limit.",
                                  "codex_error_info": "usage_limit_exceeded"}),
        line(at(6.5), "event_msg", {"type": "error", "message": "odd", "codex_error_info": "z" * 300}),
    ])
    write_rollout(rollout_path(codex, CHILD, at(7)), [
        meta(CHILD, at(7), spawn_parent=THREAD, agent_role="reviewer"), turn_context(at(7)),
        user_message(at(8), "review it"),
        line(at(9), "event_msg", {"type": "error", "message": "",
                                  "codex_error_info": {"http_connection_failed": {"http_status_code": 502}}}),
    ])
    detail = _scanner(isolated_home, "codex").show(THREAD)
    assert (detail.row.counts.prompts, detail.row.counts.responses) == (1, 1)
    assert detail.extra["errors"] == [
        _error("stream disconnected before completion: rate limit exceeded", iso(at(4)), "error"),
        _error("You've hit your usage limit.", iso(at(6)), "usage_limit_exceeded"),
        _error("odd", iso(at(6.5)), "z" * 64),  # a hostile kind is cut
        _error("http connection failed", iso(at(9)), "http_connection_failed", CHILD),
    ]


def test_codex_real_samples(isolated_home: Path) -> None:
    """The 0.146 schema catalog's ``error`` event (values trimmed, no time); the real 0.135
    session with an error and an abort written after its reply, as the reviewer's home has."""
    laid_out = lay_out_real_codex(isolated_home)
    catalog = _scanner(isolated_home, "codex").show("019fc8be-3658-7ca3-9e29-000000000000")
    assert catalog.extra["errors"] == [_error("[trimmed for fixture]", None, "[trimmed for fixture]")]
    real = "019e9625-802f-7e91-840a-cfe88d14117a"
    with laid_out[real].open("ab") as handle:
        last = orjson.loads(laid_out[real].read_bytes().splitlines()[-1])["timestamp"]
        handle.write(orjson.dumps(line(last, "event_msg", {"type": "error", "message": "stream disconnected"})) + b"\n")
        handle.write(orjson.dumps(line(last, "event_msg", {"type": "turn_aborted", "reason": "interrupted"})) + b"\n")
    detail = _scanner(isolated_home, "codex").show(real)
    assert detail.extra["errors"] == [_error("stream disconnected", last, "error")]
    assert detail.row.counts.responses == 1


# -- Gemini -------------------------------------------------------------------------


def test_gemini_error_messages_of_the_live_conversation(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-aaaa1111.jsonl", [
        gemini_meta("aaaa1111-0000-4000-8000-000000000001"),
        user("u1", "2026-05-01T10:00:01.000Z", "write the docs"),
        gemini("g1", "2026-05-01T10:00:02.000Z", "Done.", usage=tokens(100, 10)),
        {"id": "e1", "timestamp": "2026-05-01T10:00:03.000Z", "type": "error",
         "content": "[API Error: quota exceeded (429)]"},
        {"id": "i1", "timestamp": "2026-05-01T10:00:04.000Z", "type": "info", "content": "Request cancelled."},
        user("u2", "2026-05-01T10:00:05.000Z", "try again"),
        {"id": "e2", "timestamp": "2026-05-01T10:00:06.000Z", "type": "error", "content": [{"text": "[API Error: gone]"}]},
        rewind("e2"),  # the user went back: that error is no longer the conversation's
    ])
    detail = _scanner(isolated_home, "gemini").show("aaaa1111")
    assert (detail.row.counts.prompts, detail.row.counts.responses) == (2, 1)
    assert detail.extra["errors"] == [_error("[API Error: quota exceeded (429)]", "2026-05-01T10:00:03.000Z", "error")]


def test_gemini_real_sample_with_an_error_appended(isolated_home: Path) -> None:
    """The real 2026 JSONL chat, as the reviewer's home has it: an error after its last message."""
    tmp = lay_out_real_gemini(isolated_home)
    (chat,) = tmp.glob(f"*/chats/{REAL_JSONL.name}")
    with chat.open("ab") as handle:
        handle.write(orjson.dumps({"id": "err-1", "timestamp": "2026-04-23T12:58:40.000Z", "type": "error",
                                   "content": "[API Error: quota exceeded (429)]"}) + b"\n")
    detail = _scanner(isolated_home, "gemini").show("0ab84937")
    assert detail.extra["errors"] == [_error("[API Error: quota exceeded (429)]", "2026-04-23T12:58:40.000Z", "error")]
    assert (detail.row.counts.prompts, detail.row.counts.responses) == (2, 2)


def test_gemini_errors_bounded_to_the_newest(isolated_home: Path) -> None:
    start = at(0)
    records: list = [gemini_meta("bbbb2222-0000-4000-8000-000000000002"), user("u1", iso(start), "go")]
    records += [{"id": f"e{n}", "timestamp": iso(start + timedelta(seconds=n)), "type": "error", "content": f"fail {n}"}
                for n in range(1, 26)]
    write_chat(isolated_home, "proj", "session-2026-03-02T09-00-bbbb2222.jsonl", records)
    errors = _scanner(isolated_home, "gemini").show("bbbb2222").extra["errors"]
    assert [e["text"] for e in errors] == [f"fail {n}" for n in range(6, 26)]


def test_redact_hashes_the_texts_of_the_errors(isolated_home: Path) -> None:
    # Error texts quote what the provider sent back (a refused prompt, a path): --redact
    # hashed Cursor's plain-text errors only, and printed these whole.
    claude_session_file(isolated_home, S, _conversation(errors=True))
    result = invoke("--home", str(isolated_home), "show", S[:8], "--redact", "--json")
    assert result.exit_code == 0, result.output
    errors = orjson.loads(result.stdout)["session"]["errors"]
    assert len(errors) == 2 and all("Rate limit" not in e["text"] and "Overloaded" not in e["text"] for e in errors)
    assert [e["timestamp"] for e in errors] == [_at(3), _at(4)]
