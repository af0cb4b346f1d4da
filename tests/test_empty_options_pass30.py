"""An option given empty (``--since "$FROM"`` with the variable unset) is a usage error, on
the fast path and through Typer alike, instead of answering as if it were left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.cli import fastpath
from agentscan.timeutil import zone
from agentscan.whentext import parse_when
from agentscan.errors import UsageProblem
from builders import claude_session_file, claude_user, invoke

EMPTY = [
    (["tokens", "--since", ""], "--since is empty"),
    (["tokens", "--until", " "], "--until is empty"),
    (["tokens", "--tz", ""], "--tz is empty"),
    (["tokens", "--by", "day", "--tz="], "--tz is empty"),
    (["list", "--since", ""], "--since is empty"),
    (["list", "--cwd", ""], "--cwd is empty"),
    (["list", "--grep="], "--grep is empty"),
    (["export", "-f", "csv", "-o", "-", "--since", ""], "--since is empty"),
    (["otlp", "-o", "-", "--since", ""], "--since is empty"),
]


@pytest.fixture(autouse=True)
def a_session(isolated_home: Path) -> None:
    claude_session_file(isolated_home, "3f0c2a1b-5d4e-4f6a-8b7c-9d0e1f2a3b4c",
                        [claude_user("3f0c2a1b-5d4e-4f6a-8b7c-9d0e1f2a3b4c", "2026-11-01T10:00:00Z", "hello", cwd="/w")])


@pytest.mark.parametrize(("argv", "said"), EMPTY)
def test_an_empty_option_is_a_usage_error(argv: list[str], said: str) -> None:
    result = invoke(*argv)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {said} (is a variable unset?): ")


@pytest.mark.parametrize(("argv", "said"), [case for case in EMPTY if case[0][0] in ("list", "tokens")])
def test_the_fast_path_says_the_same(argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert fastpath.parse(argv) is not None  # taken by the fast path, not handed to Typer
    capsys.readouterr()
    code = fastpath.run(argv)
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == invoke(*argv).stderr and err.startswith(f"error: {said} (is a variable unset?): ")


def test_the_library_refuses_an_empty_time_and_zone_too() -> None:
    with pytest.raises(UsageProblem):
        parse_when("  ")
    with pytest.raises(UsageProblem):
        zone("")
    assert zone(None) is None


def test_an_empty_export_says_which_option_left_nothing(tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    result = invoke("export", "-f", "csv", "-o", str(out), "--since", "2099-01-01", "-p", "claude")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote 0 sessions to {out} (csv): no claude session updated since 2099-01-01 00:00")
    result = invoke("export", "-f", "csv", "-o", str(out))
    assert result.stdout == f"wrote 1 session to {out} (csv)\n"


def test_an_empty_otlp_output_is_a_usage_error_as_export_s_is() -> None:
    for command in (["otlp", "--output", ""], ["export", "-f", "csv", "-o", ""]):
        result = invoke(*command)
        assert result.exit_code == 2, command
        assert result.stderr == ("error: --output is empty (is a variable unset?): give a file path, or - for stdout\n"
                                 f"Try 'agentscan {command[0]} --help' for help.\n"), command
