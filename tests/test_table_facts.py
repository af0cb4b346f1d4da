"""``tokens``' table beside its sums: a Claude session's DATE, PROJECT and TITLE found in its
files' bytes (``providers/claude/tablefacts.py``, ``scan/tablefacts.py``).

Whatever the transcript holds, the facts found so are the row's own (the row's pass is the
reference), or there are none and the row is read.  The table prints the same with either,
and says what ``tokens --json`` says: the facts are read quietly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan import bounds
from agentscan.cli import app
from agentscan.model import TableFacts
from agentscan.providers.claude import tablefacts
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan import tablefacts as gathering
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import workers
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from conftest_hypothesis import FUZZ
from spies import record_calls, record_results

SESSION = "5e55104a-1111-4000-8000-000000000000"
runner = CliRunner()


def _ts(minute: int) -> str:
    return f"2026-11-02T10:{minute:02d}:00.000Z"


def _ref_and_row(home: Path):
    scanner = Scanner(home=home, env={}, use_cache=False)
    provider = scanner.provider("claude")
    (ref,) = provider.discover(scanner.ctx)
    return ref, provider.row(ref, scanner.ctx), scanner


def _facts(home: Path) -> tuple[TableFacts | None, TableFacts]:
    """What the bytes say, and what the row's pass says."""
    ref, row, scanner = _ref_and_row(home)
    with scanner:
        found = ClaudeProvider().table_facts(ref, scanner.ctx)
        return found, TableFacts(row.updated_at, row.cwd, row.title)


def _write(home: Path, lines: list[bytes], *, bom: bool = False, newline: bool = True) -> Path:
    path = claude_session_file(home, SESSION, [])
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + (b"\n" if newline else b""))
    return path


def _call(minute: int, **extra) -> dict:
    return claude_assistant(SESSION, _ts(minute), msg_id=f"m{minute}", request_id=f"r{minute}",
                            usage=claude_usage(10, 5), **extra)


# -- every kind of line, in any order -----------------------------------------------

_LINES = st.one_of(
    st.builds(lambda m, text: orjson.dumps(claude_user(SESSION, _ts(m), text)),
              st.integers(0, 59), st.sampled_from(["fix the build", "/model", "  spaced\n prompt ", "", "/clear now"])),
    st.builds(lambda m: orjson.dumps(claude_user(SESSION, _ts(m), "meta", isMeta=True)), st.integers(0, 59)),
    st.builds(lambda m: orjson.dumps(_call(m)), st.integers(0, 59)),
    st.builds(lambda m, cwd: orjson.dumps(_call(m, cwd=cwd)), st.integers(0, 59), st.sampled_from(["", "/elsewhere", 7])),
    st.builds(lambda t: orjson.dumps({"type": "custom-title", "customTitle": t, "sessionId": SESSION}),
              st.sampled_from(["Renamed", "", None, "Second name"])),
    st.builds(lambda t: orjson.dumps({"type": "ai-title", "aiTitle": t, "sessionId": SESSION}),
              st.sampled_from(["An AI title", ""])),
    st.builds(lambda t, leaf: orjson.dumps({"type": "summary", "summary": t, "leafUuid": leaf}),
              st.sampled_from(["Sum", "", "Other sum"]), st.sampled_from(["leaf", "u-2", "u-3", "ünï", 'q"q'])),
    # Records a summary's leaf may name (``uuid``), top-level or nested, spaced or escaped.
    st.builds(lambda m, uuid: orjson.dumps(claude_user(SESSION, _ts(m), "named", uuid=uuid)),
              st.integers(0, 59), st.sampled_from(["leaf", "u-2", "u-3", "ünï"])),
    st.builds(lambda m, uuid: orjson.dumps(claude_user(SESSION, _ts(m), "x", data={"uuid": uuid})),
              st.integers(0, 59), st.sampled_from(["leaf", "u-2"])),
    st.builds(lambda uuid: json.dumps({"type": "summary", "summary": "Spaced", "leafUuid": uuid, "uuid": uuid}).encode(),
              st.sampled_from(["leaf", "u-2"])),
    st.just(rb'{"type":"user","uuid":"le\u0061f","timestamp":"2026-11-02T10:00:00.000Z"}'),
    # Claude Code's session recap (``away_summary``): its time dates nothing, as in the row's pass.
    st.builds(lambda m: orjson.dumps({"type": "system", "subtype": "away_summary", "content": "recap",
                                      "timestamp": _ts(m), "sessionId": SESSION, "uuid": f"recap-{m}"}),
              st.integers(0, 59)),
    # Nested look-alikes: a title's type and a later time inside another record.
    st.builds(lambda m: orjson.dumps(claude_user(SESSION, _ts(m), "x", customTitle="top", aiTitle="top",
                                                 toolUseResult={"type": "custom-title", "customTitle": "nested"})),
              st.integers(0, 59)),
    st.builds(lambda m, late: orjson.dumps(claude_user(SESSION, _ts(m), "x", data={"timestamp": _ts(late)})),
              st.integers(0, 59), st.integers(0, 59)),
    # Times the pass reads but that do not sort as text, or are no times at all.
    st.sampled_from([
        orjson.dumps(claude_user(SESSION, "2026-11-02T11:30:00+01:00", "offset")),
        orjson.dumps(claude_user(SESSION, "2026-11-31T10:00:00.000Z", "no such day")),
        orjson.dumps({**claude_user(SESSION, _ts(1), "number time"), "timestamp": 1700000000}),
        orjson.dumps({**claude_user(SESSION, _ts(1), "no time"), "timestamp": None}),
    ]),
    # JSON as another writer spaces it.
    st.builds(lambda m: json.dumps(_call(m)).encode(), st.integers(0, 59)),
    # Lines the pass skips.
    st.sampled_from([b"{oops", b"", b"   ", b"[1, 2]", b'{"timestamp":"2026-11-02T10:59:59.999Z", broken']),
)


@FUZZ
@given(lines=st.lists(_LINES, max_size=12), sub=st.lists(_LINES, max_size=4), bom=st.booleans(),
       newline=st.booleans())
def test_the_facts_found_are_the_rows(tmp_path_factory: pytest.TempPathFactory, lines, sub, bom, newline) -> None:
    home = tmp_path_factory.mktemp("home")
    _write(home, lines, bom=bom, newline=newline)
    if sub:
        claude_subagent_file(home, SESSION, "a1", []).write_bytes(b"\n".join(sub) + b"\n")
    found, row = _facts(home)
    assert found is None or found == row


def test_a_plain_session_is_settled_from_its_bytes(isolated_home: Path) -> None:
    _write(isolated_home, [orjson.dumps({"type": "file-history-snapshot", "messageId": "x"}),
                           orjson.dumps(claude_user(SESSION, _ts(1), "/model")),
                           orjson.dumps(claude_user(SESSION, _ts(2), "Fix   the\nflaky test")),
                           orjson.dumps(_call(3)), orjson.dumps(_call(2))])
    # A subagent's later time is the session's date.
    claude_subagent_file(isolated_home, SESSION, "a1", [_call(40)])
    found, row = _facts(isolated_home)
    assert found == row
    assert found.title == "Fix the flaky test" and found.cwd == "/home/dev/project"
    assert found.updated_at.isoformat() == "2026-11-02T10:40:00+00:00"


def test_the_last_custom_title_wins_and_a_nested_one_does_not_count(isolated_home: Path) -> None:
    _write(isolated_home, [orjson.dumps(claude_user(SESSION, _ts(1), "first prompt")),
                           orjson.dumps({"type": "custom-title", "customTitle": "One", "sessionId": SESSION}),
                           orjson.dumps({"type": "ai-title", "aiTitle": "By the model", "sessionId": SESSION}),
                           orjson.dumps({"type": "custom-title", "customTitle": "Two", "sessionId": SESSION}),
                           orjson.dumps(claude_user(SESSION, _ts(2), "x", customTitle="not a title record",
                                                    toolUseResult={"type": "custom-title", "customTitle": "nested"}))])
    found, row = _facts(isolated_home)
    assert found == row and found.title == "Two"


@pytest.mark.parametrize("case", [
    "offset time", "nested newest time", "newest time in a bad line", "no main transcript",
    "line cap",
])
def test_what_only_the_rows_pass_settles_is_left_to_it(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                       case: str) -> None:
    lines = [orjson.dumps(claude_user(SESSION, _ts(1), "a prompt")), orjson.dumps(_call(2))]
    if case == "offset time":
        lines.append(orjson.dumps(claude_user(SESSION, "2026-11-02T09:00:00+01:00", "x")))
    elif case == "nested newest time":
        lines.append(orjson.dumps(claude_user(SESSION, _ts(3), "x", data={"timestamp": _ts(50)})))
    elif case == "newest time in a bad line":
        lines.append(b'{"timestamp":"' + _ts(50).encode() + b'", oops')
    elif case == "line cap":
        monkeypatch.setattr(bounds, "MAX_FILE_LINES", 1)
    path = _write(isolated_home, lines)
    if case == "no main transcript":
        claude_subagent_file(isolated_home, SESSION, "a1", [_call(5)])
        path.unlink()
    found, row = _facts(isolated_home)
    assert found is None
    assert row.updated_at is not None  # the row's pass has an answer: the fallback gives it


def test_a_line_too_long_for_the_pass_is_skipped_here_too(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import jsonl

    prompt = orjson.dumps(claude_user(SESSION, _ts(1), "a prompt"))
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", len(prompt) + 10)  # the pass's and the bytes' rule alike
    long_title = orjson.dumps({"type": "custom-title", "customTitle": "x" * len(prompt), "sessionId": SESSION})
    _write(isolated_home, [prompt, long_title])
    found, row = _facts(isolated_home)
    assert found == row and found.title == "a prompt"


# -- the table -------------------------------------------------------------------


def _home(home: Path, sessions: int) -> None:
    for number in range(sessions):
        native = f"{number:08x}-2222-4000-8000-000000000000"
        records = [claude_user(native, f"2026-11-0{1 + number % 8}T09:00:00.000Z", f"task {number}",
                               cwd=f"/src/p{number % 3}")]
        records += [claude_assistant(native, f"2026-11-0{1 + number % 8}T09:0{i + 1}:00.000Z", msg_id=f"m{number}-{i}",
                                     request_id=f"r{number}-{i}", usage=claude_usage(100 + number, 7)) for i in range(3)]
        if number % 4 == 0:
            records.append({"type": "custom-title", "customTitle": f"named {number}", "sessionId": native})
        if number % 3 == 1:
            records.append({"type": "summary", "summary": f"summary {number}", "leafUuid": "x"})
        if number % 5 == 0:  # a time in another form: read as a row
            records.append(claude_user(native, f"2026-11-0{1 + number % 8}T10:00:00+01:00", "late", cwd="/x"))
        path = claude_session_file(home, native, records)
        if number % 6 == 0:
            with path.open("ab") as handle:
                handle.write(b"{a line no count reads\n")
        os.utime(path, (1_780_000_000 + number, 1_780_000_000 + number))


def _run(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def _rows_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ClaudeProvider, "table_facts", lambda self, ref, ctx: None)


@pytest.mark.parametrize("in_workers", [False, True])
def test_the_table_is_the_one_its_rows_print(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                             in_workers: bool) -> None:
    if in_workers and not workers.usable_workers():
        pytest.skip("needs two cores and fork")  # the CI machine has both
    _home(isolated_home, 30)
    monkeypatch.setattr(gathering, "MIN_BYTES", 0)
    monkeypatch.setattr(gathering, "MIN_SESSIONS", 2 if in_workers else 10**9)
    forked = record_calls(monkeypatch, workers, "run_parallel", lambda *args, **kwargs: True)
    here = record_calls(monkeypatch, tablefacts, "table_facts", lambda files, recency, **_: files.native_id)
    cold = _run("tokens", "--no-cache")
    assert bool(forked) == in_workers
    assert len(here) == (0 if in_workers else 30)  # a worker's calls are its own
    with monkeypatch.context() as rows:
        _rows_only(rows)
        assert _run("tokens", "--no-cache") == cold


def test_the_table_says_what_the_json_says_however_its_facts_were_found(isolated_home: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home, 8)
    out, err = _run("tokens", "--no-cache")
    json_err = _run("tokens", "--json", "--no-cache")[1]
    assert "a line no count reads" not in err and err == json_err
    # After ``list`` read (and kept) every row with its warnings, and with rows alone.
    _run("list", "--all")
    assert _run("tokens") == (out, err)
    _rows_only(monkeypatch)
    assert _run("tokens", "--no-cache") == (out, err)


def test_a_grown_session_is_patched_with_its_facts(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import tablepatch
    from builders import forget_remembered_answers

    _home(isolated_home, 8)
    _run("tokens")
    native = f"{1:08x}-2222-4000-8000-000000000000"
    path = next(isolated_home.joinpath(".claude", "projects").rglob(f"{native}.jsonl"))
    with path.open("ab") as handle:
        handle.write(orjson.dumps({"type": "custom-title", "customTitle": "Renamed later", "sessionId": native}) + b"\n")
        handle.write(orjson.dumps(claude_assistant(native, "2026-11-09T09:00:00.000Z", msg_id="late", request_id="rl",
                                                   usage=claude_usage(5, 5))) + b"\n")
    forget_remembered_answers()
    done = record_results(monkeypatch, tablepatch, "patched")
    patched = _run("tokens")
    assert done == [True]
    assert "Renamed later" in patched[0]
    assert patched == _run("tokens", "--no-cache")


# -- kept in the index ------------------------------------------------------------


def _gathered(home: Path) -> dict:
    with Scanner(home=home, use_cache=True) as scanner:
        refs = sorted(scanner.provider("claude").discover(scanner.ctx), key=lambda ref: ref.id)
        return gathering.gather(scanner, refs)


def _facts_of(found: dict) -> dict:
    """What the table shows of each (a row or facts alike)."""
    return {key: (value.updated_at, value.cwd, value.title, value.archived) for key, value in found.items()}


def test_the_facts_are_kept_for_the_files_as_they_are(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from agentscan.scan.cachefile import FILE_NAME

    _home(isolated_home, 6)
    read = record_calls(monkeypatch, tablefacts, "table_facts", lambda files, recency, **_: files.native_id)
    first = _gathered(isolated_home)
    assert len(read) == 6 and sum(isinstance(found, TableFacts) for found in first.values()) == 4  # two read as rows
    # None read again; the two read as rows are taken from the rows kept then (their facts
    # picked out of the index: ``tablefacts._of_kept_rows``), alike.
    assert _facts_of(_gathered(isolated_home)) == _facts_of(first) and len(read) == 6
    # A session written to is read again, and only it; a damaged value is no answer.
    native = f"{1:08x}-2222-4000-8000-000000000000"
    path = next(isolated_home.joinpath(".claude", "projects").rglob(f"{native}.jsonl"))
    with path.open("ab") as handle:
        handle.write(orjson.dumps({"type": "custom-title", "customTitle": "Later", "sessionId": native}) + b"\n")
    with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME) as connection:
        connection.execute("UPDATE files SET state = x'00000000' WHERE kind = ? AND path LIKE '%00000002-2222%'",
                           (gathering.KIND,))
    connection.close()
    again = _gathered(isolated_home)
    assert sorted(read[6:]) == sorted([native, f"{2:08x}-2222-4000-8000-000000000000"])
    assert again[f"claude:{native}"].title == "Later"
    assert {key: value for key, value in _facts_of(again).items() if native not in key} == {
        key: value for key, value in _facts_of(first).items() if native not in key}


@pytest.mark.parametrize("line", [
    rb'{"typ\u0065":"custom-title","customTitle":"X"}',
    rb'{"type":"custom\u002dtitle","customTitle":"X"}',
    rb'{"type":"summar\u0079","summary":"S","leafUuid":"u-late"}',
    rb'{"type":"x","time\u0073tamp":"2026-11-02T11:00:00.000Z"}',
    rb'{"type" : "x", "\u0074imestamp" : "2026-11-02T11:00:00.000Z"}',
])
def test_a_word_spelled_with_an_escape_is_left_to_the_rows_pass(isolated_home: Path, line: bytes) -> None:
    """The decoder reads ``"typ\\u0065"`` as ``"type"``; the scan of bytes would not."""
    # (A summary names the session over its prompt only when its leaf is in the file: one follows.)
    leaf = [orjson.dumps(_call(3, uuid="u-late"))] if b"summar" in line else []
    _write(isolated_home, [orjson.dumps(claude_user(SESSION, _ts(1), "hello")), line, *leaf])
    found, row = _facts(isolated_home)
    assert found is None
    assert row.title != "hello" or row.updated_at.minute == 0  # the row's pass saw the escaped word


def test_an_escape_in_text_settles_as_usual(isolated_home: Path) -> None:
    """Terminal colours in a tool's output (``\\u001b``) are no escaped word."""
    _write(isolated_home, [orjson.dumps(claude_user(SESSION, _ts(1), "hello")),
                           orjson.dumps(claude_user(SESSION, _ts(2), "x", toolUseResult={"stdout": "\x1b[31mred\x1b[0m: {\"a\": 1}"}))])
    assert b"\\u001b" in next(isolated_home.rglob("*.jsonl")).read_bytes()
    found, row = _facts(isolated_home)
    assert found is not None and found == row


def test_the_facts_of_a_session_gone_are_forgotten(isolated_home: Path) -> None:
    import sqlite3

    from agentscan.scan.cachefile import FILE_NAME

    _home(isolated_home, 4)
    _run("tokens")
    gone = next(isolated_home.joinpath(".claude", "projects").rglob(f"{3:08x}-2222-*.jsonl"))

    def kept() -> set[str]:
        with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME) as connection:
            paths = {path for (path,) in connection.execute("SELECT path FROM files WHERE kind = ?", (gathering.KIND,))}
        connection.close()
        return paths

    assert str(gone) in kept() and len(kept()) == 4
    gone.unlink()
    _run("tokens")
    assert str(gone) not in kept() and len(kept()) == 3


def test_facts_that_fail_are_read_as_rows(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home, 4)
    expected = _run("tokens", "--no-cache")

    def broken(files, recency):  # noqa: ANN001, ANN202
        raise RuntimeError("a bug of facts")

    monkeypatch.setattr(tablefacts, "table_facts", broken)
    assert _run("tokens", "--no-cache") == expected


def test_a_summary_whose_leaf_is_here_names_the_session(isolated_home: Path) -> None:
    """The summary of this conversation (its leaf a record of this file) beats a later one of
    another; without such a leaf, the first prompt names it, and the latest summary only when
    there is none; a custom title beats all."""
    lines = [orjson.dumps({"type": "summary", "summary": "This conversation", "leafUuid": "u-9"}),
             orjson.dumps({"type": "summary", "summary": "Another one", "leafUuid": "elsewhere"}),
             orjson.dumps(claude_user(SESSION, _ts(1), "a prompt", uuid="u-1")),
             orjson.dumps(_call(2, uuid="u-9"))]
    _write(isolated_home, lines)
    found, row = _facts(isolated_home)
    assert found == row and found.title == "This conversation"
    _write(isolated_home, lines[:3])
    found, row = _facts(isolated_home)
    assert found == row and found.title == "a prompt"
    _write(isolated_home, [*lines[:2], orjson.dumps(_call(2))])
    found, row = _facts(isolated_home)
    assert found == row and found.title == "Another one"
    _write(isolated_home, [*lines, orjson.dumps({"type": "custom-title", "customTitle": "Mine", "sessionId": SESSION})])
    found, row = _facts(isolated_home)
    assert found == row and found.title == "Mine"


@pytest.mark.parametrize("line", [rb'{"type":"user","uuid":"u\u002d9","timestamp":"2026-11-02T10:00:00.000Z"}'])
def test_a_uuid_spelled_with_an_escape_is_left_to_the_rows_pass(isolated_home: Path, line: bytes) -> None:
    _write(isolated_home, [orjson.dumps({"type": "summary", "summary": "Here", "leafUuid": "u-9"}),
                           orjson.dumps({"type": "summary", "summary": "Latest", "leafUuid": "x"}),
                           orjson.dumps(claude_user(SESSION, _ts(1), "a prompt")), line])
    found, row = _facts(isolated_home)
    assert found is None and row.title == "Here"


def test_a_summary_is_read_in_the_order_the_pass_meets_it(isolated_home: Path) -> None:
    """A record that comes before the summary naming it as a leaf is no match; a summary beats
    an ``ai-title``; a summary of no text names nothing, even when its uuid is a leaf."""
    _write(isolated_home, [orjson.dumps(claude_user(SESSION, _ts(1), "a prompt", uuid="u-9")),
                           orjson.dumps({"type": "summary", "summary": "Here", "leafUuid": "u-9"}),
                           orjson.dumps({"type": "summary", "summary": "Latest", "leafUuid": "x"}),
                           orjson.dumps({"type": "ai-title", "aiTitle": "By the model", "sessionId": SESSION}),
                           orjson.dumps({"type": "summary", "summary": "", "leafUuid": "y", "uuid": "x"})])
    found, row = _facts(isolated_home)
    assert found == row and found.title == "Latest"
