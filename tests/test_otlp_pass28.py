"""`agentscan otlp` on a large home: a progress line on a terminal, and a faster encoder that
writes the same bytes.

An export of 1,500 sessions took a quarter of a minute and printed nothing meanwhile, while
``list`` and ``tokens`` count their sessions on stderr.  ``otlp`` now says "exporting
sessions N/M" there too: on a terminal only, never in a pipe or under ``--quiet``, erased
before its result is printed.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentscan.otlp.encode_json import encode_line
from agentscan.otlp.sources import EXPORTING
from agentscan.otlp.spans import ExportTrace, Span
from agentscan.progress import READING
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from otlp_builders import otlp, read_otlp_file, ts
from spies import recording_progress


def _sessions(home: Path, count: int) -> None:
    for number in range(count):
        native = f"{number:08x}-3333-4000-8000-000000000000"
        claude_session_file(home, native, [
            claude_user(native, ts(0), f"task {number}"),
            claude_assistant(native, ts(2), msg_id=f"msg-{number}", request_id=f"req-{number}",
                             usage=claude_usage(100 + number, 10)),
        ])


@pytest.fixture
def drawn_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line is drawn at every change (no delay, no redraw limit): what a long export shows."""
    from agentscan.cli import progress as progress_module

    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    monkeypatch.setattr(progress_module, "REDRAW_S", 0.0)


def test_a_terminal_sees_the_sessions_counted_then_the_line_erased(isolated_home: Path, tmp_path: Path, tty,
                                                                   drawn_at_once: None) -> None:
    _sessions(isolated_home, 3)
    tty(stderr=True)
    result = otlp("--output", str(tmp_path / "t.jsonl"))
    assert result.exit_code == 0, result.output
    assert "\r\x1b[Kexporting sessions 1/3" in result.stderr
    assert "\r\x1b[Kexporting sessions 3/3" in result.stderr
    drawn = result.stderr.rpartition("exporting sessions")[2]
    assert drawn.endswith("\r\x1b[K")  # erased: the result line starts on a clean line
    assert "\x1b[K" not in result.stdout and result.stdout.startswith("exported 6 spans in 3 traces")


@pytest.mark.parametrize("args", [("--quiet",), ()])
def test_nothing_is_drawn_in_a_pipe_nor_under_quiet(isolated_home: Path, tmp_path: Path, tty, drawn_at_once: None,
                                                    args: tuple[str, ...]) -> None:
    _sessions(isolated_home, 3)
    tty(stderr=bool(args))  # --quiet on a terminal; no option in a pipe
    result = otlp(*args, "--output", str(tmp_path / "t.jsonl"))
    assert result.exit_code == 0, result.output
    assert "exporting" not in result.stderr and "\x1b[K" not in result.stderr


def test_the_export_is_a_phase_of_its_own_counted_to_its_total(isolated_home: Path) -> None:
    from agentscan.otlp.sources import Built, Selection, traces
    from agentscan.scan.scanner import Scanner

    _sessions(isolated_home, 4)
    with Scanner(use_cache=True) as scanner:
        scanner.ctx.progress = progress = recording_progress()
        found = list(traces(scanner, Selection(), Built(), use_hooks=False))
    exporting = [(done, total) for phase, done, total in progress.seen if phase == EXPORTING]
    assert len(found) == 4 and exporting == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert progress.phase == READING and progress.done == progress.total == 0  # finished, name given back


def test_reused_attribute_values_keep_their_own_types(tmp_path: Path) -> None:
    """The encoder makes each (key, text) and (key, int) once a line: a bool or a float equal
    to an int (``1 == True == 1.0``), or a text like a number, must not take another's value."""
    values: list = [1, True, 1.0, "1", 1, "1", False, 0, ["a", "b"], 2**63 - 1]
    spans = [Span("a" * 32, f"{n + 1:016x}", None, "s", 1, 0, 1, {"k": value, "same": "common"})
             for n, value in enumerate(values)]
    line = orjson.loads(encode_line([ExportTrace({"service.name": "x"}, spans)]))
    written = [span["attributes"] for span in line["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    assert [attrs[0]["value"] for attrs in written] == [
        {"intValue": "1"}, {"boolValue": True}, {"doubleValue": 1.0}, {"stringValue": "1"}, {"intValue": "1"},
        {"stringValue": "1"}, {"boolValue": False}, {"intValue": "0"},
        {"arrayValue": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}}, {"intValue": str(2**63 - 1)},
    ]
    assert all(attrs[1] == {"key": "same", "value": {"stringValue": "common"}} for attrs in written)


def test_every_span_starts_with_the_attributes_of_its_session(isolated_home: Path, tmp_path: Path) -> None:
    """The builder copies the attributes every span of a turn shares rather than setting each:
    they still come first, in the order they always had."""
    _sessions(isolated_home, 1)
    out = tmp_path / "t.jsonl"
    assert otlp("--output", str(out)).exit_code == 0
    [spans] = read_otlp_file(out)
    assert sorted(s.name.split()[0] for s in spans) == ["chat", "invoke_agent"]
    written = orjson.loads(out.read_bytes())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for span in written:
        assert [a["key"] for a in span["attributes"][:5]] == [
            "gen_ai.conversation.id", "agentscan.session.id", "agentscan.source", "agentscan.timing",
            "gen_ai.operation.name",
        ]
    assert {s.attrs["agentscan.timing"] for s in spans} == {"inferred"}
