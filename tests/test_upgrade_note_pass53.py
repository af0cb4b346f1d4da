"""The note after an upgrade counts what the run reads again, however its rows are asked for,
and names what is read again (``scan.upgraded``): a ``list --all`` after ``tokens`` said "128
sessions" (its first batch, ``memo.TOP``) while it read 15,000 again, and both said "this run
only" while the second read them again too.  And a ``list`` on a terminal names its cost
pass over the sessions whose tokens no row kept (``adding up tokens``), drawn at once: the
line stood at "reading sessions N/N" for seconds."""

from __future__ import annotations

import io
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_sessions, invoke
from codex_builders import lay_out_real_codex

NOTE = "note: agentscan was upgraded"


@pytest.fixture(autouse=True)
def drawn_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", 0.0)
    monkeypatch.setattr("agentscan.cli.progress.REDRAW_S", 0.0)


def _lines(stderr: str) -> list[str]:
    return [line for line in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", stderr)) if line.strip()]


def _notes(*argv: str) -> list[str]:
    result = invoke(*argv)
    assert result.exit_code == 0, result.output
    return [line for line in _lines(result.stderr) if line.startswith("note:")]


def test_list_after_tokens_counts_every_row_it_reads_again(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                           tty) -> None:  # noqa: ANN001
    claude_sessions(isolated_home, 6)
    assert invoke("tokens", "--all").exit_code == 0
    assert invoke("list", "--all").exit_code == 0
    monkeypatch.setattr("agentscan.scan.memo.TOP", 2)  # a first batch smaller than the sessions
    monkeypatch.setattr(ClaudeProvider, "parser_version", str(int(ClaudeProvider.parser_version) + 1))
    tty(100)
    assert _notes("tokens", "--all") == [
        f"{NOTE}: reading 6 sessions again for their tokens (the index holds them from an older version)"]
    assert _notes("list", "--all") == [
        f"{NOTE}: reading 6 sessions again for their rows (the index holds them from an older version)"]
    assert _notes("list", "--all") == []


def test_a_list_names_its_cost_pass(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                    tty) -> None:  # noqa: ANN001
    count = len(lay_out_real_codex(isolated_home))  # (no row keeps a Codex session's tokens)
    phases: list[str] = []
    kept_sums = ClaudeProvider.prefetch_row_sums

    def prefetch_row_sums(self, refs, ctx):  # noqa: ANN001, ANN202
        phases.append(ctx.progress.phase)
        return kept_sums(self, refs, ctx)

    monkeypatch.setattr(ClaudeProvider, "prefetch_row_sums", prefetch_row_sums)
    claude_sessions(isolated_home, 2)
    count += 2
    tty(100)
    result = invoke("list", "--all")
    assert result.exit_code == 0, result.output
    lines = _lines(result.stderr)
    assert any(line.startswith(f"reading sessions {count}/{count}") for line in lines), lines
    # named at once, from the cost pass's parse, over the rows' count that stood still
    named = lines.index("adding up tokens")
    assert named > max(at for at, line in enumerate(lines) if line.startswith("reading sessions"))
    assert any(line.startswith(f"adding up tokens {count - 2}/{count - 2}") for line in lines[named:]), lines
    # The index's lookups before it are no part of it: named around them, a ``list --all``
    # whose sums were all kept drew the phase with nothing in it (test_costs_phase_pass53).
    assert phases == ["reading sessions"]


def test_a_phase_after_a_line_shown_is_drawn_without_the_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli.progress import StderrProgress

    clock = [100.0]
    monkeypatch.setattr("agentscan.cli.progress.time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr("agentscan.cli.progress.DELAY_S", 1.0)
    stream = io.StringIO()
    progress = StderrProgress(stream)
    progress.expect(10)
    clock[0] += 2
    progress.advance(10)
    assert _lines(stream.getvalue())[-1].startswith("reading sessions 10/10")
    clock[0] += 0.5
    with progress.named("adding up tokens"):
        assert _lines(stream.getvalue())[-1] == "adding up tokens"
        with progress.named("adding up tokens"):  # the parse inside: the same phase goes on
            progress.expect(3)
            clock[0] += 0.2  # not a second: drawn all the same
            progress.advance()
        assert _lines(stream.getvalue())[-1].startswith("adding up tokens 1/3")
    assert (progress.phase, progress.done, progress.total) == ("reading sessions", 10, 10)
