"""A library caller's mistakes each a ``UsageProblem`` naming the parameter to blame (pass 50's
review: ``redact="no"`` redacted, ``by=5`` was an ``AttributeError``, most errors named none),
and a closed scanner that can still be looked at (``hasattr``, ``inspect``, a debugger)."""

from __future__ import annotations

import inspect
import typing
from datetime import datetime
from pathlib import Path

import pytest

from builders import claude_sessions

from agentscan import ListFilter, Scanner, demo_home, export_sessions, token_report
from agentscan.errors import ScannerClosed, UsageProblem


def _env(tmp_path: Path) -> dict[str, str]:
    """Absolute cache and data dirs, and a home of their own: never the real one's."""
    return {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache"),
            "AGENTSCAN_DATA_DIR": str(tmp_path / "data")}


@pytest.mark.parametrize(("given", "parameter"), [
    ({"format": "jsonl", "redact": "no"}, "redact"),  # a str is true: it redacted
    ({"format": "jsonl", "redact": 1}, "redact"),
    ({"format": "jsonl", "days": "false"}, "days"),  # it split by day
    ({"format": "sqlite", "days": True}, "days"),
    ({"format": "jsonl", "tz": "UTC"}, "tz"),
    ({"format": "sqlite", "tz": "UTC"}, "tz"),
    ({"format": "jsonl", "days": True, "tz": "Mars/Olympus"}, "tz"),
    ({"format": "jsonl", "days": True, "tz": 5}, "tz"),
    ({"format": "jsonl", "filters": {"providers": "claude"}}, "filters"),
])
def test_export_sessions_refuses_a_value_naming_its_parameter(isolated_home: Path, tmp_path: Path,
                                                              given: dict[str, typing.Any], parameter: str) -> None:
    out = tmp_path / "out.jsonl"
    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UsageProblem) as raised:
        export_sessions(scanner, out, **given)
    assert raised.value.parameter == parameter, raised.value
    assert "--" not in str(raised.value)  # the library's words, not the CLI's options
    assert not out.exists()


@pytest.mark.parametrize(("given", "said", "parameter"), [
    ({"by": 5}, "by must be a str, one of session, day", "by"),
    ({"by": None}, "by must be a str", "by"),
    ({"sort": None}, "sort must be a str, one of date, cost, tokens, not NoneType", "sort"),
    ({"sort": 5}, "sort must be a str", "sort"),
    ({"tz": 5}, "tz must be a tzinfo", "tz"),
    ({"tz": "Mars/Olympus"}, "unknown time zone 'Mars/Olympus'", "tz"),
    ({"tz": " "}, "an empty time zone", "tz"),
    ({"since": "last tuesday"}, "since: cannot read the time 'last tuesday'", "since"),
    ({"until": 5}, "until must be a datetime", "until"),
    ({"cwd": 5}, "cwd must be a str", "cwd"),
    ({"ids": 5}, "names and ids must be a str or several", "ids"),
    ({"ids": [5]}, "names and ids must be str", "ids"),
    ({"providers": 5}, "names and ids must be a str or several", "providers"),
    ({"providers": ["claude", None]}, "names and ids must be str", "providers"),
])
def test_token_report_refuses_a_value_naming_its_parameter(isolated_home: Path, tmp_path: Path,
                                                           given: dict[str, typing.Any], said: str,
                                                           parameter: str) -> None:
    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UsageProblem) as raised:
        token_report(scanner, **given)
    assert str(raised.value).startswith(said), raised.value
    assert raised.value.parameter == parameter


@pytest.mark.parametrize(("given", "parameter"), [
    ({"since": "last tuesday"}, "since"),
    ({"until": 5}, "until"),
    ({"since": datetime(2026, 2, 1), "until": datetime(2026, 1, 1)}, "since"),
    ({"providers": 5}, "providers"),
    ({"providers": [None]}, "providers"),
    ({"cwd": 5}, "cwd"),
    ({"grep": 5}, "grep"),
    ({"running": "no"}, "running"),  # a str is true: it kept only the running sessions
    ({"running": None}, "running"),
    ({"pid": "5"}, "pid"),
    ({"pid": True}, "pid"),
])
def test_a_list_filter_refuses_a_value_naming_its_field(given: dict[str, typing.Any], parameter: str) -> None:
    with pytest.raises(UsageProblem) as raised:
        ListFilter(**given)
    assert raised.value.parameter == parameter


@pytest.mark.parametrize(("given", "parameter"), [
    ({"limit": True}, "limit"),
    ({"limit": "5"}, "limit"),
    ({"limit": 0}, "limit"),
    ({"filters": {"since": None}}, "filters"),
])
@pytest.mark.parametrize("question", ["list_sessions", "list_page"])
def test_a_listing_refuses_a_value_naming_its_parameter(isolated_home: Path, tmp_path: Path, question: str,
                                                        given: dict[str, typing.Any], parameter: str) -> None:
    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UsageProblem) as raised:
        getattr(scanner, question)(**given)
    assert raised.value.parameter == parameter


@pytest.mark.parametrize(("question", "parameter"), [
    (lambda scanner: scanner.all_rows(filters="claude"), "filters"),
    (lambda scanner: scanner.show(None), "query"),
    (lambda scanner: scanner.resolve(""), "query"),
    (lambda scanner: scanner.find(" "), "query"),
    # ``bounds=5`` was a SessionUnreadable asking for a bug report, ``prices=5`` an AttributeError
    (lambda scanner: scanner.show(scanner.list_sessions(limit=1)[0].id, bounds=5), "bounds"),
    (lambda scanner: scanner.show(scanner.list_sessions(limit=1)[0].id, prices=5), "prices"),
    (lambda scanner: scanner.short_ids(5), "ids"),  # a TypeError
    (lambda scanner: scanner.refs_by_id([5]), "ids"),
    (lambda scanner: Scanner(home=5), "home"),
    (lambda scanner: Scanner(home=" "), "home"),
])
def test_the_other_questions_name_theirs(isolated_home: Path, tmp_path: Path,
                                         question: typing.Callable[[Scanner], object], parameter: str) -> None:
    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UsageProblem) as raised:
        question(scanner)
    assert raised.value.parameter == parameter, raised.value


def test_one_str_is_one_id_to_short_ids(isolated_home: Path, tmp_path: Path) -> None:
    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner:
        newest = scanner.list_sessions(limit=1)[0].id
        assert scanner.short_ids(newest)[newest] == scanner.short_ids([newest])[newest]
        assert [ref.id for ref in scanner.refs_by_id(newest)] == [newest]


@pytest.mark.parametrize("use_cache", [True, False])
def test_a_closed_scanner_can_be_looked_at(isolated_home: Path, tmp_path: Path, use_cache: bool) -> None:
    """A debugger, ``hasattr`` and ``inspect.getmembers`` read every property: ``cache``
    raised ``ScannerClosed``.  The questions still refuse, each of them."""
    claude_sessions(isolated_home, 2)
    with Scanner(home=isolated_home, env=_env(tmp_path), use_cache=use_cache) as scanner:
        some_id = scanner.list_sessions(limit=None)[0].id
    assert hasattr(scanner, "cache") and scanner.cache is None
    assert dict(inspect.getmembers(scanner))["cache"] is None
    questions = (lambda: scanner.list_sessions(), lambda: scanner.list_page(), scanner.all_rows,
                 lambda: scanner.show(some_id), lambda: scanner.resolve(some_id), lambda: scanner.find(some_id),
                 lambda: token_report(scanner), lambda: token_report(scanner, ids=some_id), scanner.short_ids,
                 lambda: scanner.refs_by_id([some_id]), scanner.refs,
                 lambda: export_sessions(scanner, tmp_path / "o.jsonl", "jsonl"))
    for question in questions:
        with pytest.raises(ScannerClosed):
            question()
    assert not (tmp_path / "o.jsonl").exists()


def test_export_sessions_and_the_cli_share_one_rule_for_days_and_tz(isolated_home: Path, tmp_path: Path) -> None:
    """One check, each naming its own: a zone for an SQLite index is told why, as ``--tz`` is."""
    from builders import invoke

    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UsageProblem) as raised:
        export_sessions(scanner, tmp_path / "i.sqlite", "sqlite", tz="UTC")
    assert str(raised.value).startswith("tz is for days=True, with jsonl or csv (each day's rows in that zone); "
                                        "an SQLite index's token_days")
    said = invoke("--demo", "export", "-f", "sqlite", "-o", str(tmp_path / "c.sqlite"), "--tz", "UTC").stderr
    assert "error: --tz is for --days, with jsonl or csv (each day's rows in that zone)" in said
