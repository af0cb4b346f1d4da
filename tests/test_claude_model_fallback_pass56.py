"""Pass 56: a model fallback in the middle of a session bills each call on the model that served
it.  Claude Fable 5's safeguards re-serve a request on Opus (anthropics/claude-code issues 66822,
83272: "rerouted requests [are] not billed at Fable pricing"), and Claude Code's own
``fallbackModel`` (2.1.166 on) retries a turn on another model.  The record of a switched
request names the serving model in ``message.model``, holds a ``{"type": "fallback", "from",
"to"}`` content block, and lists ``usage.iterations`` ``[{"type": "message", "model": <asked>},
{"type": "fallback_message", "model": <served>}]``; later turns stay on the served model
("sticky", the same iterations, no block).  Shapes as a public reader's tests copy them from
real transcripts (``test/fallbacks.test.mjs``, captured 2026-07-02, counts as there).  A refused
partial on the asked model is billed at its rates; the iterations' entries are no calls of their
own.  Every view prices the calls alike: ``tokens --by model``, the ``list`` row, ``show``."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "fa11bacc-5656-4000-8000-000000000001"
FABLE, OPUS = "claude-fable-5", "claude-opus-4-8"
SWITCHED = [{"type": "message", "model": FABLE}, {"type": "fallback_message", "model": OPUS}]


def _at(minute: int, second: int = 0) -> str:
    return f"2026-07-12T20:{minute:02d}:{second:02d}.000Z"


def _reply(minute: int, request: str, model: str, used: tuple[int, int], *, second: int = 0, **extra: Any) -> dict:
    usage = claude_usage(*used)
    if model == OPUS:
        usage["iterations"] = SWITCHED
    return claude_assistant(S, _at(minute, second), msg_id=f"msg_{request}", request_id=request, model=model,
                            usage=usage, uuid=f"a{minute}{second}", **extra)


def _session(home: Path) -> None:
    claude_session_file(home, S, [
        claude_user(S, _at(40), "do the thing", uuid="u1"),
        _reply(41, "req_norm", FABLE, (1000, 100)),
        # a bare refusal on Fable: its streamed partial is billed
        _reply(42, "req_refusal", FABLE, (685, 357), blocks=[{"type": "thinking", "thinking": "hmm"}]),
        # the switch, served by Opus, and a streamed copy of it (one call)
        _reply(43, "req_switch", OPUS, (2000, 200), blocks=[
            {"type": "fallback", "from": {"model": FABLE}, "to": {"model": OPUS}},
            {"type": "text", "text": "continuing on opus"}]),
        _reply(43, "req_switch", OPUS, (2000, 200), second=1),
        # a sticky turn: still Opus, no block
        _reply(44, "req_sticky", OPUS, (3000, 300)),
    ])


def test_each_call_is_priced_on_the_model_that_served_it(isolated_home: Path) -> None:
    _session(isolated_home)
    rows = {row["key"]: row for row in cli_json("tokens", "--by", "model")["rows"]}
    assert set(rows) == {FABLE, OPUS}
    assert (rows[FABLE]["tokens"]["input"], rows[FABLE]["tokens"]["output"]) == (1685, 457)
    assert (rows[OPUS]["tokens"]["input"], rows[OPUS]["tokens"]["output"]) == (5000, 500)
    # per MTok: Fable 5 $10 in / $50 out, Opus 4.8 $5 / $25
    assert Decimal(str(rows[FABLE]["cost_usd"])) == Decimal("0.0397")
    assert Decimal(str(rows[OPUS]["cost_usd"])) == Decimal("0.0375")


def test_the_row_and_the_card_add_the_same_calls_up(isolated_home: Path) -> None:
    _session(isolated_home)
    (listed,) = cli_json("list", "--all")["sessions"]
    shown = cli_json("show", S)["session"]
    for priced in (listed, shown):
        assert Decimal(str(priced["cost_usd"])) == Decimal("0.0772")  # not 6,685 in and 957 out at Fable's rates
