"""What a Python caller of the library meets (pass 50, docs/library.md): errors in the
library's words, a closed scanner refused, ``sort`` typed, ``warnings`` the caller's own."""

from __future__ import annotations

import typing
from datetime import datetime
from pathlib import Path

import pytest

from builders import claude_sessions, invoke

from agentscan import ListFilter, Scanner, demo_home, token_report
from agentscan.errors import AgentscanError, UsageProblem


def _env(tmp_path: Path) -> dict[str, str]:
    """Absolute cache and data dirs, and a home of their own: never the real one's."""
    return {"HOME": str(tmp_path / "home"), "AGENTSCAN_CACHE_DIR": str(tmp_path / "cache"),
            "AGENTSCAN_DATA_DIR": str(tmp_path / "data")}


@pytest.mark.parametrize(("given", "said", "parameter"), [
    ({"by": "bogus"}, "unknown by 'bogus'; choose from: session, day, week", "by"),
    ({"by": "dya"}, "unknown by 'dya' (did you mean day?)", "by"),
    ({"sort": "costs"}, "unknown sort 'costs' (did you mean cost?)", "sort"),
    ({"since": datetime(2026, 2, 1), "until": datetime(2026, 1, 1)}, "since must be before until (the range is empty)",
     "since"),
])
def test_a_library_error_names_the_parameter_not_the_option(isolated_home: Path, tmp_path: Path,
                                                            given: dict[str, typing.Any], said: str,
                                                            parameter: str) -> None:
    """A caller passed ``by=``; ``--by`` is the CLI's word for it (the CLI keeps it)."""
    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UsageProblem) as raised:
        token_report(scanner, **given)
    assert str(raised.value).startswith(said) and "--" not in str(raised.value)
    assert raised.value.parameter == parameter


def test_an_empty_list_window_is_said_in_the_librarys_words() -> None:
    with pytest.raises(UsageProblem, match=r"^since must be before until \(the range is empty\)$"):
        ListFilter(since=datetime(2026, 2, 1), until=datetime(2026, 1, 1))


@pytest.mark.parametrize("command", [["list"], ["tokens"], ["tokens", "--json"], ["export", "-f", "jsonl"]])
def test_the_cli_still_says_its_options(isolated_home: Path, command: list[str]) -> None:
    result = invoke("--demo", *command, "--since", "2026-02-01", "--until", "2026-01-01")
    assert result.exit_code == 2
    assert "error: --since must be before --until (the range is empty)" in result.stderr


@pytest.mark.parametrize("use_cache", [True, False])
def test_a_closed_scanner_refuses_a_question(isolated_home: Path, tmp_path: Path, use_cache: bool) -> None:
    """As httpx refuses a closed client: a ``use_cache=True`` scanner used to answer on,
    silently without its index; ``refresh`` opens it again."""
    from agentscan.errors import ScannerClosed

    claude_sessions(isolated_home, 2)
    with Scanner(home=isolated_home, env=_env(tmp_path), use_cache=use_cache) as scanner:
        assert len(scanner.list_sessions(limit=None)) == 2
    for question in (lambda: scanner.list_sessions(), lambda: token_report(scanner), scanner.all_rows):
        with pytest.raises(ScannerClosed, match="this Scanner is closed") as raised:
            question()
        assert isinstance(raised.value, AgentscanError)
    assert scanner.warnings == []  # what it met stays readable
    scanner.close()  # closing twice is no error
    scanner.refresh()
    try:
        assert len(scanner.list_sessions(limit=None)) == 2
        assert (scanner.cache is not None) == use_cache
    finally:
        scanner.close()


def test_sort_is_typed_as_its_choices() -> None:
    """A typo in ``sort=`` is caught by mypy, as one in ``by=`` is."""
    import agentscan.scan.tokens as tokens

    def choices(name: str) -> tuple[str, ...]:
        annotation = typing.get_type_hints(tokens.token_report, localns={"Scanner": Scanner})[name]
        return typing.get_args(annotation)

    assert choices("sort") == ("date", "cost", "tokens")
    assert "day" in choices("by")


def test_warnings_are_the_callers_own_copy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude" / "projects" / "p").mkdir(parents=True)
    (home / ".claude" / "projects" / "p" / "s.jsonl").write_text("not json\n", encoding="utf-8")
    with Scanner(home=home, env=_env(tmp_path)) as scanner:
        scanner.list_sessions(limit=None)
        seen = scanner.warnings
        assert seen
        seen.clear()
        assert scanner.warnings and scanner.warnings is not scanner.warnings


def test_export_sessions_writes_the_clis_file_and_prints_nothing(isolated_home: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``agentscan export``'s files, from Python (``run_export`` was reachable, not public)."""
    import json
    import sqlite3
    from contextlib import closing

    from agentscan import ExportResult, export_sessions

    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner:
        every = len(scanner.all_rows())
        index = export_sessions(scanner, tmp_path / "s.db", "sqlite")
        lines = export_sessions(scanner, str(tmp_path / "s.jsonl"), "JSONL", filters=ListFilter(providers="claude"))
        days = export_sessions(scanner, tmp_path / "d.csv", "csv", days=True, tz="local")
    assert isinstance(index, ExportResult) and index.format == "sqlite" and index.sessions == every
    with closing(sqlite3.connect(index.path)) as db:
        assert db.execute("select count(*) from sessions").fetchone() == (every,)
    written = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines.sessions == len(written) > 0 and {row["provider"] for row in written} == {"claude"}
    assert days.usage_days > 0
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(("output", "given", "said", "parameter"), [
    ("s.db", {"format": "json"}, "unknown format 'json' (did you mean jsonl?)", "format"),
    ("s.db", {"format": "sqlite", "days": True}, "days=True is for jsonl and csv", "days"),
    ("s.csv", {"format": "csv", "tz": "UTC"}, "tz is for days=True", "tz"),
    ("-", {"format": "jsonl"}, "output must be a file's path", "output"),
])
def test_export_sessions_refuses_in_the_librarys_words(isolated_home: Path, tmp_path: Path, output: str,
                                                       given: dict[str, typing.Any], said: str, parameter: str) -> None:
    from agentscan import export_sessions

    target = output if output == "-" else str(tmp_path / output)
    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UsageProblem) as raised:
        export_sessions(scanner, target, **given)
    assert str(raised.value).startswith(said) and "--" not in str(raised.value)
    assert raised.value.parameter == parameter
    assert not (tmp_path / output).exists() and not Path("-").exists()


def test_an_unknown_provider_gives_a_library_caller_no_option_hint(isolated_home: Path, tmp_path: Path) -> None:
    """``-p`` and ``--cwd`` are the CLI's: its hint is said by the CLI alone."""
    from agentscan.errors import UnknownProvider

    with Scanner(home=demo_home(), env=_env(tmp_path)) as scanner, pytest.raises(UnknownProvider) as raised:
        token_report(scanner, providers="my-project")
    assert raised.value.details == () and "--" not in str(raised.value)
    result = invoke("--demo", "tokens", "-p", "my-project")
    assert result.exit_code == 2 and "hint: -p is the provider (the agent); `list` and `tokens` pick a project with " \
        "--cwd PATH\n" in result.stderr
