"""No test calls ``monkeypatch.undo()``: it undoes every patch of the test's ``monkeypatch``, the
autouse isolation in ``conftest.py`` with them (HOME, the cache, data and lock dirs), and what
the test ran after it wrote into the real home (a past test wrote to /root).  Ten tests did;
``with monkeypatch.context() as patch:`` undoes a patch of its own, and nothing else.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def _undo_calls(source: str) -> list[int]:
    """The lines of ``source`` that call ``monkeypatch.undo()`` (code, not a word of a docstring)."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "undo"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "monkeypatch"]


def test_the_check_finds_a_call_and_not_a_mention() -> None:
    bad = "def test_it(monkeypatch):\n    monkeypatch.setenv('TZ', 'UTC')\n    monkeypatch.undo()\n"
    assert _undo_calls(bad) == [3]
    said = 'def test_it(monkeypatch):\n    """Never ``monkeypatch.undo()``."""  # monkeypatch.undo()\n'
    assert _undo_calls(said) == []
    own = "def test_it():\n    every = pytest.MonkeyPatch()\n    every.undo()\n"  # (its own instance: fine)
    assert _undo_calls(own) == []


def test_no_test_undoes_the_isolated_home() -> None:
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 500, len(files)  # (the tests folder read, not an empty glob)
    assert TESTS / "conftest.py" in files
    found = [f"{path.relative_to(TESTS)}:{line}" for path in files
             for line in _undo_calls(path.read_text(encoding="utf-8"))]
    assert found == [], f"monkeypatch.undo() undoes the isolated home; use monkeypatch.context(): {found}"


_PROBE = '''
import os


def test_aliased_undo(monkeypatch):
    patch = monkeypatch
    getattr(patch, "un" + "do")()  # (no literal call: the check above cannot see it)


def test_a_context_of_its_own(monkeypatch, tmp_path):
    with monkeypatch.context() as patch:
        patch.setenv("HOME", str(tmp_path / "elsewhere"))
    assert os.environ["HOME"] == str(tmp_path / "home")


def test_home_pointed_elsewhere(monkeypatch):
    monkeypatch.setenv("HOME", "/home/me")
'''


def test_an_undo_however_called_fails_at_teardown(tmp_path: Path) -> None:
    # ``conftest.isolated_home`` checks, after the test, that HOME is not the real home (as the
    # session began): an aliased undo fails there, a ``monkeypatch.context()`` and a HOME the
    # test set itself do not.  Run in a pytest of its own, whose "real" home is this test's.
    import os
    import subprocess
    import sys

    probe = tmp_path / "probe" / "test_probe.py"
    probe.parent.mkdir()
    probe.write_text(_PROBE, encoding="utf-8")
    src = TESTS.parent / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(src)])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
                           "--rootdir", str(probe.parent), str(probe)],
                          capture_output=True, text=True, env=env, cwd=probe.parent, timeout=120)
    out = done.stdout
    assert "3 passed, 1 error" in out, out
    assert "ERROR test_probe.py::test_aliased_undo" in out and "isolation was undone" in out, out
