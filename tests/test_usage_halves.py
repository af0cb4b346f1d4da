"""A huge transcript's calls for ``tokens``, read by halves on two cores (``usagehalves``).

Whatever the transcript holds (calls copied on both sides of the seam, bad
lines, a truncated last line, runs written inline, progress copies), the
calls, the resume state and the warnings must be those of the one pass; and
where the helper's half cannot be joined (no fork, an answer that does not
read back, the line cap, a warning it could not keep, a file replaced), a
read here gives them.  The tests lower the size a file is split at, so small
files are.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentscan import bounds
from agentscan.providers.claude import incremental, usagehalves
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import cores, helperproc
from agentscan.toolkit.crcjoin import crc32_combine
from builders import claude_assistant, claude_session_file, claude_usage
from claude_events import SESSION, TRANSCRIPT, lines_of, qa_turns, records_of, ts_of
from conftest_hypothesis import FUZZ
from spies import record_results


def _split(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(incremental, "SPLIT_BYTES", 0 if on else 1 << 60)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)  # a second core, even on one


def _extras() -> list:
    """A subagent's call copied into a progress record, and a run written inline (a sidechain
    record no subagent file holds: named over the whole file)."""
    copied = claude_assistant(SESSION, ts_of(90), msg_id="s1", request_id="rs1", usage=claude_usage(input=5, output=1),
                              blocks=[{"type": "text", "text": "sub answer"}], sidechain=True, agentId="a1b2c3d")
    return [
        {"type": "progress", "timestamp": ts_of(91), "uuid": "p1",
         "data": {"type": "agent_progress", "agentId": "agone01", "message": {**copied, "agentId": "agone01"}}},
        claude_assistant(SESSION, ts_of(92), msg_id="m1", request_id="other", usage=claude_usage(input=7, output=3),
                         blocks=[{"type": "text", "text": "replayed"}], sidechain=True, uuid="replay"),
    ]


def _read(tmp_path: Path, keep_state: bool) -> tuple:
    """The session's calls, resume state and warnings, as ``tokens``' parse reads them."""
    with Scanner(env={"HOME": str(tmp_path / "home")}, use_cache=False) as scanner:
        ref = scanner.refs()[0]
        ctx = scanner.ctx
        with ctx.warnings.capture() as captured:
            calls, state, _ = incremental.calls_and_chain(ref.hint, ctx, keep_state=keep_state)
        return calls, state, [(w.path, w.message, w.line) for w in captured], captured.passing


def _session_calls(tmp_path: Path, resume: bytes | None = None) -> tuple:
    """``incremental.calls_and_chain``'s calls and resume state of the home's one session."""
    with Scanner(env={"HOME": str(tmp_path / "home")}, use_cache=False) as scanner:
        ref = scanner.refs()[0]
        return incremental.calls_and_chain(ref.hint, scanner.ctx, resume=resume, keep_state=True)[:2]


def _both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep_state: bool) -> tuple[tuple, tuple]:
    with pytest.MonkeyPatch.context() as split:
        _split(split, True)
        halves = _read(tmp_path, keep_state)
    with pytest.MonkeyPatch.context() as one:
        _split(one, False)
        whole = _read(tmp_path, keep_state)
    return halves, whole


def _write(tmp_path: Path, records: list) -> Path:
    path = claude_session_file(tmp_path / "home", SESSION, [])
    path.write_bytes(lines_of(records))
    return path


@settings(FUZZ, max_examples=max(FUZZ.max_examples, 60))
@given(events=TRANSCRIPT, keep=st.booleans(), tail=st.sampled_from([b"", b'{"type":"assistant","message":{"usage":{"inp']),
       grow=st.integers(0, 6))
def test_the_halves_give_what_one_pass_gives(tmp_path_factory: pytest.TempPathFactory, events, keep, tail,
                                             grow) -> None:
    tmp_path = tmp_path_factory.mktemp("h")
    path = _write(tmp_path, records_of(events) + _extras())
    if tail:
        with path.open("ab") as handle:
            handle.write(tail)  # a last line still being written
    with pytest.MonkeyPatch.context() as example:
        joined = record_results(example, usagehalves, "_helper_half")
        halves, whole = _both(tmp_path, example, keep)
        assert halves == whole
        seam = usagehalves.find_seam(path, path.stat().st_size)
        # The helper's half was joined wherever the file has a seam.
        assert (seam is not None) == any(result is not None for result in joined)
    if grow and keep:
        # A state the halves made, resumed after an agent appended lines: as a fresh full read.
        with pytest.MonkeyPatch.context() as example:
            _split(example, True)
            _, state = _session_calls(tmp_path)
            with path.open("ab") as handle:
                handle.write(lines_of(records_of(events[:grow])))
            resumed = _session_calls(tmp_path, state)
        with pytest.MonkeyPatch.context() as example:
            _split(example, False)
            fresh = _session_calls(tmp_path)
        assert resumed == fresh


def test_a_call_copied_on_both_sides_of_the_seam_counts_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code writes a record per content block: a reply whose blocks fall on both sides
    keeps the copy with the larger total, as the one pass keeps it."""
    turns = qa_turns(40)
    early = claude_assistant(SESSION, ts_of(200), msg_id="copied", request_id="rq", uuid="e",
                             blocks=[{"type": "text", "text": "x"}], usage=claude_usage(input=3, output=1))
    late = claude_assistant(SESSION, ts_of(201), msg_id="copied", request_id="rq", uuid="l",
                            blocks=[{"type": "text", "text": "y"}], usage=claude_usage(input=3, output=90))
    path = _write(tmp_path, [early, *turns, late])
    seam = usagehalves.find_seam(path, path.stat().st_size)
    assert seam is not None and path.read_bytes().index(b'"uuid":"l"') > seam  # the copies are on both sides
    halves, whole = _both(tmp_path, monkeypatch, True)
    assert halves == whole
    copied = [call for call in halves[0] if call[0] == "copied"]
    assert len(copied) == 1 and copied[0][7] == 90  # (C_OUTPUT)


def test_warnings_past_the_seam_name_the_lines_of_the_whole_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (Only lines that hold "usage" are decoded: the others cannot be told bad.)
    _write(tmp_path, [*qa_turns(20), b'{"usage": oops', b'["usage"]', *qa_turns(20, start=20), b'{"usage": again'])
    halves, whole = _both(tmp_path, monkeypatch, True)
    assert halves == whole
    assert [line for _, _, line in halves[2]] == [41, 42, 83]


def test_the_state_s_crc_is_of_every_byte_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, qa_turns(50))
    _split(monkeypatch, True)
    _, state, _, _ = _read(tmp_path, True)
    entry = orjson.loads(state)["files"][0]
    assert entry["offset"] == path.stat().st_size
    assert entry["crc"] == zlib.crc32(path.read_bytes())
    assert entry["lines"] == 100


def _gone(self: helperproc.Helper) -> None:
    self.stop()
    raise helperproc.HelperGone("killed")


def _no_fork(self: helperproc.Helper) -> None:
    raise OSError("no fork")


@pytest.mark.parametrize("trouble", ["no fork", "gone", "garbage", "unkept", "line cap", "replaced"])
def test_a_half_that_cannot_be_joined_is_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   trouble: str) -> None:
    _write(tmp_path, [b'{"usage": oops', *qa_turns(30), *_extras(), b'{"usage": late'])
    with pytest.MonkeyPatch.context() as one:
        _split(one, False)
        if trouble == "line cap":
            one.setattr(bounds, "MAX_FILE_LINES", 50)
        whole = _read(tmp_path, True)
    if trouble == "no fork":
        monkeypatch.setattr(helperproc.Helper, "start", _no_fork)
    elif trouble == "gone":
        monkeypatch.setattr(helperproc.Helper, "receive", _gone)
    elif trouble == "garbage":
        monkeypatch.setattr(usagehalves, "second_half", lambda *args: ("not", "an", "answer"))
    elif trouble == "unkept":
        real = usagehalves.second_half
        monkeypatch.setattr(usagehalves, "second_half", lambda *args: (*real(*args)[:5], True, False))
    elif trouble == "line cap":
        monkeypatch.setattr(bounds, "MAX_FILE_LINES", 50)  # the halves' 32 and 32 lines are under it
    else:
        from agentscan.providers.claude import sidepass

        monkeypatch.setattr(sidepass, "only_appended", lambda path, before: False)
    joined = record_results(monkeypatch, usagehalves, "_helper_half")
    _split(monkeypatch, True)
    assert _read(tmp_path, True) == whole
    assert all(result is None for result in joined)  # none was joined
    if trouble == "line cap":
        assert any("more than 50 lines" in message for _, message, _ in whole[2])


def test_a_first_half_stopped_at_the_line_cap_is_the_whole_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, qa_turns(30))
    monkeypatch.setattr(bounds, "MAX_FILE_LINES", 10)
    halves, whole = _both(tmp_path, monkeypatch, True)
    assert halves == whole
    assert len(halves[0]) == 5


def test_a_worker_reads_in_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a parse worker (or beside workers) no core is free: forking would share one."""
    path = _write(tmp_path, qa_turns(30))
    _split(monkeypatch, True)
    monkeypatch.setattr(cores, "busy", lambda: True)
    stat = path.stat()
    with Scanner(env={"HOME": str(tmp_path / "home")}, use_cache=False) as scanner:
        assert usagehalves.scan_by_halves(path, scanner.ctx, subagent=None, base=0, exact=True, stat=stat,
                                          own=SESSION) is None


def test_no_seam_within_reach_is_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, [*qa_turns(2), {"type": "user", "pad": "x" * 5000}])
    monkeypatch.setattr(usagehalves, "SEAM_SEARCH", 100)
    assert usagehalves.find_seam(path, path.stat().st_size) is None
    halves, whole = _both(tmp_path, monkeypatch, True)
    assert halves == whole


@settings(FUZZ)
@given(first=st.binary(max_size=300), second=st.binary(max_size=3000))
def test_crc_join(first: bytes, second: bytes) -> None:
    assert crc32_combine(zlib.crc32(first), zlib.crc32(second), len(second)) == zlib.crc32(first + second)


def test_crc_join_of_a_large_second_piece() -> None:
    second = bytes(range(256)) * (3 * 1024 * 1024 // 256 + 7)
    assert crc32_combine(zlib.crc32(b"head"), zlib.crc32(second), len(second)) == zlib.crc32(b"head" + second)


def test_tokens_json_is_the_same_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: ``tokens --json`` with a cache, the state kept, then a warm run."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    _write(tmp_path, [*qa_turns(40), *_extras(), b'{"usage": oops'])
    env = {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    runner = CliRunner()
    _split(monkeypatch, True)
    first = runner.invoke(app, ["tokens", "--json"], env=env)
    warm = runner.invoke(app, ["tokens", "--json"], env=env)
    monkeypatch.setattr(incremental, "SPLIT_BYTES", 1 << 60)
    plain = runner.invoke(app, ["tokens", "--json", "--no-cache"], env=env)
    assert first.exit_code == 0, first.output
    assert orjson.loads(first.stdout) == orjson.loads(warm.stdout) == orjson.loads(plain.stdout)
    assert os.path.exists(tmp_path / "cache")


def test_a_file_replaced_before_its_first_half_is_read_again_whole(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Replaced between finding the seam and reading the first half, the old seam may fall
    inside a line of the new file: the new file is read whole, not cut at the old seam."""
    path = _write(tmp_path, [b'{"usage": oops', *qa_turns(30)])
    replacement = lines_of([b'{"usage": other', *qa_turns(63, start=100)])
    real = usagehalves.find_seam

    def replacing(*args: object) -> int | None:
        seam = real(*args)  # type: ignore[arg-type]
        staged = path.with_suffix(".new")
        staged.write_bytes(replacement)
        os.replace(staged, path)
        return seam

    monkeypatch.setattr(usagehalves, "find_seam", replacing)
    _split(monkeypatch, True)
    halves = _read(tmp_path, True)
    monkeypatch.setattr(usagehalves, "find_seam", real)
    _split(monkeypatch, False)
    assert halves[0] == _read(tmp_path, True)[0]
    assert len(halves[0]) == 63
    assert [message for _, message, _ in halves[2]].count('invalid JSON skipped: unexpected "other" at column 11') == 1


def test_more_warnings_than_a_result_keeps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """60 bad lines on each side of the seam: the state keeps the first 100 of the file's, as one
    pass keeps them, so that a later run says the same "N more"."""
    bad = [f'{{"usage": bad {n}'.encode() for n in range(60)]
    path = _write(tmp_path, [*bad, *qa_turns(60), *bad])
    halves, whole = _both(tmp_path, monkeypatch, True)
    assert halves[1] == whole[1]
    told = orjson.loads(halves[1])["files"][0]["told"]  # (the rest a count, in its place: a list)
    assert sum(type(item) is dict for item in told) == 100 and [item for item in told if type(item) is list]
    with path.open("ab") as handle:
        handle.write(lines_of(qa_turns(2, start=500)))
    resumed = _session_calls(tmp_path, halves[1])
    with pytest.MonkeyPatch.context() as one:
        _split(one, False)
        fresh = _session_calls(tmp_path)
    assert resumed == fresh
