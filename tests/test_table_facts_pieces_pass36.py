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
    # Its time, the greatest, is no record's own: the row's pass is asked; read as the file's
    # first line it would have been taken for one.
    assert found is None


# -- where pieces start (review s36) --------------------------------------------------------

BOM = b"\xef\xbb\xbf"


def test_a_leaf_named_in_one_piece_and_met_in_a_later_one(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The leaves a summary names are wanted in the pieces that follow it.
    lines = [orjson.dumps(claude_user(SESSION, _ts(1), "first prompt")),
             orjson.dumps({"type": "summary", "summary": "The summary", "leafUuid": "leaf-1"})]
    lines += [orjson.dumps(_call(2 + i)) for i in range(20)]
    lines.append(orjson.dumps(claude_user(SESSION, _ts(30), "later", uuid="leaf-1")))
    _write(isolated_home, lines)
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", 512)
    found, row = _facts(isolated_home)
    assert row.title == "The summary"
    assert found == row


def test_a_marked_prompt_that_starts_a_later_piece_is_no_first_prompt(isolated_home: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # The head's first line is the file's, not a piece's.
    lines = [orjson.dumps(_call(1)), orjson.dumps(_call(2)),
             BOM + orjson.dumps(claude_user(SESSION, _ts(3), "skipped by the pass")),
             orjson.dumps(claude_user(SESSION, _ts(4), "the real prompt"))]
    _write(isolated_home, lines)
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", len(lines[0]) + len(lines[1]) + 2)  # piece 2 starts at the mark
    found, row = _facts(isolated_home)
    assert row.title == "the real prompt"
    assert found == row


def test_a_marked_title_record_that_starts_a_later_piece_does_not_count(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # A title record's line is the file's first only at byte 0.
    lines = [orjson.dumps(claude_user(SESSION, _ts(1), "the prompt")),
             BOM + orjson.dumps({"type": "custom-title", "customTitle": "Not a title", "sessionId": SESSION})]
    _write(isolated_home, lines)
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", len(lines[0]) + 1)
    found, row = _facts(isolated_home)
    assert row.title == "the prompt"
    assert found == row


def test_a_file_grown_while_read_is_left_to_the_pass(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(isolated_home, [orjson.dumps(claude_user(SESSION, _ts(1), "the prompt")), orjson.dumps(_call(2))])
    real = tablefacts._NewestTime.scan

    def scan(self, base, data):
        with path.open("ab") as handle:  # the agent writes on meanwhile
            handle.write(orjson.dumps(_call(50)) + b"\n")
        return real(self, base, data)

    monkeypatch.setattr(tablefacts._NewestTime, "scan", scan)
    found, row = _facts(isolated_home)
    assert found is None


def test_a_line_longer_than_the_pass_reads_is_skipped_unheld(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import jsonl, shrinkline

    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 3000)  # the pass's and the pieces' rule alike
    monkeypatch.setattr(shrinkline, "LONG_LINE_LIMIT", 10000)  # past it, a line is not even read shrunk
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", 1024)
    huge = orjson.dumps(claude_user(SESSION, _ts(59), "x" * 20000))  # the newest time, in a line the pass skips
    _write(isolated_home, [orjson.dumps(claude_user(SESSION, _ts(1), "a prompt")), huge, orjson.dumps(_call(3))])
    held = record_calls(monkeypatch, tablefacts._NewestTime, "scan", lambda self, base, data: len(data))
    found, row = _facts(isolated_home)
    assert row.updated_at.isoformat() == "2026-11-02T10:03:00+00:00"
    assert found == row
    assert max(held) <= 3000  # never held whole


def test_a_line_over_the_cap_longer_than_a_piece_is_the_pass_s(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The pass reads a line over the cap without its long strings (``shrinkline``): what it says
    # (here the newest time and the title) is the pass's to find, not skipped here.
    import agentscan.toolkit.linescan  # noqa: F401  (it takes the cap by name when imported: not the lowered one)
    import agentscan.toolkit.reverse  # noqa: F401
    from agentscan.toolkit import jsonl, shrinkline

    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 3000)
    monkeypatch.setattr(shrinkline, "LONG_STRING", 1000)
    monkeypatch.setattr(shrinkline, "KEPT_BYTES", 100)
    monkeypatch.setattr(tablefacts, "PIECE_BYTES", 1024)
    huge = orjson.dumps(claude_user(SESSION, _ts(59), [{"type": "text", "text": "the screenshot"},
                                                       {"type": "image", "source": {"data": "x" * 20000}}]))
    _write(isolated_home, [huge, orjson.dumps(_call(3))])
    found, row = _facts(isolated_home)
    assert (row.updated_at.isoformat(), row.title) == ("2026-11-02T10:59:00+00:00", "the screenshot")
    assert found is None
