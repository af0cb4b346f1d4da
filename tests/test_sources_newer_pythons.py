"""What newer Pythons than CI's refuse to compile, found with CI's.

Python 3.13 stopped compiling a docstring that holds a lone surrogate (an
escape such as ``\\ud83d`` in a docstring that is not raw): every command that
imported ``hooks/store.py`` failed there with a ``UnicodeEncodeError``, though
3.11 compiled it (``requires-python`` has no upper bound).  ``.ci/run`` also
compiles the sources with a newer Python when the machine has one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted(path for folder in ("src", "tests", "bench") for path in (REPO / folder).rglob("*.py")
                 if "out" not in path.relative_to(REPO).parts)


def _docstrings(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                yield node, text


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(REPO)))
def test_every_docstring_is_valid_utf8(path: Path) -> None:
    tree = ast.parse(path.read_bytes(), filename=str(path))
    for node, text in _docstrings(tree):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            pytest.fail(f"{path.name}:{getattr(node, 'lineno', 1)}: a docstring holds a lone surrogate "
                        "(write the escape with a doubled backslash): Python 3.13 will not compile it")


def test_the_check_finds_a_lone_surrogate() -> None:
    tree = ast.parse('def f():\n    """a cut emoji\'s \\ud83d"""\n')
    texts = [text for _, text in _docstrings(tree)]
    with pytest.raises(UnicodeEncodeError):
        texts[0].encode("utf-8")
