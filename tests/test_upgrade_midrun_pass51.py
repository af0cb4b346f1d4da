"""An upgrade in place while a cron export runs (pass 51).

``pip install -U agentscan`` replaced the files while an export was scanning: the running
process then imported a module of the new version lacking a name the old one asked for, and
each session it reached was skipped as "agentscan could not read this session (ImportError)"
(1,000 of 1,500 in a bench home), the export written with a third of its ``token_days`` rows,
exit 0.  An import of agentscan's own code failing is no session's fault: the command fails
(exit 1), nothing written, and says to run it again.  A missing optional library a provider
imports still costs only its sessions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_sessions, invoke


def _failing(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    def failing(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - a stand-in
        raise ImportError(f"cannot import name 'gone' from '{name}'", name=name)

    # (A session's row, and its usage: SQLite reads both, CSV the row alone.)
    monkeypatch.setattr(ClaudeProvider, "row", failing)
    monkeypatch.setattr(ClaudeProvider, "session_usage", failing)


@pytest.mark.parametrize("fmt", ["csv", "sqlite"])
def test_agentscan_s_own_import_failing_mid_run_fails_the_export(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    claude_sessions(isolated_home, 3)
    _failing(monkeypatch, "agentscan.providers.claude.resumes")
    out = tmp_path / f"out.{fmt}"
    result = invoke("--no-cache", "export", "-o", str(out))
    assert result.exit_code == 1, result.output
    said = " ".join(result.stderr.split())
    assert "agentscan's files changed while this command ran (an upgrade in place?)" in said
    assert "run it again" in said and "could not read this session" not in said
    assert not out.exists()


def test_an_optional_library_missing_still_costs_only_its_sessions(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sessions(isolated_home, 2)
    _failing(monkeypatch, "zstandard")
    result = invoke("--no-cache", "export", "-o", str(tmp_path / "out.csv"))
    assert result.exit_code == 0, result.output
    assert "could not read this session (ImportError)" in " ".join(result.stderr.split())


def test_an_own_import_failing_outside_a_session_is_one_line_not_a_traceback(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(The write's own modules, imported late.)"""
    import agentscan.export.run as run

    def failing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a stand-in
        raise ImportError("cannot import name 'gone' from 'agentscan.export.sqlite'", name="agentscan.export.sqlite")

    monkeypatch.setattr(run, "run_export", failing)
    result = invoke("export", "-o", str(tmp_path / "out.csv"))
    assert result.exit_code == 1 and result.exception is not None and isinstance(result.exception, SystemExit)
    assert "agentscan's files changed while this command ran" in " ".join(result.stderr.split())


def test_another_import_failing_is_still_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli.state import run_guarded

    def failing() -> None:
        raise ImportError("no module named 'zstandard'", name="zstandard")

    with pytest.raises(ImportError):
        run_guarded(failing)
