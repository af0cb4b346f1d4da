"""Warnings are said for what this run met: a setting's warning is not said again once the
setting is gone (``scan.answers``, ``scan.memo``), ``doctor`` counts each warning once, and
``doctor --strict`` fails on them as every other command does."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.demo import demo_home
from agentscan.scan.scanner import Scanner
from test_discovery_memo import S1, S2, session

runner = CliRunner()

#: what a relative ``CODEX_HOME`` says (``providers.codex.roots``): a warning of the setting, not of a file
RELATIVE = "CODEX_HOME is relative, so it was ignored"
#: the demo's Codex session emptied by ``emptied_codex_rollout``
CODEX_ID = "019ab7c1"


def run(*argv: str, env: dict[str, str | None] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(argv), env=env)
    return result.exit_code, result.stdout, result.stderr


def two_sessions(home: Path) -> None:
    session(home, S1, 1, 100)
    session(home, S2, 2, 200)


# -- a setting's warning, remembered with an answer ----------------------------------


ASKED = [
    pytest.param(["list"], id="list"),
    pytest.param(["list", "--json"], id="list-json"),
    pytest.param(["list", "--all"], id="list-all"),
    pytest.param(["tokens"], id="tokens"),
    pytest.param(["tokens", "--json"], id="tokens-json"),
    pytest.param(["tokens", "--by", "day"], id="tokens-by-day"),
    pytest.param(["tokens", "--json", "--by", "day"], id="tokens-json-by-day"),
    # Never remembered whole: their discovery is (``scan.memo``).
    pytest.param(["list", "--since", "3650d"], id="list-since"),
    pytest.param(["tokens", S1[:8]], id="tokens-of-a-session"),
    pytest.param(["show", S1[:8]], id="show"),
]


@pytest.mark.parametrize("argv", ASKED)
def test_a_setting_warning_is_not_said_again_once_the_setting_is_gone(isolated_home: Path, argv: list[str]) -> None:
    two_sessions(isolated_home)
    code, out, err = run(*argv, env={"CODEX_HOME": "relative"})
    assert code == 0 and RELATIVE in out + err
    for _ in range(2):  # the first run of these settings, then a remembered one
        code, out, err = run("--strict", *argv)
        assert (code, RELATIVE in out + err) == (0, False), err
    assert run("--strict", *argv, env={"CODEX_HOME": "relative"})[0] == 1  # and said again when set again


@pytest.mark.parametrize("json", [False, True])
def test_an_answer_is_still_remembered_with_the_warnings_of_its_settings(
        isolated_home: Path, pages: list[int | None], json: bool) -> None:
    """The settings are part of the key, not a reason to forget: the same settings print the
    same page again, warning included."""
    two_sessions(isolated_home)
    argv = ["list", "--json"] if json else ["list"]
    relative = [run(*argv, env={"CODEX_HOME": "relative"}) for _ in range(2)]
    assert pages == [25]
    assert relative[0] == relative[1] and RELATIVE in relative[0][1] + relative[0][2]
    unset = [run(*argv) for _ in range(2)]
    assert pages == [25, 25]  # other settings: another answer, remembered in turn
    assert unset[0] == unset[1] and RELATIVE not in unset[0][1] + unset[0][2]
    if json:
        assert orjson.loads(unset[0][1])["warnings"] == []


def test_settings_that_say_the_same_share_the_remembered_answer(isolated_home: Path, pages: list[int | None]) -> None:
    """A variable unset, or set to what it defaults to, chooses the same roots and says
    nothing: a cron job and a shell that differ only so share one answer, not evict each other's."""
    two_sessions(isolated_home)
    unset: dict[str, str | None] = {"XDG_CONFIG_HOME": None}
    default: dict[str, str | None] = {"XDG_CONFIG_HOME": str(isolated_home / ".config")}
    outputs = [run("list", env=default if turn % 2 else unset) for turn in range(4)]
    assert pages == [25] and len(set(outputs)) == 1


def test_a_stored_discovery_says_the_warnings_of_its_own_settings_only(isolated_home: Path) -> None:
    """The library: a discovery taken from the index (``scan.memo``) under other settings
    than those it was stored with is not taken with their warnings."""
    two_sessions(isolated_home)

    def warnings(**settings: str) -> list[str]:
        with Scanner(env={**os.environ, **settings}, use_cache=True, memo_discovery=True) as scanner:
            assert len(scanner.refs()) == 2
            return [warning.message for warning in scanner.warnings]

    assert any(RELATIVE in message for message in warnings(CODEX_HOME="relative"))
    assert warnings() == []
    assert warnings() == []
    assert any(RELATIVE in message for message in warnings(CODEX_HOME="relative"))


# -- doctor --------------------------------------------------------------------------


def emptied_codex_rollout(home: Path) -> Path:
    """The demo home in ``home``, with one Codex rollout emptied (one warning: "empty file")."""
    shutil.copytree(demo_home(), home, dirs_exist_ok=True)
    (rollout,) = (home / ".codex").rglob(f"rollout-*{CODEX_ID}*.jsonl")
    rollout.write_bytes(b"")
    return rollout


def doctor_json(*argv: str, env: dict[str, str] | None = None) -> tuple[int, dict]:
    code, out, _ = run(*argv, "doctor", "--json", env=env)
    return code, orjson.loads(out)


def by_provider(report: dict) -> dict[str, dict[str, int]]:
    return {provider["provider"]: provider["warnings"] for provider in report["providers"]}


def test_doctor_counts_each_warning_once(isolated_home: Path) -> None:
    rollout = emptied_codex_rollout(isolated_home)
    code, report = doctor_json()
    assert code == 0
    assert [warning["message"] for warning in report["warnings"]] == ["empty file"]
    assert report["warnings"][0]["path"].endswith(rollout.name)
    assert by_provider(report) == {"claude": {}, "codex": {"empty file": 1}, "gemini": {}, "cursor": {}}
    code, out, _ = run("doctor")
    assert code == 0 and "1 × empty file" in out and "2 × empty file" not in out


def test_doctor_counts_a_setting_warning_once_for_its_own_provider(isolated_home: Path) -> None:
    emptied_codex_rollout(isolated_home)
    code, report = doctor_json(env={"CODEX_HOME": "relative"})
    assert code == 0
    assert len(report["warnings"]) == 2
    counts = by_provider(report)
    assert counts["codex"] == {f"{RELATIVE} (only absolute paths are used)": 1, "empty file": 1}
    assert counts["claude"] == counts["gemini"] == counts["cursor"] == {}
    assert sum(sum(kinds.values()) for kinds in counts.values()) == len(report["warnings"])


@pytest.mark.parametrize("where", ["before", "after"])
def test_doctor_strict_exits_one_on_warnings_and_still_reports(isolated_home: Path, where: str) -> None:
    shutil.copytree(demo_home(), isolated_home, dirs_exist_ok=True)

    def strict(*argv: str) -> list[str]:
        return ["--strict", "doctor", *argv] if where == "before" else ["doctor", *argv, "--strict"]

    assert run(*strict())[0] == 0  # the demo home raises no warning
    assert run(*strict("--json"))[0] == 0
    emptied_codex_rollout(isolated_home)
    assert run("doctor")[0] == 0 and run("doctor", "--json")[0] == 0  # without --strict: problems reported only
    code, out, err = run(*strict())
    assert code == 1 and "1 × empty file" in out and "--strict" in err
    code, out, err = run(*strict("--json"))
    assert code == 1 and "--strict" in err
    document = orjson.loads(out)
    assert document["schema"] == "agentscan.doctor/1" and len(document["warnings"]) == 1
