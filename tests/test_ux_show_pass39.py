"""``show`` on a narrow terminal: the ``context`` line wraps as ``tokens`` does (79
columns of it overflowed 60), and a tool call marked ``?`` is explained once, under them."""

from __future__ import annotations

from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.show_text import UNKNOWN_MEANING
from agentscan.cli.term import width_of

CURSOR = "a4b8c2"  # the demo's Cursor session: no usage, a context size, calls without results
CLAUDE = "7f3c9a"  # the demo's Claude session: every call has its result


def show(*args: str) -> list[str]:
    result = CliRunner().invoke(app, ["--demo", "show", *args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout.splitlines()


def test_the_context_line_wraps_to_a_narrow_terminal(tty) -> None:  # noqa: ANN001
    tty(60)
    lines = show(CURSOR)
    start = next(index for index, line in enumerate(lines) if line.startswith("  context "))
    assert all(width_of(line) <= 60 for line in lines[start:start + 2]), lines
    assert lines[start + 1].startswith(" " * 11) and "recorded no usage" in " ".join(lines[start:start + 2])


def test_a_call_without_a_result_is_explained_once(tty) -> None:  # noqa: ANN001
    tty(100)
    lines = show(CURSOR)
    marked = [line for line in lines if line.startswith("  ?      ")]
    legend = [line for line in lines if line.startswith("  ? = ")]
    assert marked and legend == [f"  ? = {UNKNOWN_MEANING}"]
    assert lines.index(legend[0]) > lines.index(marked[-1])
    # A session whose every call ended as recorded has no legend.
    assert not any(line.startswith("  ? = ") for line in show(CLAUDE))


def test_in_a_pipe_the_legend_is_one_line() -> None:
    lines = show(CURSOR)
    assert f"  ? = {UNKNOWN_MEANING}" in lines
