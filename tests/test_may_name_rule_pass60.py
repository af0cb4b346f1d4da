"""Pass 60: ``resolve.may_name`` (whether ``trace ID``'s hint looks an id up) restated
``_match``'s prefix rule (a native id's prefix, a run's name's prefix, in any case) in a loop
of its own, with a third clause of the full id's prefix.  One rule now (``_begins``,
``_runs_begun``): whenever discovery alone lets ``find_session`` find a session by an id,
``may_name`` says the id may name one, and it says no where nothing begins so."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import pytest

from agentscan.errors import AgentscanError
from agentscan.scan import resolve
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

SESSION = "5a0e2c1d-4b3f-4e6a-9c8d-7f1e2d3c4b5a"
AGENT = "a1b2c3d4e5f60718"


def _home(home: Path) -> None:
    claude_session_file(home, SESSION, [
        claude_user(SESSION, "2026-05-01T10:00:00.000Z", "hello", uuid="u1"),
        claude_assistant(SESSION, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id="r1",
                         usage=claude_usage(100, 10), parentUuid="u1", uuid="a1")])
    claude_subagent_file(home, SESSION, AGENT, [
        claude_user(SESSION, "2026-05-01T10:00:01.000Z", "go", uuid="s1", isSidechain=True, agentId=AGENT),
        claude_assistant(SESSION, "2026-05-01T10:00:02.000Z", msg_id="m2", request_id="r2", usage=claude_usage(5, 1),
                         parentUuid="s1", uuid="s2", isSidechain=True, agentId=AGENT)])


QUERIES = [SESSION, SESSION.upper(), SESSION[:8], SESSION[:8].upper(), f"claude:{SESSION[:10]}",
           f"CLAUDE:{SESSION[:10].upper()}", AGENT, AGENT[:7], f"agent-{AGENT[:8]}", f"AGENT-{AGENT[:8]}".upper(),
           "5a0e2c1e", "ffffffff", "claude:ffffffff", "agent-ffffffff", "zzzzzzzz", "claude", "cla", "5a0e"]


@pytest.mark.parametrize("query", QUERIES)
def test_may_name_says_yes_wherever_discovery_finds_the_session(isolated_home: Path, query: str) -> None:
    _home(isolated_home)
    scanner = Scanner(home=isolated_home)
    try:
        found = resolve.find_session(scanner, query)[0].id
    except AgentscanError:
        found = None
    named = resolve.may_name(scanner, query)
    if found is not None:
        assert named, query
    begun = query.lower().partition("claude:")[2] or query.lower()
    expected = SESSION.startswith(begun) or AGENT.startswith(begun) or f"agent-{AGENT}".startswith(begun)
    assert named is expected, query


def test_the_prefix_rule_is_written_once() -> None:
    # ``may_name`` asks ``_match``'s helpers; neither tests a prefix of the query of its own.
    for function in (resolve.may_name, resolve._match):
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        prefix_tests = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                        and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith"
                        and any(isinstance(arg, ast.Name) and arg.id == "wanted" for arg in node.args)]
        names = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        assert prefix_tests == [], function.__name__
        assert {"_begins", "_runs_begun"} <= names, function.__name__
