"""`export -o` and `otlp -o` write nothing inside an agent's own folder: the folder that holds
its roots (`~/.codex`, not only `~/.codex/sessions`), wherever an env var moves it, reached
through a symlink too.  A `state_9.sqlite` written into `~/.codex` became Codex's thread index
and broke every later read; a path merely beside those folders is still written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from agentscan.cli import app

SID = "aaaaaaaa-1111-4222-8333-444444444444"


def session(home: Path) -> Path:
    return claude_session_file(home, SID, [
        claude_user(SID, "2026-11-01T10:00:00Z", "work"),
        claude_assistant(SID, "2026-11-01T10:00:01Z", msg_id="m-1", request_id="r-1", usage=claude_usage(5, 7)),
    ])


def cli(*argv: str):  # noqa: ANN201 - click's Result
    return CliRunner().invoke(app, list(argv))


def refused(result, provider: str, folder: Path) -> bool:  # noqa: ANN001 - click's Result
    said = " ".join(result.stderr.split())  # a long line may be wrapped
    home = os.environ["HOME"]
    shown = {str(folder), "~" + str(folder)[len(home):] if str(folder).startswith(home + os.sep) else str(folder)}
    return (result.exit_code == 1 and f"refusing to write inside {provider}'s own folder" in said
            and any(f"own folder {name}" in said for name in shown))


#: each agent's own folder under the home (isolated_home sets XDG_CONFIG_HOME to ~/.config)
FOLDERS = [
    ("claude", ".claude"),
    ("claude", ".config/claude"),
    ("codex", ".codex"),
    ("gemini", ".gemini"),
    ("cursor", ".cursor"),
    ("cursor", ".config/Cursor/User"),
]


@pytest.mark.parametrize("fmt", ["sqlite", "jsonl", "csv"])
@pytest.mark.parametrize(("provider", "folder"), FOLDERS)
def test_an_export_into_an_agent_s_own_folder_is_refused(isolated_home: Path, provider: str, folder: str,
                                                         fmt: str) -> None:
    session(isolated_home)
    base = isolated_home / folder
    base.mkdir(parents=True, exist_ok=True)
    target = base / f"x.{fmt}"
    result = cli("export", "-f", fmt, "-o", str(target))
    assert refused(result, provider, base), result.stderr
    assert not target.exists() and "wrote" not in result.stdout


def test_the_reported_codex_thread_index_case(isolated_home: Path) -> None:
    session(isolated_home)
    codex = isolated_home / ".codex"
    (codex / "sessions").mkdir(parents=True)
    target = codex / "state_9.sqlite"
    result = cli("-q", "export", "-f", "sqlite", "-o", str(target))
    assert refused(result, "codex", codex), result.stderr
    assert not target.exists()
    # Deeper folders of Cursor's app data are its own too (its state databases' folders).
    storage = isolated_home / ".config" / "Cursor" / "User" / "globalStorage"
    storage.mkdir(parents=True)
    result = cli("export", "-f", "csv", "-o", str(storage / "x.csv"))
    assert result.exit_code == 1 and "cursor's own folder" in result.stderr
    assert not (storage / "x.csv").exists()


def test_a_path_through_a_symlink_is_refused(isolated_home: Path, tmp_path: Path) -> None:
    session(isolated_home)
    codex = isolated_home / ".codex"
    codex.mkdir()
    link = tmp_path / "exports"
    link.symlink_to(codex)  # a folder that is ~/.codex under another name
    result = cli("export", "-f", "csv", "-o", str(link / "x.csv"))
    assert refused(result, "codex", codex), result.stderr
    assert not (codex / "x.csv").exists()
    # An output file that is a link into it (written through: its target would be replaced).
    dangling = tmp_path / "out.jsonl"
    dangling.symlink_to(codex / "x.jsonl")
    result = cli("export", "-f", "jsonl", "-o", str(dangling))
    assert refused(result, "codex", codex), result.stderr
    assert not (codex / "x.jsonl").exists()
    # `..` is taken from the path as written (the output is made absolute first): beside the link.
    (codex / "sessions").mkdir()
    (tmp_path / "deep").symlink_to(codex / "sessions")
    result = cli("export", "-f", "csv", "-o", str(tmp_path / "deep") + "/../y.csv")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "y.csv").is_file() and not (codex / "y.csv").exists()


@pytest.mark.parametrize(("var", "value", "provider", "folder"), [
    ("CODEX_HOME", "codex-home", "codex", "codex-home"),
    ("CODEX_SQLITE_HOME", "codex-db", "codex", "codex-db"),
    ("CLAUDE_CONFIG_DIR", "claude-config", "claude", "claude-config"),
    ("GEMINI_CLI_HOME", "gemini-home", "gemini", "gemini-home/.gemini"),
    ("GEMINI_DATA_DIR", "gemini-data/tmp", "gemini", "gemini-data/tmp"),
])
def test_folders_named_by_env_vars_are_refused(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               var: str, value: str, provider: str, folder: str) -> None:
    session(isolated_home)
    base = tmp_path / folder
    base.mkdir(parents=True)
    if var == "CLAUDE_CONFIG_DIR":
        (base / "projects").mkdir()  # a root named by an env var must be readable
    monkeypatch.setenv(var, str(tmp_path / value))
    # Asked of every agent, not only those exported: --provider claude still never writes into ~/.codex.
    for fmt in ("sqlite", "csv"):
        result = cli("export", "-f", fmt, "-p", "claude", "-o", str(base / f"x.{fmt}"))
        assert refused(result, provider, base), result.stderr
        assert not (base / f"x.{fmt}").exists()


def test_the_real_home_s_folders_stay_refused_under_home(isolated_home: Path, tmp_path: Path) -> None:
    other = tmp_path / "backup"
    session(other)
    codex = isolated_home / ".codex"
    codex.mkdir()
    result = cli("--home", str(other), "export", "-f", "csv", "-o", str(codex / "x.csv"))
    assert refused(result, "codex", codex), result.stderr
    assert not (codex / "x.csv").exists()


def test_otlp_output_into_an_agent_s_folder_is_refused(isolated_home: Path) -> None:
    session(isolated_home)
    codex = isolated_home / ".codex"
    codex.mkdir()
    result = cli("otlp", "-o", str(codex / "traces.jsonl"))
    assert refused(result, "codex", codex), result.stderr
    assert not (codex / "traces.jsonl").exists()
    projects = isolated_home / ".claude" / "projects"
    result = cli("otlp", "-o", str(projects / "traces.jsonl"))
    assert refused(result, "claude", isolated_home / ".claude"), result.stderr
    assert not (projects / "traces.jsonl").exists()


@pytest.mark.parametrize("place", [".codex-backup/x", "exports/x", ".claude-old/x", "x"])
def test_a_path_beside_an_agent_s_folder_is_written(isolated_home: Path, place: str) -> None:
    session(isolated_home)
    target = isolated_home / place
    target.parent.mkdir(parents=True, exist_ok=True)
    for fmt in ("csv", "sqlite"):
        result = cli("export", "-f", fmt, "-o", f"{target}.{fmt}")
        assert result.exit_code == 0, result.stderr
        assert Path(f"{target}.{fmt}").is_file()
    result = cli("otlp", "-o", f"{target}.otlp.jsonl")
    assert result.exit_code == 0, result.stderr
    assert Path(f"{target}.otlp.jsonl").is_file()


def test_a_folder_named_by_an_env_var_at_the_home_does_not_refuse_the_whole_home(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # CODEX_HOME=~ makes ~/sessions its roots: the home itself is not taken as Codex's own.
    session(isolated_home)
    monkeypatch.setenv("CODEX_HOME", str(isolated_home))
    (isolated_home / "sessions").mkdir()  # a root named by an env var must be readable
    result = cli("export", "-f", "csv", "-o", str(isolated_home / "x.csv"))
    assert result.exit_code == 0, result.stderr
    result = cli("export", "-f", "csv", "-o", str(isolated_home / "sessions" / "x.csv"))
    assert refused(result, "codex", isolated_home / "sessions"), result.stderr


@pytest.mark.parametrize(("var", "value"), [
    ("GEMINI_DATA_DIR", "area/gemini"),
    ("CURSOR_STATE_DB", "area/state.vscdb"),
])
def test_never_above_what_an_env_var_names(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           var: str, value: str) -> None:
    """A folder (or file) an env var names is the agent's; the folder holding it is not: a
    ``state.vscdb`` copied into ``/tmp`` does not make all of ``/tmp`` Cursor's."""
    session(isolated_home)
    (tmp_path / value).parent.mkdir(parents=True, exist_ok=True)
    if var == "GEMINI_DATA_DIR":
        (tmp_path / value).mkdir()
    else:
        (tmp_path / value).write_bytes(b"")
    monkeypatch.setenv(var, str(tmp_path / value))
    beside = tmp_path / "area" / "exports" / "x.csv"
    beside.parent.mkdir()
    result = cli("export", "-f", "csv", "-p", "claude", "-o", str(beside))
    assert result.exit_code == 0, result.stderr
    assert beside.is_file()
    inside = tmp_path / value / "x.csv" if var == "GEMINI_DATA_DIR" else tmp_path / value
    refused_there = cli("export", "-f", "csv", "-p", "claude", "-o", str(inside))
    assert refused_there.exit_code == 1 and "own folder" in refused_there.stderr


def test_a_root_that_links_elsewhere_is_refused_where_it_leads(isolated_home: Path, tmp_path: Path) -> None:
    """``~/.claude/projects`` a link to another disk: an export written there would be
    read back as a session."""
    elsewhere = tmp_path / "projdata"
    (elsewhere / "-w").mkdir(parents=True)
    claude = isolated_home / ".claude"
    claude.mkdir()
    (claude / "projects").symlink_to(elsewhere)
    session(isolated_home)
    target = elsewhere / "-w" / "out.jsonl"
    result = cli("export", "-f", "jsonl", "-o", str(target))
    assert result.exit_code == 1 and "refusing to write inside claude's own folder" in " ".join(result.stderr.split())
    assert not target.exists()


def test_the_library_s_otlp_run_refuses_it_too(isolated_home: Path) -> None:
    """The rule is the library's, not the command line's: a library caller writes no file there."""
    from agentscan.errors import OutputFailed
    from agentscan.otlp.export import run
    from agentscan.otlp.sources import Selection
    from agentscan.scan.scanner import Scanner

    session(isolated_home)
    codex = isolated_home / ".codex"
    codex.mkdir()
    with Scanner(home=isolated_home) as scanner, pytest.raises(OutputFailed, match="codex's own folder"):
        run(scanner, Selection(), output=codex / "traces.jsonl")
    assert not (codex / "traces.jsonl").exists()
