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
