"""Pass 49: ``agentscan --strict doctor`` as a cron job's health check exited 0 on the very
settings that fail ``export`` (a provider variable or ``--home`` naming a folder that is not
there), and a relative AGENTSCAN_CACHE_DIR was listed as the Claude Code provider's warning."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_session_file, claude_user, invoke

S = "49494949-0000-4000-8000-0000000000d0"


@pytest.fixture
def a_session(isolated_home: Path) -> Path:
    return claude_session_file(isolated_home, S, [claude_user(S, "2026-11-01T10:00:00.000Z", "task")])


def test_a_named_root_that_is_not_there_fails_strict_doctor_as_it_fails_export(
        a_session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nope"
    monkeypatch.setenv("CODEX_HOME", str(missing))
    exported = invoke("export", "-o", str(tmp_path / "idx.sqlite"), "-q")
    assert exported.exit_code == 1
    checked = invoke("--strict", "doctor")
    assert checked.exit_code == 1
    assert "Codex CLI [codex]" in checked.stdout  # the report all the same
    assert checked.stderr.strip() == exported.stderr.strip()
    assert checked.stderr.startswith(f"error: Codex CLI: no readable root among {missing}/sessions (CODEX_HOME)")
    assert invoke("doctor").exit_code == 0  # the report alone reports, as it always did


def test_a_missing_codex_home_has_no_note_that_all_is_well(a_session: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nope"))
    report = orjson.loads(invoke("doctor", "--json").stdout)
    (codex,) = [p for p in report["providers"] if p["provider"] == "codex"]
    (database,) = [root for root in codex["roots"] if root["kind"] == "database"]
    assert database["problem"] == "folder does not exist" and database["note"] is None


def test_a_home_that_is_not_there_fails_strict_doctor(a_session: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    checked = invoke("--home", str(missing), "--strict", "doctor")
    assert checked.exit_code == 1
    assert checked.stderr.strip() == f"error: --home {missing}: no such directory"
    assert invoke("--home", str(missing), "doctor").exit_code == 0


def test_strict_doctor_of_a_sound_home_exits_0(a_session: Path) -> None:
    assert invoke("--strict", "doctor").exit_code == 0


def test_a_relative_cache_dir_is_the_cache_sections_not_a_providers(a_session: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", "relcache")
    monkeypatch.chdir(a_session.parent)
    report = orjson.loads(invoke("doctor", "--json").stdout)
    assert all(not provider["warnings"] for provider in report["providers"])
    assert report["cache"]["ignored"] == "relcache"
    assert [m.split(":")[0] for m in report["cache"]["warnings"]] == [
        "AGENTSCAN_CACHE_DIR is relative, so it was ignored (only absolute paths are used)"]
    text = invoke("doctor").stdout
    claude_part = text.split("Claude Code [claude]")[1].split("\n\n")[0]
    assert "AGENTSCAN_CACHE_DIR" not in claude_part
    assert "note: AGENTSCAN_CACHE_DIR is a relative path (relcache), so it was ignored" in text
