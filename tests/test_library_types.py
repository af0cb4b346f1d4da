"""A library caller's wrong types are a ``UsageProblem`` naming what was expected, never an
``AttributeError`` or ``TypeError`` from deep in a scan (``show(None)``, ``limit="5"``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from agentscan import ListFilter, Scanner, token_report
from agentscan.errors import UsageProblem


@pytest.mark.parametrize(("call", "said"), [
    (lambda s: s.show(None), "a session id must be a str, not NoneType"),
    (lambda s: s.show(5), "a session id must be a str, not int"),
    (lambda s: s.resolve(b"c2d4e6f8"), "a session id must be a str, not bytes"),
    (lambda s: s.list_sessions(limit="5"), "the limit must be a whole number or None, not str"),
    (lambda s: s.list_sessions(limit=True), "the limit must be a whole number or None, not bool"),
    (lambda s: token_report(s, ids=[1]), "names and ids must be str, not int"),
    (lambda s: token_report(s, providers=5), "names and ids must be a str or several, not int"),
    (lambda s: s.list_sessions(filters=ListFilter(providers=[None])), "names and ids must be str, not NoneType"),
    # (pass 50: these were a TypeError or an AttributeError from inside the listing)
    (lambda s: s.list_sessions(filters=ListFilter(cwd=5)), "cwd must be a str, a path or None, not int"),
    (lambda s: s.list_sessions(filters=ListFilter(grep=5)), "grep must be a str or None, not int"),
    (lambda s: token_report(s, cwd=5.0), "cwd must be a str, a path or None, not float"),
    (lambda s: s.list_sessions(filters={"providers": "claude"}), "filters must be a ListFilter or None, not dict"),
    (lambda s: s.all_rows(filters={"providers": "claude"}), "filters must be a ListFilter or None, not dict"),
    (lambda s: Scanner(home=5), "home must be a str or a path, not int"),
])
def test_a_wrong_type_is_a_usage_problem(isolated_home: Path, call: Callable[[Scanner], Any], said: str) -> None:
    from agentscan.demo import demo_home

    with Scanner(home=demo_home(), env={}, use_cache=False) as scanner:
        with pytest.raises(UsageProblem, match=said):
            call(scanner)


def test_the_right_types_still_work(isolated_home: Path) -> None:
    from agentscan.demo import demo_home

    with Scanner(home=demo_home(), env={}, use_cache=False) as scanner:
        assert len(scanner.list_sessions(limit=2)) == 2
        row = scanner.list_sessions(limit=1)[0]
        assert scanner.show(row.id).row.id == row.id
        assert token_report(scanner, ids=(row.id,)).rows


def test_a_project_may_be_named_by_a_path(isolated_home: Path) -> None:
    """``cwd=Path(...)`` (a notebook's ``Path.cwd()``) is the directory it names, as its str is
    (pass 50: a ``TypeError`` once the sessions were read)."""
    from agentscan.demo import demo_home

    project = "/home/demo/src/weather-app"
    with Scanner(home=demo_home(), env={}, use_cache=False) as scanner:
        by_path = token_report(scanner, cwd=Path(project)).to_json()
        by_str = token_report(scanner, cwd=project).to_json()
        listed = scanner.list_sessions(filters=ListFilter(cwd=Path(project)))
        assert listed == scanner.list_sessions(filters=ListFilter(cwd=project)) and listed
    assert by_path == by_str and by_str["rows"]
