"""``tokens``' table beside its sums for a huge Claude transcript: its DATE, PROJECT and TITLE
are found in the file's bytes read piece by piece (``providers/claude/tablefacts.py``), where a
file over 32 MiB once went to the row's pass, which decodes every line (a 1 GB transcript's
``tokens`` took 16.6 s, 6.5 s of them for its sums).  Whatever the pieces, the facts are the
row's own, or there are none and the row is read."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentscan.providers.claude import tablefacts
from builders import claude_subagent_file, claude_user
from conftest_hypothesis import FUZZ
from spies import record_calls
from test_table_facts import _LINES, SESSION, _call, _facts, _ts, _write


#: a line that starts with a byte order mark: skipped by the pass but as the file's first line,
#: wherever a piece starts
_MARKED = st.builds(lambda m: b"\xef\xbb\xbf" + orjson.dumps(claude_user(SESSION, _ts(m), "after a mark")),
                    st.integers(0, 59))


@FUZZ
@given(lines=st.lists(_LINES | _MARKED, max_size=16), sub=st.lists(_LINES, max_size=4), bom=st.booleans(),
       newline=st.booleans(), piece=st.integers(1, 700), budget=st.integers(0, 2000))
def test_the_facts_found_piece_by_piece_are_the_rows(tmp_path_factory: pytest.TempPathFactory, lines, sub, bom,
                                                     newline, piece, budget) -> None:
    home = tmp_path_factory.mktemp("home")
    _write(home, lines, bom=bom, newline=newline)
    if sub:
        claude_subagent_file(home, SESSION, "a1", []).write_bytes(b"\n".join(sub) + b"\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tablefacts, "PIECE_BYTES", piece)
        patch.setattr(tablefacts, "HEAD_BUDGET", budget)
        found, row = _facts(home)
    assert found is None or found == row


def _many_lines(calls: int = 400) -> list[bytes]:
    lines = [orjson.dumps(claude_user(SESSION, _ts(1), "Port the parser to Rust"))]
    lines += [orjson.dumps(_call(2 + i % 50)) for i in range(calls)]
    lines.append(orjson.dumps({"type": "custom-title", "customTitle": "Parser port", "sessionId": SESSION}))
    lines += [orjson.dumps(_call(2 + i % 50)) for i in range(calls)]
    return lines


def test_a_file_larger_than_a_piece_is_settled_without_its_rows_pass(isolated_home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(isolated_home, _many_lines())
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", 4096)
    assert path.stat().st_size > 50 * 4096
    starts = record_calls(monkeypatch, tablefacts._NewestTime, "scan", lambda self, base, data: base)
    found, row = _facts(isolated_home)
    assert found is not None and found == row
    assert found.title == "Parser port"  # the custom title, far past the head
    assert found.updated_at.isoformat() == "2026-11-02T10:51:00+00:00"
    assert len(starts) > 50 and starts == sorted(starts)  # piece by piece, in order


def test_a_newest_time_nested_in_one_piece_and_a_records_own_in_a_later_one(isolated_home: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    nested = orjson.dumps(claude_user(SESSION, _ts(3), "x", data={"timestamp": _ts(58)}))
    lines = [orjson.dumps(claude_user(SESSION, _ts(1), "a prompt")), nested]
    lines += [orjson.dumps(_call(4)) for _ in range(60)]
    lines.append(orjson.dumps(_call(58)))
    path = _write(isolated_home, lines)
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", 2048)
    assert path.stat().st_size > 4 * 2048
    found, row = _facts(isolated_home)
    assert found == row and found.updated_at.isoformat() == "2026-11-02T10:58:00+00:00"


def test_a_first_prompt_past_the_head_s_budget_is_left_to_the_rows_pass(isolated_home: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [orjson.dumps(claude_user(SESSION, _ts(1), "/model")) for _ in range(40)]
    lines.append(orjson.dumps(claude_user(SESSION, _ts(2), "the real first prompt")))
    _write(isolated_home, lines)
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", 1024)
    monkeypatch.setattr(tablefacts, "HEAD_BUDGET", 2048)
    found, row = _facts(isolated_home)
    assert found is None
    assert row.title == "the real first prompt"
    monkeypatch.setattr(tablefacts, "HEAD_BUDGET", 1 << 20)
    found, row = _facts(isolated_home)
    assert found == row


def test_a_mark_that_starts_a_later_piece_is_no_file_start(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [orjson.dumps(claude_user(SESSION, _ts(1), "a prompt")), orjson.dumps(_call(2))]
    lines.append(b"\xef\xbb\xbf" + orjson.dumps(claude_user(SESSION, _ts(59), "after a mark")))
    _write(isolated_home, lines)
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", 16)  # a line a piece
    found, row = _facts(isolated_home)
    assert row.updated_at.isoformat() == "2026-11-02T10:02:00+00:00"  # the marked line is skipped
    assert found is None or found == row
