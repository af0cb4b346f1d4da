"""``errors`` has one shape and one selection rule (pass 31).

Cursor's error lines are ``{"text", "timestamp", "kind", "subagent"}`` entries of the
collector's pool, as every other provider's are (they were plain strings), so
``jq '.session.errors[].text'`` reads any session.  A huge Claude transcript shown
from its end keeps the errors a forward read keeps: the newest 20 by the time shown,
one of no time older than any, equal times in reading order (its row's pass kept the
last 20 read, whatever their times).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.bounds import DEFAULT_BOUNDS
from agentscan.providers.claude import halfjoin
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.tailfacts import TailFacts
from agentscan.scan.scanner import Scanner
from agentscan.timeutil import parse_iso
from agentscan.toolkit.detail import ERROR_BYTES, DetailCollector
from agentscan.toolkit.newesterrors import ERRORS_KEPT, NewestErrors
from claude_events import forward_and_from_end
from builders import claude_assistant, claude_base, claude_session_file, claude_subagent_file, claude_usage, claude_user
from builders import invoke
from cursor_builders import assistant, user, write_transcript

S = "e5e5e5e5-0000-4000-8000-000000000031"
AGENT = "a1b2c3d4e5f6a7b31"
CURSOR = "11111111-0000-4000-8000-000000000031"


def _error_record(n: int, ts: str | None, **extra) -> dict:
    """A ``system`` ``api_error`` record (``ts`` ``None``: its time was not recorded)."""
    return {**claude_base(S, ts, uuid=f"err-{n}", **extra), "type": "system", "subtype": "api_error", "level": "error",  # type: ignore[arg-type]
            "error": {"message": f"e{n}"}}


def _minute(minute: int) -> str:
    return f"2026-03-01T10:{minute:02d}:00.000Z"


def _errors_of_a_long_session() -> list[dict]:
    """30 errors out of time order, every fifth of no time, then two of one millisecond
    whose finer times run the other way from reading order."""
    records = [claude_user(S, _minute(0), "go"),
               claude_assistant(S, _minute(0), msg_id="m1", request_id="r1", usage=claude_usage(input=3, output=1),
                                blocks=[{"type": "text", "text": "on it"}])]
    for n in range(30):
        records.append(_error_record(n, None if n % 5 == 4 else _minute((n * 7) % 30 + 1)))
    records.append(_error_record(30, "2026-03-01T11:00:00.000400Z"))
    records.append(_error_record(31, "2026-03-01T11:00:00.000100Z"))
    return records


def _texts(errors: list[dict]) -> list[str]:
    return [e["text"] for e in errors]


# -- one selection rule -----------------------------------------------------------------


def test_a_huge_transcript_from_its_end_keeps_the_errors_the_forward_read_keeps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    home = tmp_path / "home"
    claude_session_file(home, S, _errors_of_a_long_session())
    claude_subagent_file(home, S, AGENT, [
        claude_user(S, _minute(40), "search", sidechain=True, agentId=AGENT),
        _error_record(90, _minute(41), isSidechain=True, agentId=AGENT),
        _error_record(91, None, isSidechain=True, agentId=AGENT),
    ])
    forward, tail, _ = forward_and_from_end(home)
    assert tail is not None  # shown from its end
    assert forward.extra["errors"] == tail.extra["errors"]
    # The newest 20 by time: no error of no time (26 have one), oldest first; the two of one
    # millisecond in reading order, as their shown times are equal; the subagent's newer.
    timed = sorted((((n * 7) % 30 + 1), f"e{n}") for n in range(30) if n % 5 != 4)
    assert _texts(forward.extra["errors"]) == [text for _, text in timed[-17:]] + ["e90", "e30", "e31"]
    assert [e["subagent"] for e in forward.extra["errors"]][-3:] == [AGENT, None, None]


def test_show_facts_joined_by_halves_keep_the_newest_not_the_last_read() -> None:
    """The helper's half read after the first: its errors of no time are older than any."""
    first, second = ShowFacts(), ShowFacts()
    for minute in range(ERRORS_KEPT):
        first.feed(_error_record(minute, _minute(minute)))
    for n in range(5):
        second.feed(_error_record(100 + n, None))
    second.feed(_error_record(200, _minute(59)))
    halfjoin._join_facts(first, second)
    assert [error[0] for error in first.errors] == [f"e{minute}" for minute in range(1, ERRORS_KEPT)] + ["e200"]


def test_show_facts_keep_reading_order_through_a_resume_state_and_the_index() -> None:
    """Kept in the order read (the collector adds them in that order, to place equal times)."""
    facts = ShowFacts()
    for n, minute in enumerate((5, 3, 3, 9)):
        facts.feed(_error_record(n, _minute(minute)))
    facts.feed(_error_record(4, None))
    assert [error[0] for error in facts.errors] == ["e0", "e1", "e2", "e3", "e4"]
    again = ShowFacts()
    again.load_state(orjson.loads(orjson.dumps(facts.to_state())))
    for n in range(5, 5 + ERRORS_KEPT - 4):  # one too many: the untimed one is pushed out
        again.feed(_error_record(n, _minute(10)))
    assert [error[0] for error in again.errors][:5] == ["e0", "e1", "e2", "e3", "e5"]
    assert len(again.errors) == ERRORS_KEPT
    kept = TailFacts(1, 0, 0, 0, 0, 1, 0, 1, None, {}, {}, [], 0, tuple(tuple(e) for e in again.errors))
    assert TailFacts.from_json(orjson.loads(orjson.dumps(kept.to_json()))) == kept


def test_show_facts_of_an_older_selection_are_not_read() -> None:
    """Facts kept by version 3 chose the last 20 read: gathered again, not shown."""
    doc = TailFacts(1, 0, 0, 0, 0, 1, 0, 1, None, {}, {}, [], 0, ()).to_json()
    assert doc["v"] != "3"
    assert TailFacts.from_json({**doc, "v": "3"}) is None


def test_newest_errors_is_the_collectors_rule() -> None:
    kept: NewestErrors[str] = NewestErrors()
    collector = DetailCollector(DEFAULT_BOUNDS)
    stamps = [None, _minute(3), _minute(1), None, _minute(3), _minute(2)] * 5
    for n, stamp in enumerate(stamps):
        kept.add(stamp, f"e{n}")
        collector.add_error(f"e{n}", parse_iso(stamp))
    assert kept.by_time() == [e["text"] for e in collector.errors()]
    assert len(kept.by_time()) == ERRORS_KEPT and all(stamps[int(text[1:])] is not None for text in kept.by_time())
    assert kept.in_reading_order() == sorted(kept.by_time(), key=lambda text: int(text[1:]))


# -- Cursor's shape ---------------------------------------------------------------------


def _cursor_errors(home: Path, count: int, text: str = "Provider Error: timeout") -> None:
    write_transcript(home, "home-dev-proj", CURSOR, [
        user("hi"),
        *({"type": "error", "error": f"{text} #{n}"} for n in range(1, count + 1)),
        assistant("hello"),
    ])


def test_cursor_errors_are_entries_as_every_providers_are(isolated_home: Path) -> None:
    _cursor_errors(isolated_home, 25, "Provider Error: " + "x" * (2 * ERROR_BYTES))
    result = invoke("--home", str(isolated_home), "show", CURSOR, "--json")
    assert result.exit_code == 0, result.output
    errors = orjson.loads(result.stdout)["session"]["errors"]
    assert len(errors) == ERRORS_KEPT
    assert all(set(e) == {"text", "timestamp", "kind", "subagent"} for e in errors)
    assert all((e["timestamp"], e["kind"], e["subagent"]) == (None, "error", None) for e in errors)
    assert all(len(e["text"].encode()) <= ERROR_BYTES and e["text"].endswith("…") for e in errors)


def test_cursor_keeps_the_last_20_read_in_their_order(isolated_home: Path) -> None:
    _cursor_errors(isolated_home, 25)
    detail = Scanner(home=isolated_home, provider_names=["cursor"]).show(CURSOR)
    assert _texts(detail.extra["errors"]) == [f"Provider Error: timeout #{n}" for n in range(6, 26)]
    # The card's newest 3 and --full's every one kept, after everything: none has a time.
    card = invoke("--home", str(isolated_home), "show", CURSOR).stdout.splitlines()
    at = card.index("errors (newest 3 of 20)")
    assert card[at + 1:at + 4] == [f"  -                 Provider Error: timeout #{n}" for n in (23, 24, 25)]
    full = invoke("--home", str(isolated_home), "show", CURSOR, "--full", "--no-pager").stdout.splitlines()
    bodies = [line.strip() for line in full if line.startswith("    ")]
    assert bodies[-20:] == [f"Provider Error: timeout #{n}" for n in range(6, 26)]
    assert bodies.index("hello") < bodies.index("Provider Error: timeout #6")


def test_redact_hashes_cursors_error_texts_and_keeps_the_rest(isolated_home: Path) -> None:
    _cursor_errors(isolated_home, 1)
    result = invoke("--home", str(isolated_home), "show", CURSOR, "--json", "--redact")
    assert result.exit_code == 0, result.output
    (error,) = orjson.loads(result.stdout)["session"]["errors"]
    assert error["text"].startswith("[redacted: ") and "timeout" not in result.stdout
    assert (error["timestamp"], error["kind"], error["subagent"]) == (None, "error", None)
