"""Lines that Node's JSON.parse reads and orjson refuses are read (``toolkit.laxjson``).

``JSON.stringify`` writes a lone UTF-16 surrogate as ``"\\ud83d"`` (a string cut mid-emoji:
anthropics/claude-code#69927); a copied home can hold a byte that is not UTF-8.  Either
made the readers skip the whole line, so a billed call was lost (a legacy Gemini chat
lost everything after it), where ccusage counts it.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_usage, claude_user, cli_json, invoke
from cursor_builders import bubble, composer_data, cursor_only, make_state_db, state_db_path
from gemini_builders import gemini, meta, tokens, user, write_legacy

from agentscan.toolkit import laxjson

SESSION = "5a1e0000-0000-4000-8000-000000000001"
CUT = b"\\ud83d"  # the escape as JSON.stringify writes it: backslash, u, d83d


def _line(record: dict, text: str, cut: bytes = CUT) -> bytes:
    """``record`` as a JSON line whose string ``text`` ends in ``cut``."""
    data = orjson.dumps(record)
    assert data.count(text.encode()) == 1
    return data.replace(text.encode(), text.encode() + cut) + b"\n"


# -- the decoder -----------------------------------------------------------


@pytest.mark.parametrize("data, value", [
    (b'{"a":"x \\ud83d"}', {"a": "x \ufffd"}),  # a lone high surrogate
    (b'{"a":"\\udc00 y"}', {"a": "\ufffd y"}),  # a lone low one
    (b'{"\\ud83d":1}', {"\ufffd": 1}),  # in a key
    (b'{"a":"\\ud83d\\ude00"}', {"a": "\U0001F600"}),  # a pair is a character (orjson's own path)
    (b'{"a":"\\ud83d","n":123456789012345678901234567890}', {"a": "\ufffd", "n": 1.2345678901234568e29}),
])
def test_lone_surrogates_become_replacement_characters(data: bytes, value: object) -> None:
    assert laxjson.loads(data) == value
    orjson.dumps(laxjson.loads(data))  # printable, cacheable, exportable


def test_bytes_that_are_not_utf8_are_replaced_and_said() -> None:
    notes: list[str] = []
    with pytest.raises(orjson.JSONDecodeError) as refused:
        orjson.loads(b'{"a":"caf\xe9"}')
    assert laxjson.reparse(b'{"a":"caf\xe9"}', refused.value, notes.append) == {"a": "caf\ufffd"}
    assert notes == [laxjson.NOT_UTF8]
    # a str read with surrogateescape holds the same bytes
    assert laxjson.loads(b'{"a":"caf\xe9"}'.decode("utf-8", "surrogateescape")) == {"a": "caf\ufffd"}


@pytest.mark.parametrize("data", [b'{"a":1', b'{"a":NaN}', b'{"a":"\\ud83d", "b":Infinity}', b"[" * 2000, b'{"a":"\\ud83d"',
                                  # numbers past a float's range: refused as orjson refuses them, not
                                  # an OverflowError that would lose the whole session
                                  b'{"a":"\\ud83d","x":1' + b"0" * 400 + b"}", b'{"a":"\\ud83d","x":1e400}'])
def test_what_json_parse_refuses_stays_refused(data: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError):
        laxjson.loads(data)


# -- every reader ----------------------------------------------------------


def _claude_home(home: Path) -> Path:
    path = home / ".claude" / "projects" / "-home-dev-project" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    first = claude_assistant(SESSION, "2026-05-01T10:00:05Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10),
                             blocks=[{"type": "text", "text": "tests: 3 passed"}], uuid="a1")
    second = claude_assistant(SESSION, "2026-05-01T10:01:05Z", msg_id="m2", request_id="r2", usage=claude_usage(1000, 200),
                              blocks=[{"type": "text", "text": "done"}], uuid="a2")
    path.write_bytes(orjson.dumps(claude_user(SESSION, "2026-05-01T10:00:00Z", "run the tests", uuid="u1")) + b"\n"
                     + _line(first, "3 passed") + _line(second, "done", b"\xe9") )
    return path


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_claude_counts_a_call_whose_text_was_cut_mid_emoji(isolated_home: Path, cache: list[str]) -> None:
    _claude_home(isolated_home)
    report = cli_json(*cache, "tokens")
    assert report["total"]["total"] == 1310  # both calls: 100+10 and 1000+200
    rows = cli_json(*cache, "list")["sessions"]
    assert [row["tokens"]["total"] for row in rows] == [1310]
    assert cli_json(*cache, "show", SESSION[:8])["session"]["tokens"]["total"] == 1310
    # the byte that is not UTF-8 is said; the valid escape is not
    warnings = [w["message"] for w in report["warnings"]]
    assert warnings == [laxjson.NOT_UTF8]


def test_a_refused_line_loses_only_itself(isolated_home: Path) -> None:
    path = _claude_home(isolated_home)
    huge = b'{"type":"assistant","message":{"usage":{"input_tokens":1},"text":"\\ud83d"},"n":1' + b"0" * 400 + b"}\n"
    path.write_bytes(path.read_bytes() + huge)
    report = cli_json("tokens")
    assert report["total"]["total"] == 1310
    assert any("invalid JSON skipped" in w["message"] for w in report["warnings"])


def test_claude_warm_answers_equal_cold(isolated_home: Path) -> None:
    _claude_home(isolated_home)
    cold = cli_json("tokens")["total"]
    assert cli_json("tokens")["total"] == cold == cli_json("--no-cache", "tokens")["total"]
    result = invoke("show", SESSION[:8])
    assert result.exit_code == 0 and "\ufffd" in result.output


def test_gemini_legacy_chat_keeps_every_message_after_a_lone_surrogate(isolated_home: Path) -> None:
    document = {**meta("9e000000-0000-4000-8000-000000000002"), "messages": [
        user("u1", "2026-05-01T10:00:00.000Z", "hi"),
        gemini("g1", "2026-05-01T10:00:05.000Z", "cut: PLACE", usage=tokens(100, 20)),
        gemini("g2", "2026-05-01T10:01:05.000Z", "later", usage=tokens(300, 40)),
    ]}
    path = write_legacy(isolated_home, "proj", "session-2026-05-01T10-00-9e000000.json", document)
    path.write_bytes(path.read_bytes().replace(b"PLACE", b"\\ud83d"))
    report = cli_json("tokens")
    assert report["total"]["total"] == 460
    assert report["warnings"] == []  # valid JSON: neither truncated nor corrupt


def test_cursor_bubble_with_a_lone_surrogate_is_counted(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cursor_only(monkeypatch)
    composer = "c0000000-0000-4000-8000-000000000003"
    cut = orjson.dumps(bubble("b2", 2, "PLACE", tokens=(70, 30))).replace(b"PLACE", b"\\ud83d")
    make_state_db(
        state_db_path(isolated_home),
        composers=[composer_data(composer, name="cut", created=1_785_000_000_000, bubbles=["b1", "b2"])],
        bubbles={composer: [bubble("b1", 1, "hi")]},
        raw_rows=[(f"bubbleId:{composer}:b2", cut)],
    )
    assert cli_json("tokens")["total"]["total"] == 100
