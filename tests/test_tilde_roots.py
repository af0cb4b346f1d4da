"""A ``~`` in a setting that names a provider's root is the scan's home, for every provider.

``Path.expanduser`` reads the process's ``$HOME``, which ``--home`` does not change: with
``HOME=A`` and ``--home B``, ``CLAUDE_CONFIG_DIR=~/.cc`` must read ``B/.cc``, as
``CODEX_HOME=~/x`` reads ``B/x``.  A relative entry (``../beside``) is never read: the
agent resolved it against a directory we cannot know, so it is ignored with a warning.
Each test lays out a decoy under the process's home (``isolated_home``, A) that the old
expansion would have read.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.providers import get_provider, iter_providers
from agentscan.providers.cursor.roots import state_db_root
from agentscan.scan.scanner import Scanner
from builders import claude_user, write_jsonl
from cursor_builders import composer_data, make_state_db

runner = CliRunner()
IN_B = "b0b0b0b0-1111-4222-8333-444444444444"
IN_A = "a0a0a0a0-1111-4222-8333-444444444444"
BESIDE = "5a5a5a5a-1111-4222-8333-444444444444"
IDE_B = "1de0000b-0000-4000-8000-000000000001"
IDE_A = "1de0000a-0000-4000-8000-000000000002"
IDE_BESIDE = "1de00005-0000-4000-8000-000000000003"
PROVIDERS = ("claude", "codex", "gemini", "cursor")


@pytest.fixture
def other_home(tmp_path: Path) -> Path:
    """B: the home the scan reads (``--home``), not the process's ``$HOME`` (A)."""
    home = tmp_path / "other"
    home.mkdir()
    return home


def _claude_session(config_dir: Path, session: str, title: str) -> None:
    write_jsonl(config_dir / "projects" / "-p" / f"{session}.jsonl", [claude_user(session, "2026-11-01T10:00:00Z", title)])


def _state_db(path: Path, composer: str, title: str) -> Path:
    return make_state_db(path, composers=[composer_data(composer, name=title, updated=1_785_000_000_000, bubbles=["b"])])


def _ids(scanner: Scanner) -> set[str]:
    return {row.native_id for row in scanner.list_sessions()}


# -- ~ is the scan's home ---------------------------------------------------------


def test_claude_config_dir_tilde_is_the_scan_home(isolated_home: Path, other_home: Path) -> None:
    _claude_session(other_home / ".cc", IN_B, "under --home")
    _claude_session(isolated_home / ".cc", IN_A, "under $HOME")
    scanner = Scanner(home=other_home, env={"CLAUDE_CONFIG_DIR": "~/.cc"}, provider_names=["claude"])
    assert _ids(scanner) == {IN_B}
    assert scanner.warnings == []


def test_cursor_state_db_tilde_is_the_scan_home(isolated_home: Path, other_home: Path) -> None:
    _state_db(other_home / "x" / "state.vscdb", IDE_B, "from --home")
    _state_db(isolated_home / "x" / "state.vscdb", IDE_A, "from $HOME")
    scanner = Scanner(home=other_home, env={"CURSOR_STATE_DB": "~/x/state.vscdb"}, provider_names=["cursor"])
    assert _ids(scanner) == {IDE_B}
    root = state_db_root(scanner.ctx)
    assert (root.path, root.source, root.explicit) == (other_home / "x" / "state.vscdb", "CURSOR_STATE_DB", True)


def test_the_cli_home_option_moves_both(isolated_home: Path, other_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _claude_session(other_home / ".cc", IN_B, "under --home")
    _claude_session(isolated_home / ".cc", IN_A, "under $HOME")
    _state_db(other_home / "x" / "state.vscdb", IDE_B, "from --home")
    _state_db(isolated_home / "x" / "state.vscdb", IDE_A, "from $HOME")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "~/.cc")
    monkeypatch.setenv("CURSOR_STATE_DB", "~/x/state.vscdb")
    result = runner.invoke(app, ["--home", str(other_home), "list", "--json"])
    assert result.exit_code == 0, result.output
    assert {row["native_id"] for row in orjson.loads(result.stdout)["sessions"]} == {IN_B, IDE_B}
    doctor = runner.invoke(app, ["--home", str(other_home), "doctor", "--json"])
    assert doctor.exit_code == 0, doctor.output
    providers = {p["provider"]: p for p in orjson.loads(doctor.stdout)["providers"]}
    (claude,) = providers["claude"]["roots"]
    assert (claude["path"], claude["source"], claude["readable"], claude["note"]) == (
        str(other_home / ".cc" / "projects"), "CLAUDE_CONFIG_DIR", True, None)
    database = next(r for r in providers["cursor"]["roots"] if r["kind"] == "database")
    assert (database["path"], database["source"], database["readable"]) == (
        str(other_home / "x" / "state.vscdb"), "CURSOR_STATE_DB", True)


@pytest.mark.parametrize(("variable", "value", "expected"), [
    ("CLAUDE_CONFIG_DIR", "~", "projects"),
    ("CLAUDE_CONFIG_DIR", "~/.cc", ".cc/projects"),
    ("CLAUDE_CONFIG_DIR", "~/a/projects, ~/b", "a/projects b/projects"),
    ("CURSOR_STATE_DB", "~/x/state.vscdb", "x/state.vscdb"),
    ("CODEX_HOME", "~/.cx", ".cx/sessions .cx/archived_sessions .cx/state_*.sqlite"),
    ("CODEX_SQLITE_HOME", "~/db", "db/state_*.sqlite"),
    ("GEMINI_CLI_HOME", "~/g", "g/.gemini/tmp g/.gemini/projects.json"),
    ("GEMINI_DATA_DIR", "~/t1,~/t2", "t1 t2 projects.json"),
])
def test_every_setting_expands_tilde_alike(other_home: Path, variable: str, value: str, expected: str) -> None:
    """Each provider's setting names its places under the scan's home, none warned of."""
    (provider,) = [p for p in iter_providers(PROVIDERS) if variable in p.env_vars]
    ctx = ScanContext.create(home=other_home, env={variable: value})
    assert [r.path for r in provider.roots(ctx) if r.source == variable] == [other_home / p for p in expected.split()]
    assert ctx.warnings.items == []


# -- relative entries (../beside) are never read ----------------------------------


@pytest.fixture
def dir_beside_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp/work`` as the working directory, with sessions in ``tmp/beside`` (``../beside``)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    beside = tmp_path / "beside"
    _claude_session(beside, BESIDE, "relative to the cwd")
    _state_db(beside / "state.vscdb", IDE_BESIDE, "relative to the cwd")
    return beside


@pytest.mark.parametrize("value", ["../beside", "~someone", "../beside, ~nobody/x"])
def test_a_relative_claude_config_dir_is_ignored(isolated_home: Path, dir_beside_cwd: Path, value: str) -> None:
    _claude_session(isolated_home / ".claude", IN_A, "the default root")
    scanner = Scanner(home=isolated_home, env={"CLAUDE_CONFIG_DIR": value}, provider_names=["claude"])
    assert _ids(scanner) == {IN_A}  # the defaults stand, as for a relative CODEX_HOME
    entries = [entry.strip() for entry in value.split(",")]
    assert [w.path for w in scanner.warnings] == entries
    assert all("CLAUDE_CONFIG_DIR is relative, so it was ignored" in w.message for w in scanner.warnings)
    roots = get_provider("claude").roots(scanner.ctx)
    assert all(not r.explicit and "not an absolute path" in (r.note or "") for r in roots)


def test_a_relative_cursor_state_db_is_never_opened(isolated_home: Path, dir_beside_cwd: Path) -> None:
    scanner = Scanner(home=isolated_home, env={"CURSOR_STATE_DB": "../beside/state.vscdb"}, provider_names=["cursor"])
    assert IDE_BESIDE not in _ids(scanner)
    assert [w.path for w in scanner.warnings] == ["../beside/state.vscdb"]
    root = state_db_root(scanner.ctx)
    assert not root.explicit and root.source != "CURSOR_STATE_DB" and "CURSOR_STATE_DB entry" in (root.note or "")


@pytest.mark.parametrize("variable", ["GEMINI_CLI_HOME", "GEMINI_DATA_DIR"])
def test_a_relative_gemini_setting_is_ignored(isolated_home: Path, dir_beside_cwd: Path, variable: str) -> None:
    ctx = ScanContext.create(home=isolated_home, env={variable: "../beside"})
    (root,) = [r for r in get_provider("gemini").roots(ctx) if r.kind == "sessions"]
    assert (root.path, root.explicit) == (isolated_home / ".gemini" / "tmp", False)
    assert f"{variable} entry '../beside' ignored" in (root.note or "")


def test_doctor_says_why_a_relative_setting_was_ignored(dir_beside_cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "../beside")
    monkeypatch.setenv("CURSOR_STATE_DB", "../beside/state.vscdb")
    result = runner.invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    providers = {p["provider"]: p for p in orjson.loads(result.stdout)["providers"]}
    for name, variable in (("claude", "CLAUDE_CONFIG_DIR"), ("cursor", "CURSOR_STATE_DB")):
        noted = [r for r in providers[name]["roots"] if r["note"] and variable in r["note"]]
        assert noted and all(str(dir_beside_cwd) not in r["path"] for r in providers[name]["roots"]), providers[name]
        assert providers[name]["sessions"] == 0
    human = runner.invoke(app, ["doctor"])
    assert "CLAUDE_CONFIG_DIR entry '../beside' ignored: not an absolute path" in human.stdout
    assert "CURSOR_STATE_DB entry '../beside/state.vscdb' ignored" in human.stdout
