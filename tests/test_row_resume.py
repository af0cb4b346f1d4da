"""A large Claude transcript's row pass goes on where the last one stopped (``rowresume``).

Whatever the transcript holds and wherever an agent's appending cut it,
the row, the ``show`` detail (from the end, with the facts the row's pass
kept) and the warnings after a resumed pass must be the ones a fresh,
uncached scan gives; and a file that is not the one the state describes
(replaced, rewritten, shorter, damaged state) is read whole.  The tests
lower the size thresholds and the dedupe window, so small files keep
states and calls settle out of the window.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan.bounds import Bounds
from agentscan.providers.claude import rowresume
from agentscan.providers.claude.usage import call_of
from agentscan.providers.claude.windowed import WindowedTotals
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from claude_events import AGENT, SESSION, TRANSCRIPT, lines_of, lower_row_limits, qa_turns, records_of, ts_of
from conftest_hypothesis import FUZZ

BOUNDS = Bounds(prompts=3, responses=4, tools=5, message_bytes=200)


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    lower_row_limits(monkeypatch)


def _env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}


def _subagent(home: Path) -> None:
    claude_subagent_file(home, SESSION, AGENT, [
        claude_user(SESSION, ts_of(1), "sub task", sidechain=True, agentId=AGENT),
        claude_assistant(SESSION, ts_of(2), msg_id="s1", request_id="rs1", usage=claude_usage(input=5, output=1),
                         blocks=[{"type": "text", "text": "sub answer"}], sidechain=True, agentId=AGENT),
    ])


def _seen(env: dict[str, str], *, cache: bool) -> tuple:
    """The session's row, its ``show`` and the warnings, from one scan."""
    with Scanner(env=env, use_cache=cache) as scanner:
        (row,) = scanner.all_rows()  # not ``list``'s: it leaves out a session of only a meta record
        detail = scanner.show(SESSION, bounds=BOUNDS)
        return row.to_json(), detail.to_json(), sorted(map(str, scanner.ctx.warnings.items))


def _spy_on_resumes(monkeypatch: pytest.MonkeyPatch) -> list:
    """What each ``rowresume.load`` gave back (``None``: a whole pass)."""
    found: list = []
    load = rowresume.load

    def spied(*args, **kwargs):
        found.append(load(*args, **kwargs))
        return found[-1]

    monkeypatch.setattr(rowresume, "load", spied)
    return found


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 150))
@given(events=TRANSCRIPT, cut=st.floats(0, 1), subagent=st.booleans())
def test_a_resumed_pass_gives_what_a_whole_one_gives(tmp_path_factory: pytest.TempPathFactory, small_limits: None,
                                                      monkeypatch: pytest.MonkeyPatch, events, cut, subagent) -> None:
    tmp_path = tmp_path_factory.mktemp("r")
    env = _env(tmp_path)
    records = records_of(events)
    split = min(int(len(records) * cut), len(records) - 1)  # something is appended
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records[:split]))
    if subagent:
        _subagent(tmp_path / "home")
    _seen(env, cache=True)
    with pytest.MonkeyPatch.context() as example:  # one spy per example, not one wrapped around the last
        resumes = _spy_on_resumes(example)
        with path.open("ab") as handle:
            handle.write(lines_of(records[split:]))
        assert _seen(env, cache=True) == _seen(env, cache=False)
    assert len(resumes) == 1 and (resumes[0] is None) == (split == 0)  # an empty file keeps no state


def _grown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change) -> list:
    """Two scans with ``change`` made to the transcript between them; the second's loads."""
    env = _env(tmp_path)
    path = claude_session_file(tmp_path / "home", SESSION, qa_turns(30))
    _seen(env, cache=True)
    resumes = _spy_on_resumes(monkeypatch)
    change(path)
    assert _seen(env, cache=True) == _seen(env, cache=False)
    return resumes


def _append(path: Path, records: list) -> None:
    with path.open("ab") as handle:
        handle.write(lines_of(records))


def test_an_appended_transcript_is_resumed(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    resumes = _grown(tmp_path, monkeypatch, lambda path: _append(path, qa_turns(5, 30)))
    assert len(resumes) == 1 and resumes[0] is not None and resumes[0].lines == 60  # went on after the 30 turns


def test_a_replaced_transcript_is_read_whole(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def replace(path: Path) -> None:
        other = path.with_suffix(".new")
        other.write_bytes(path.read_bytes() + lines_of(qa_turns(2, 30)))
        os.replace(other, path)  # the same first bytes, another file

    assert _grown(tmp_path, monkeypatch, replace) == [None]


def test_a_transcript_rewritten_before_the_resume_point_is_read_whole(tmp_path: Path, small_limits: None,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def rewrite(path: Path) -> None:
        data = path.read_bytes().replace(b"question 3", b"question X")
        with path.open("r+b") as handle:  # in place: same inode
            handle.write(data + lines_of(qa_turns(1, 30)))

    assert _grown(tmp_path, monkeypatch, rewrite) == [None]


def test_a_shorter_transcript_is_read_whole(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def shorten(path: Path) -> None:
        data = path.read_bytes()
        with path.open("r+b") as handle:
            handle.truncate(len(data) // 2)

    assert _grown(tmp_path, monkeypatch, shorten) == [None]


def test_a_partial_last_line_keeps_no_state_until_it_is_complete(tmp_path: Path, small_limits: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(tmp_path)
    line = lines_of(qa_turns(1, 30))
    path = claude_session_file(tmp_path / "home", SESSION, qa_turns(30))
    _append(path, [])
    with path.open("ab") as handle:
        handle.write(line[:-1])  # the whole record but its newline: decoded, but past the resume point
    seen = _seen(env, cache=True)
    assert seen == _seen(env, cache=False)
    assert seen[0]["counts"]["prompts"] == 31
    resumes = _spy_on_resumes(monkeypatch)
    with path.open("ab") as handle:
        handle.write(b"\n")
    assert _seen(env, cache=True) == _seen(env, cache=False)
    assert resumes == [None]  # the pass over the partial line kept nothing: the prompt is not counted twice


def test_a_long_line_still_being_written_is_read_again_whole(tmp_path: Path, small_limits: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A line over the reader's length bound is read to its newline (``shrinkline``); with no
    newline yet, the pass did not read to the end of a line, so it keeps no state (else the
    next pass would start inside the line: a bogus "invalid JSON" warning, every line number
    one off)."""
    from agentscan.toolkit.jsonl import MAX_LINE_BYTES

    env = _env(tmp_path)
    long_line = orjson.dumps(claude_user(SESSION, ts_of(100), "x" * (MAX_LINE_BYTES + 1000), uuid="long"))
    path = claude_session_file(tmp_path / "home", SESSION, qa_turns(5))
    with path.open("ab") as handle:
        handle.write(long_line[:-100])
    assert _seen(env, cache=True) == _seen(env, cache=False)
    resumes = _spy_on_resumes(monkeypatch)
    with path.open("ab") as handle:
        handle.write(long_line[-100:] + b"\n" + lines_of(qa_turns(2, 10)))
    after = _seen(env, cache=True)
    assert after == _seen(env, cache=False)
    assert resumes == [None]
    assert not [w for w in after[2] if "invalid JSON" in w or "longer than" in w]
    assert after[0]["counts"]["prompts"] == 8  # the long one once, read without its bulk


@pytest.mark.parametrize("other", [
    ("agentscan.providers.claude.showfacts.MESSAGE_BYTES", 300),  # show facts of other bounds cannot go on
    ("agentscan.codeid.code_identity", lambda: "another build"),  # nor can a pass of other code
], ids=["other show bounds", "other code"])
def test_a_state_that_cannot_go_on_makes_a_whole_pass(tmp_path: Path, small_limits: None,
                                                      monkeypatch: pytest.MonkeyPatch, other: tuple) -> None:
    env = _env(tmp_path)
    path = claude_session_file(tmp_path / "home", SESSION, qa_turns(30))
    _seen(env, cache=True)
    monkeypatch.setattr(*other)
    resumes = _spy_on_resumes(monkeypatch)
    _append(path, qa_turns(2, 30))
    assert _seen(env, cache=True) == _seen(env, cache=False)
    assert resumes == [None]


def test_a_small_huge_or_idle_transcript_keeps_no_state(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(tmp_path)
    path = claude_session_file(tmp_path / "home", SESSION, qa_turns(30))
    monkeypatch.setattr(rowresume, "MIN_BYTES", path.stat().st_size + 1)
    resumes = _spy_on_resumes(monkeypatch)
    _seen(env, cache=True)
    assert resumes == []  # below the size: no state looked for
    monkeypatch.setattr(rowresume, "MIN_BYTES", 0)
    monkeypatch.setattr(rowresume, "MAX_BYTES", path.stat().st_size - 1)
    _append(path, qa_turns(1, 30))
    _seen(env, cache=True)
    assert resumes == []  # huge: read whole, hashing with ``hash()``
    monkeypatch.setattr(rowresume, "MAX_BYTES", 1 << 40)
    old = time.time() - (rowresume.KEEP_DAYS + 1) * 86400
    os.utime(path, (old, old))
    _seen(env, cache=True)
    assert resumes == []  # untouched for days: nobody is working in it


@pytest.mark.parametrize("damage", [
    (b'"prompts":30', b'"prompts":"30"'),  # the summary's counts as text
    (b'"calls":', b'"calls":1+'),  # the window's call count off by one (its columns are shorter)
    (b'"more":false', b'"more":0'),  # the show facts' flag as a number
    (b'"sums":[', b'"sums":[[null],'),  # an ill-shaped sum group
], ids=["summary", "window", "show facts", "sums"])
def test_a_damaged_state_is_no_state(tmp_path: Path, small_limits: None, monkeypatch: pytest.MonkeyPatch,
                                     damage: tuple[bytes, bytes]) -> None:
    """Well sealed but ill-shaped (as another version might write it): each part's own check refuses it."""
    import struct

    from agentscan.sealing import seal, unseal

    env = _env(tmp_path)
    path = claude_session_file(tmp_path / "home", SESSION, qa_turns(30))
    _seen(env, cache=True)
    with Scanner(env=env, use_cache=True) as scanner:
        cache = scanner.cache
        size, mtime_ns, version, head, offset, state = cache.get_file(str(path), rowresume.KIND)
        blob = unseal(state)
        (length,) = struct.unpack_from("<I", blob)
        doc, hashes = blob[4:4 + length], blob[4 + length:]
        if damage[0] == b'"calls":':
            calls = orjson.loads(doc)["totals"]["calls"]
            damage = (f'"calls":{calls}'.encode(), f'"calls":{calls + 1}'.encode())
        assert damage[0] in doc
        damaged = doc.replace(damage[0], damage[1], 1)
        orjson.loads(damaged)  # still JSON: the shape checks, not the decoder, must refuse it
        cache.put_file(str(path), rowresume.KIND, size, mtime_ns, version, head, offset,
                       seal(struct.pack("<I", len(damaged)) + damaged + hashes))
    resumes = _spy_on_resumes(monkeypatch)
    _append(path, qa_turns(2, 30))
    assert _seen(env, cache=True) == _seen(env, cache=False)
    assert resumes == [None]


def test_the_windowed_sums_continue_across_a_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Copies of calls spread wider than the window: settled keys must outlive the state."""
    records = []
    for n in range(40):
        records.append(claude_assistant(SESSION, ts_of(n), msg_id=f"m{n % 13}", request_id=f"r{n % 13}",
                                        usage=claude_usage(input=n + 1, output=1), sidechain=n % 7 == 0))
    calls = [call for n, record in enumerate(records) if (call := call_of(record, None, n)) is not None]
    whole = WindowedTotals(window=4)
    for call in calls:
        whole.add(call)
    for cut in range(len(calls) + 1):
        first = WindowedTotals(window=4, stable=True)
        for call in calls[:cut]:
            first.add(call)
        doc, hashes = first.to_state()
        resumed = WindowedTotals.from_state(orjson.loads(orjson.dumps(doc)), hashes)
        for call in calls[cut:]:
            resumed.add(call)
        assert resumed.groups(set()) == whole.groups(set())
        assert resumed.total() == whole.total()
