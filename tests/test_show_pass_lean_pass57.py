"""A huge transcript's row pass made leaner for a cold ``show`` (the fifty-seventh pass,
docs/performance.md), each step checked against the rule it replaces, written out here
(old-style) or read by the path it bypasses:

* the line reader hands out a whole, decodable object line by its few steps; every other
  line goes the way it went (the line cap, the numbers a bad value is told at);
* ``ShowFacts`` flushes nothing open without work and looks at a call's summary length
  first: its counts and state are the old methods';
* a prompt typed as text is read without making its block: ``real_prompt_text`` of the
  text and of the one block holding it agree;
* a reply's text counts when ``strip()`` leaves something, tested without the copy.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan import bounds
from agentscan.context import ScanContext
from agentscan.providers.claude.records import real_prompt_text
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.showfacts import ShowFacts, over
from agentscan.providers.claude.windowed import WindowedTotals
from agentscan.toolkit.jsonl import ReadProgress, iter_json_lines, iter_json_records
from builders import claude_assistant, claude_usage, claude_user, write_jsonl
from conftest_hypothesis import FUZZ

SPACES = ["", " ", "\u2003", "\x1c", "\u200b", "\n\t", " x ", "\u3000\u00a0"]


def _warnings(ctx: ScanContext) -> list[tuple[str, int | None]]:
    return [(w.message, w.line) for w in ctx.warnings.items]


def test_the_line_cap_stops_the_common_lines_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 3)
    path = write_jsonl(tmp_path / "t.jsonl", [{"n": n} for n in range(5)])
    ctx, progress = ScanContext.create(home=tmp_path, env={}), ReadProgress()
    assert list(iter_json_records(path, ctx, progress=progress)) == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert _warnings(ctx) == [("more than 3 lines; read stopped there, earlier lines kept", None)]
    assert (progress.lines, progress.complete_offset) == (3, len(b'{"n":0}\n') * 3)


LINES = st.one_of(
    st.builds(lambda n: b'{"type":"user","n":%d}' % n, st.integers(0, 9)),
    st.just(b'{"t":"\\ud800"}'),  # a lone surrogate: decoded again (``laxjson``) and told
    st.just(b'{"t":"\xff"}'),  # not UTF-8
    st.just(b'["an", "array"]'),
    st.just(b'{"broken": '),
    st.just(b"  "),
)


@FUZZ
@given(lines=st.lists(LINES, max_size=20), final_newline=st.booleans(), start_line=st.integers(0, 3))
def test_records_read_as_the_line_reader_reads_them(tmp_path: Path, lines: list[bytes], final_newline: bool,
                                                    start_line: int) -> None:
    """The records, warnings and progress of the fast path equal those of the reader that
    does not take it (``iter_json_lines``), from the start and from a line's start."""
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    start = sum(len(line) + 1 for line in lines[:start_line]) if start_line < len(lines) else 0
    first = start_line + 1 if start else 1
    fast_ctx, slow_ctx = ScanContext.create(home=tmp_path, env={}), ScanContext.create(home=tmp_path, env={})
    fast, slow = ReadProgress(), ReadProgress()
    got = list(iter_json_records(path, fast_ctx, start=start, first_line=first, progress=fast))
    want = [line.record for line in iter_json_lines(path, slow_ctx, start=start, first_line=first, progress=slow)]
    assert got == want
    assert _warnings(fast_ctx) == _warnings(slow_ctx)
    assert (fast.complete_offset, fast.lines) == (slow.complete_offset, slow.lines)


def test_a_bad_value_is_told_at_its_own_line(tmp_path: Path) -> None:
    records = [claude_user("s", "2026-11-01T09:00:00.000Z", "hi")]
    records += [claude_assistant("s", "2026-11-01T09:00:01.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                                 usage=claude_usage(input=1, output=-5 if n == 3 else 1)) for n in range(6)]
    path = write_jsonl(tmp_path / "s.jsonl", records)
    ctx = ScanContext.create(home=tmp_path, env={})
    summarize(path, ctx, totals=WindowedTotals())
    told = [warning for warning in ctx.warnings.items if "output_tokens" in warning.message]
    assert told and all(warning.line == 5 or ":5" in warning.message for warning in told), told


class _OldFacts(ShowFacts):
    """``ShowFacts`` with the flush and the call rule of the fifty-sixth pass, written out."""

    def _flush(self) -> None:
        text = "".join(self._texts).strip()
        if self._more:
            self.responses += 1
            self.clipped += 1
        elif text:
            self.responses += 1
            self.clipped += over(text, self.message_bytes)
        self._current, self._texts, self._kept, self._more = None, [], 0, False

    def _tool(self, block: dict) -> None:
        self.tools += 1
        name = block.get("name") if isinstance(block.get("name"), str) and block.get("name") else "tool"
        self.clipped_tools += over(self._summary_text(name, block.get("input")), self._summary_bytes)
        key: object = block.get("id") if isinstance(block.get("id"), str) and block.get("id") else ("#", self.tools)
        keys: OrderedDict = self._keys
        if key in keys:
            keys.move_to_end(key)
            self.reused += 1
        else:
            keys[key] = None
            if len(keys) > self.window:
                keys.popitem(last=False)


TEXTS = st.one_of(st.sampled_from(SPACES), st.text(max_size=30),
                  st.builds(lambda n, c: c * n, st.integers(0, 1200), st.sampled_from(["a", "é", "漢", " ", "😀"])))
BLOCKS = st.one_of(
    st.builds(lambda text: {"type": "text", "text": text}, TEXTS),
    st.builds(lambda name, key, text: {"type": "tool_use", "name": name, "id": key, "input": {"command": text}},
              st.sampled_from(["Bash", "", None, 7, "Read"]), st.sampled_from(["t1", "t2", "", None, "t3"]), TEXTS),
)
FEEDS = st.lists(st.one_of(
    st.tuples(st.just("assistant"), st.sampled_from(["m1", "m2", None, "m3"]), st.lists(BLOCKS, max_size=2)),
    st.tuples(st.just("prompt"), TEXTS, st.booleans()),
), max_size=30)


@FUZZ
@given(feeds=FEEDS, message_bytes=st.sampled_from([8, 40, 2048]), window=st.integers(1, 3))
def test_show_facts_count_what_the_old_methods_counted(feeds: list, message_bytes: int, window: int) -> None:
    new, old = ShowFacts(), _OldFacts()
    for facts in (new, old):
        facts.message_bytes, facts.window, facts._summary_bytes = message_bytes, window, message_bytes * 4
        for kind, first, second in feeds:
            if kind == "assistant":
                facts.assistant(first, second)
            else:
                facts.prompt(first, folded=second)
    assert new.to_state() == old.to_state()
    new.finish()
    old.finish()
    assert new.to_state() == old.to_state()


PROMPTS = st.one_of(
    st.sampled_from(SPACES), st.text(max_size=40),
    st.sampled_from(["<ide_selection>x</ide_selection> why?", "<ide_opened_file>a</ide_opened_file>",
                     "<system-reminder>r</system-reminder> fix it", "<command-message>init is running…</command-message>"
                     "<command-name>/init</command-name>", "<command-name>/clear</command-name>",
                     "[Request interrupted by user]", '<teammate-message teammate_id="a">hi</teammate-message>',
                     "  plain words  "]),
)


@FUZZ
@given(text=PROMPTS, origin=st.sampled_from([None, {"kind": "human"}, {"kind": "peer"}]))
def test_a_prompt_of_text_reads_as_its_one_text_block(text: str, origin: object) -> None:
    extra = {} if origin is None else {"origin": origin}
    as_text = claude_user("s", "2026-11-01T09:00:00.000Z", text, **extra)
    as_block = claude_user("s", "2026-11-01T09:00:00.000Z", [{"type": "text", "text": text}], **extra)
    assert real_prompt_text(as_text) == real_prompt_text(as_block)


def test_a_reply_counts_when_strip_leaves_words(tmp_path: Path) -> None:
    records = [claude_user("s", "2026-11-01T09:00:00.000Z", "hi")]
    for n, text in enumerate(SPACES):
        reply = claude_assistant("s", "2026-11-01T09:00:01.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                                 usage=claude_usage(input=1, output=1))
        reply["message"]["content"] = [{"type": "text", "text": text}]
        records.append(reply)
    path = write_jsonl(tmp_path / "s.jsonl", records)
    summary = summarize(path, ScanContext.create(home=tmp_path, env={}))
    assert summary.responses == sum(1 for text in SPACES if text.strip())


def test_a_recap_dates_nothing_but_a_user_record_of_its_subtype_does(tmp_path: Path) -> None:
    records = [claude_user("s", "2026-11-01T09:00:00.000Z", "hi"),
               {"type": "system", "subtype": "away_summary", "timestamp": "2026-11-02T09:00:00.000Z", "content": "r"},
               {**claude_user("s", "2026-11-01T10:00:00.000Z", "again"), "subtype": "away_summary"}]
    path = write_jsonl(tmp_path / "s.jsonl", records)
    summary = summarize(path, ScanContext.create(home=tmp_path, env={}))
    assert summary.last_ts is not None and summary.last_ts.isoformat() == "2026-11-01T10:00:00+00:00"


@pytest.mark.parametrize(("command", "clipped"), [("漢" * 20, 1), ("a" * 32, 0), ("a" * 33, 1), ("é" * 8, 0), ("é" * 17, 1)])
def test_a_short_summary_of_wide_characters_is_still_clipped(command: str, clipped: int) -> None:
    facts = ShowFacts()
    facts._summary_bytes = 32
    facts.assistant("m1", [{"type": "tool_use", "name": "Bash", "id": "t1", "input": {"command": command}}])
    assert facts.clipped_tools == clipped
