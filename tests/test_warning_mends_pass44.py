"""Mends to this pass's warnings (empty files counted in one line, a truncated last line
worded by its file's age):

* a warm ``tokens`` or ``list`` imports neither ``whentext`` (only a window needs it) nor
  ``settling`` (only a truncated last line does, to be worded);
* the line that counts empty files is a ``warning:``, as ``--strict``'s count reads;
* every reader says an empty file with one constant (``context.EMPTY_FILE``);
* a truncated last line's file is looked at once per sink, however often it is listed.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan import settling, warningsink, warningwords
from agentscan.cli import app
from agentscan.context import EMPTY_FILE
from agentscan.warningsink import WarningSink
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls
from test_fastpath import build_home

runner = CliRunner()

_MODULES_OF_A_RUN = (
    "import sys; sys.argv[0] = 'agentscan'\n"
    "import agentscan.scan.memo\n"
    "agentscan.scan.memo.SETTLE_NS = 0  # the home was just written: as conftest does in-process\n"
    "from agentscan.entry import main\n"
    "try:\n    main()\n"
    "finally:\n    print('imported:', *(name for name in ('agentscan.whentext', 'agentscan.settling')\n"
    "                                      if name in sys.modules), file=sys.stderr)\n"
)

REAL = "cccccccc-4444-4000-8000-000000000001"
EMPTIES = 2


def _session(home: Path) -> Path:
    when = "2026-11-20T12:00:00.000Z"
    return claude_session_file(home, REAL, [
        claude_user(REAL, when, "fix the build", cwd="/src/app"),
        claude_assistant(REAL, when, msg_id="m-1", request_id="r-1", usage=claude_usage(100, 7), cwd="/src/app"),
    ], mtime=time.time() - 3600)


def _empty_files(home: Path) -> list[Path]:
    folder = home / ".claude" / "projects" / "-home-dev-empty"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"dddddddd-4444-4000-8000-00000000000{n}.jsonl" for n in range(EMPTIES)]
    for path in paths:
        path.write_bytes(b"")
    return paths


def _modules_of_two_runs(argv: list[str]) -> list[list[str]]:
    done = [subprocess.run([sys.executable, "-c", _MODULES_OF_A_RUN, *argv], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ)) for _ in range(2)]
    assert all(run.returncode == 0 and run.stdout for run in done), done[0].stderr
    assert done[1].stdout == done[0].stdout
    return [run.stderr.rsplit("imported:", 1)[1].split() for run in done]


@pytest.mark.parametrize("argv", [["list"], ["tokens"]])
def test_a_warm_run_imports_neither_whentext_nor_settling(argv: list[str], isolated_home: Path) -> None:
    """With warnings said again (a model with no price, empty files): none is a truncated
    last line, which alone needs ``settling`` to be worded."""
    build_home(isolated_home)
    _empty_files(isolated_home)
    cold, warm = _modules_of_two_runs(argv)
    assert "agentscan.settling" in cold  # the readers use it: the warm run is what is asked of
    assert "agentscan.whentext" not in cold  # no window, no WHEN parser: not even on a first run
    assert warm == [], warm


def test_a_window_still_reads_its_dates(isolated_home: Path) -> None:
    """``whentext`` is imported where a window is given: ``tokens --since`` still parses it."""
    _session(isolated_home)
    for since, sessions in (("2026-11-20", 1), ("2026-11-21", 0)):
        result = runner.invoke(app, ["tokens", "--since", since, "--json"])
        assert result.exit_code == 0, result.stderr
        assert result.stdout.count(REAL) == sessions, result.stdout


# -- the empty files' line is a warning -----------------------------------------------


@pytest.mark.parametrize("command", [["tokens"], ["list"]])
def test_strict_counts_warning_lines_only(isolated_home: Path, command: list[str]) -> None:
    _session(isolated_home)
    _empty_files(isolated_home)
    result = runner.invoke(app, ["--strict", *command])
    said = result.stderr.splitlines()
    assert result.exit_code == 1, result.stderr
    # What the error counts is what the warning lines say: no ``note:`` line holds them.
    assert [line for line in said if line.startswith(("warning:", "note:"))] == [
        f"warning: {EMPTIES} empty files (an agent leaves one after an aborted start; "
        "`agentscan doctor` or --verbose names them)"], said
    assert said[-1] == f"error: {EMPTIES} warnings (--strict)", said


# -- one constant --------------------------------------------------------------------------


def test_no_module_spells_the_empty_file_warning_but_its_own() -> None:
    """Every reader says ``context.EMPTY_FILE``; the CLI counts its warnings by it: a reader
    that spelt it its own way would be listed one by one."""
    source = Path(__import__("agentscan").__file__).parent
    spelt = sorted(str(path.relative_to(source)) for path in source.rglob("*.py")
                   if any(isinstance(node, ast.Constant) and node.value == EMPTY_FILE
                          for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))))
    assert spelt == ["context.py"]


# -- a truncated last line's file looked at once -----------------------------------------


def test_a_sink_words_a_truncated_line_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, young = tmp_path / "old.jsonl", tmp_path / "young.jsonl"
    for path in (old, young):
        path.write_bytes(b'{"a": 1}\n{"b"')
    then = time.time() - settling.SETTLING_SECONDS - 60
    os.utime(old, (then, then))
    looked = record_calls(monkeypatch, settling, "_written_lately", lambda path, now: path)
    sink = WarningSink()
    for path in (old, young):
        sink.add(path, settling.TRUNCATED_LAST_LINE, 2)
    sink.add(tmp_path / "bad.jsonl", "invalid JSON skipped", 1)
    for _ in range(3):  # ``prices`` reads ``items`` four times
        assert [warning.message for warning in sink.items] == [
            settling.TRUNCATED_SETTLED, settling.TRUNCATED_LAST_LINE, "invalid JSON skipped"]
        assert [warning.message for warning in sink.listed()][:2] == [
            settling.TRUNCATED_SETTLED, settling.TRUNCATED_LAST_LINE]
    assert sorted(looked) == sorted([str(old), str(young)])


def test_the_sink_knows_which_warnings_are_worded_by_age() -> None:
    """It tells them by their first words, without importing ``settling``: no message but
    its truncated-line ones (built from those words: the test below) begins so."""
    assert not settling.NUL_PADDING.startswith(warningwords.REWORDED_BY_AGE)


def test_the_words_a_warning_is_reworded_by_are_written_once() -> None:
    """``warningwords.REWORDED_BY_AGE`` is the one place they are spelt: a message written
    out again (``settling`` and ``warningsink`` kept a copy each once) could drift from the
    words the sink tells its warnings by."""
    source = Path(warningsink.__file__).parent
    spelt = []
    for path in sorted(source.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        spelt += [str(path.relative_to(source)) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                  and node.value.startswith(warningwords.REWORDED_BY_AGE)]
    assert spelt == ["warningwords.py"]
