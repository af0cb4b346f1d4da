"""``ListFilter``'s library-caller checks live with the others (``scan.arguments.list_filter_fields``,
pass 52 design): it names only the fields a caller gave otherwise than the CLI does, so the
CLI's own values are set once and kept as given; the library's are taken as the CLI takes them.
And ``--grep``'s second look (``scan.grepmodels``) is held by one rule for ``list`` and ``export``."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentscan.errors import UsageProblem
from agentscan.scan.arguments import list_filter_fields
from agentscan.scan.listing import ListFilter


def test_the_clis_values_are_kept_as_given() -> None:
    since = datetime(2026, 11, 1, tzinfo=timezone.utc)
    filters = ListFilter(providers=("claude",), since=since, grep="fix", cwd="/repo", running=True, pid=7)
    assert list_filter_fields(filters) == {"cwd": "/repo"}  # (a str names itself)
    assert filters.since is since and filters.providers == ("claude",)


def test_a_library_callers_values_are_taken_as_the_cli_takes_them(tmp_path: Path) -> None:
    filters = ListFilter(providers="codex", since="7d", cwd=tmp_path)
    assert filters.providers == ("codex",) and filters.cwd == str(tmp_path)
    assert filters.since is not None and filters.since.utcoffset() is not None
    assert filters.holds_cwd(str(tmp_path / "sub")) and not filters.holds_cwd("/elsewhere")


@pytest.mark.parametrize(("fields", "parameter"), [({"grep": 3}, "grep"), ({"running": "no"}, "running"),
                                                   ({"pid": True}, "pid"), ({"since": "2026-11-02", "until": "2026-11-01"},
                                                                            "since")])
def test_a_wrong_value_is_a_usage_problem_naming_it(fields: dict, parameter: str) -> None:
    with pytest.raises(UsageProblem) as raised:
        ListFilter(**fields)
    assert raised.value.parameter == parameter


def test_only_a_grep_failure_of_a_row_with_usage_gets_the_second_look() -> None:
    """One rule for ``list`` and ``export`` (``grepmodels.needs_second_look``): a row that failed
    an earlier filter, or recorded no usage (no model to find), is not held for its models."""
    from agentscan.model import SessionRow, TokenUsage
    from agentscan.scan.grepmodels import needs_second_look

    used = SessionRow("claude", "a", None, tokens=TokenUsage(input=10))
    assert needs_second_look("grep", used)
    assert not needs_second_look("cwd", used) and not needs_second_look(None, used)
    assert not needs_second_look("grep", SessionRow("claude", "b", None))
    assert not needs_second_look("grep", SessionRow("claude", "c", None, tokens=TokenUsage()))


def test_the_clis_values_do_not_import_the_library_checks() -> None:
    """``list`` and ``export`` make a ``ListFilter`` of the CLI's values on every run: that
    imports no ``scan.arguments`` (a window, which it checks, aside)."""
    import subprocess
    import sys

    script = ("import sys\nfrom datetime import datetime, timezone\nfrom agentscan.scan.listing import ListFilter\n"
              "at = datetime(2026, 11, 1, tzinfo=timezone.utc)\n"
              "ListFilter(providers=('claude',), since=at, grep='fix', cwd='/repo', running=True, pid=7)\n"
              "ListFilter(providers=(), until=at)\n"
              "print('agentscan.scan.arguments' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout == "False\n", done.stderr
