"""Hostile file systems: unreadable paths, symlink loops and escapes, undecodable names, odd env roots.

Each case is laid out beside the provider's ``clean`` control session
(``fixtures/bad``), and the CLI must exit 0 with a warning naming the
problem while the control keeps its title and tokens.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import shutil
from pathlib import Path
from typing import Callable

import orjson
import pytest
from typer.testing import CliRunner, Result

from agentscan.cli import app
from bad_corpus import PROVIDERS, case, lay_out, no_internal_errors, undecodable_name
from cursor_builders import bubble, composer_data, make_state_db

IDE_ONLY = "1de00000-0000-4000-8000-0000000000ee"

runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    result = runner.invoke(app, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output + result.stderr
    return result


def listed(env: dict[str, str] | None = None) -> tuple[dict[str, dict], list[dict]]:
    result = invoke("list", "--json", env=env)
    assert result.exit_code == 0, result.stderr
    doc = orjson.loads(result.stdout)
    assert no_internal_errors(doc["warnings"]), doc["warnings"]
    return {row["id"]: row for row in doc["sessions"]}, doc["warnings"]


def controls(home: Path) -> dict[str, Path]:
    return lay_out(home, [case(provider, "clean") for provider in PROVIDERS])


def assert_controls_intact(rows: dict[str, dict]) -> None:
    for provider in PROVIDERS:
        control = case(provider, "clean")
        tokens = rows[control.id]["tokens"]
        assert (rows[control.id]["title"], tokens and tokens["total"]) == (control.title, control.expected), provider


def messages_for(warnings: list[dict], path: Path | str) -> list[str]:
    return [w["message"] for w in warnings if w["path"] == str(path)]


# -- permission denied ----------------------------------------------------------------

def _deny(monkeypatch: pytest.MonkeyPatch, *, dirs: set[str], files: set[str]) -> None:
    """Simulate EACCES: tests run as root here and in CI, where chmod 000 denies nothing.

    Listing a denied dir (``os.scandir``/``os.listdir``) and opening a denied
    file (``open``, which ``pathlib`` reaches as ``io.open``) raise
    PermissionError exactly as the kernel would; ``stat`` still works, as it
    does for a real mode-000 file in a readable dir.
    """
    named = dirs | files
    _deny_when(monkeypatch, lambda path: os.fspath(path) in named)  # type: ignore[arg-type]


def _deny_when(monkeypatch: pytest.MonkeyPatch, denies: Callable[[object], bool]) -> None:
    """``_deny``'s calls, raising PermissionError for each path (a str or a PathLike) ``denies``."""
    real_scandir, real_listdir, real_open = os.scandir, os.listdir, builtins.open

    def denied(path: object) -> bool:
        return isinstance(path, (str, os.PathLike)) and denies(path)

    def scandir(path: object = ".") -> object:
        if denied(path):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[arg-type]
        return real_scandir(path)  # type: ignore[arg-type]

    def listdir(path: object = ".") -> list[str]:
        if denied(path):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[arg-type]
        return real_listdir(path)  # type: ignore[arg-type]

    def open_(file: object, *args: object, **kwargs: object) -> object:
        if denied(file):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(file))  # type: ignore[arg-type]
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(io, "open", open_)


def _denied_layout(home: Path) -> tuple[dict[str, Path], dict[str, Path]]:
    """For each provider: one unreadable session file, and one session in an unlistable dir."""
    controls(home)
    files = lay_out(home, [case(provider, "bom") for provider in PROVIDERS])
    hidden = {}
    for provider in PROVIDERS:
        moved = lay_out(home, [case(provider, "crlf-and-blank-lines")])
        ((session_id, path),) = moved.items()
        # The same file one directory deeper, where the provider still looks for it.
        if provider == "claude":
            target = home / ".claude" / "projects" / "-denied" / path.name
        elif provider == "codex":
            target = path.parent.parent / "04" / path.name
        elif provider == "gemini":
            target = home / ".gemini" / "tmp" / "denied" / "chats" / path.name
        else:
            target = home / ".cursor" / "projects" / "denied" / "agent-transcripts" / path.name
        target.parent.mkdir(parents=True)
        path.rename(target)
        hidden[session_id] = target.parent
    return files, hidden


def test_unreadable_files_and_dirs_are_warnings_simulated(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files, hidden = _denied_layout(isolated_home)
    _deny(monkeypatch, dirs={str(p) for p in hidden.values()}, files={str(p) for p in files.values()})
    rows, warnings = listed()
    assert_controls_intact(rows)
    for session_id, directory in hidden.items():
        assert session_id not in rows
        assert "cannot list directory: Permission denied" in messages_for(warnings, directory), session_id
    for session_id, path in files.items():
        assert "cannot read: Permission denied" in messages_for(warnings, path), session_id
    for args in (["tokens", "--json"], ["doctor", "--json"]):
        assert invoke(*args).exit_code == 0, args
    # Showing the unreadable session itself is an error (exit 1), not an empty session.
    shown = invoke("show", case("claude", "bom").id, "--json")
    assert shown.exit_code == 1 and "Permission denied" in shown.stderr, shown.stderr


def _deny_by_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's read check of a user who is not root, as ``_deny`` simulates it, but by each
    path's own mode on disk rather than a list: listing a directory or opening a file with no
    read bit raises PermissionError.  Root (these tests, CI) reads a mode-000 file; this lets
    the chmod test run there too instead of being skipped."""
    def unreadable(path: object) -> bool:
        try:
            return not os.stat(path).st_mode & 0o444  # type: ignore[arg-type]
        except (OSError, ValueError):  # (gone, or not a path: the real call says so)
            return False

    _deny_when(monkeypatch, unreadable)


def test_unreadable_files_and_dirs_are_warnings_chmod(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _deny_by_mode(monkeypatch)
    files, hidden = _denied_layout(isolated_home)
    locked = [*files.values(), *hidden.values()]
    for path in locked:
        path.chmod(0)
    try:
        rows, warnings = listed()
    finally:
        for path in locked:
            path.chmod(0o700)
    assert_controls_intact(rows)
    for directory in hidden.values():
        assert "cannot list directory: Permission denied" in messages_for(warnings, directory)
    for path in files.values():
        assert "cannot read: Permission denied" in messages_for(warnings, path)


# -- symlinks ---------------------------------------------------------------------------

ROOTS = {
    "claude": (".claude", "projects"),
    "codex": (".codex", "sessions"),
    "gemini": (".gemini", "tmp"),
    "cursor": (".cursor", "projects"),
}


def test_symlink_loops_and_dangling_links_are_skipped_with_a_warning(isolated_home: Path) -> None:
    placed = controls(isolated_home)
    broken = []
    for provider in PROVIDERS:
        root = isolated_home.joinpath(*ROOTS[provider])
        session_dir = placed[case(provider, "clean").id].parent
        for where in (root, session_dir):
            (where / "loop.jsonl").symlink_to(where / "loop.jsonl")
            (where / "ping").symlink_to(where / "pong")
            (where / "pong").symlink_to(where / "ping")
            (where / "gone.jsonl").symlink_to(where / "missing.jsonl")
            broken += [where / "loop.jsonl", where / "ping", where / "pong", where / "gone.jsonl"]
        # A link back up the tree: a recursive walker that followed it would never end.
        (session_dir / "cycle").symlink_to(root)
    rows, warnings = listed()
    assert_controls_intact(rows)
    assert len(rows) == len(PROVIDERS)
    for path in broken:
        assert any(m.startswith("symlink cannot be followed") for m in messages_for(warnings, path)), path
    assert invoke("tokens", "--json").exit_code == 0 and invoke("doctor").exit_code == 0


def test_a_symlink_out_of_the_root_is_not_followed(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    controls(isolated_home)
    outside = tmp_path / "outside"
    escapes = []
    for provider in PROVIDERS:
        # A real session of the provider, but outside its root: it must not be read.
        elsewhere = lay_out(outside, [case(provider, "bom")])
        ((session_id, path),) = elsewhere.items()
        inside = lay_out(isolated_home, [case(provider, "bom")])[session_id]
        inside.unlink()
        inside.symlink_to(path)  # the file itself leads out
        escapes.append(inside)
        root = isolated_home.joinpath(*ROOTS[provider])
        (root / "escape").symlink_to(outside.joinpath(*ROOTS[provider]), target_is_directory=True)  # a dir leads out
        escapes.append(root / "escape")
    opened: list[str] = []
    real_open = builtins.open

    def spy(file: object, *args: object, **kwargs: object) -> object:
        if isinstance(file, (str, os.PathLike)):
            opened.append(os.path.realpath(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    rows, warnings = listed()
    invoke("tokens", "--json")
    assert_controls_intact(rows)
    assert len(rows) == len(PROVIDERS)
    for path in escapes:
        assert "symlink points outside the provider's root; skipped" in messages_for(warnings, path), path
    assert not [p for p in opened if p.startswith(str(outside))]


def test_a_root_that_is_itself_a_symlink_is_read_as_usual(isolated_home: Path, tmp_path: Path) -> None:
    """Moving ``~/.claude`` (or any provider dir) to another disk and linking it back is normal."""
    placed = controls(isolated_home)
    for provider in PROVIDERS:
        top = isolated_home / ROOTS[provider][0]
        moved = tmp_path / "other-disk" / ROOTS[provider][0]
        moved.parent.mkdir(exist_ok=True)
        shutil.move(str(top), str(moved))
        top.symlink_to(moved, target_is_directory=True)
    rows, warnings = listed()
    assert_controls_intact(rows)
    assert warnings == [], warnings
    assert len(placed) == len(rows)


# -- names that are not UTF-8 ---------------------------------------------------------

def _undecodable_copy(source: Path, directory: Path, name: bytes) -> Path:
    target = undecodable_name(directory, b"", name)
    try:
        shutil.copyfile(source, target)
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    return target


def test_names_that_are_not_utf8_are_skipped_with_a_legible_warning(isolated_home: Path, tmp_path: Path) -> None:
    placed = controls(isolated_home)
    odd = []
    names = {
        "claude": b"\xff\xfe-odd.jsonl",
        "codex": b"rollout-2026-01-03T10-00-00-\xff.jsonl",
        "gemini": b"session-2026-01-04T10-00-\xff.jsonl",
        "cursor": b"\xff.jsonl",
    }
    for provider in PROVIDERS:
        control = placed[case(provider, "clean").id]
        odd.append(_undecodable_copy(control, control.parent, names[provider]))
        # A whole directory with an undecodable name where the provider lists dirs too.
        odd_dir = undecodable_name(control.parent, b"\xfe", b"")
        odd_dir.mkdir()
        odd.append(odd_dir)
    rows, warnings = listed()
    assert_controls_intact(rows)
    assert len(rows) == len(PROVIDERS)
    skipped = [w["path"] for w in warnings if w["message"] == "file name is not valid UTF-8; skipped"]
    assert len(skipped) == len(odd) and all("\ufffd" in path for path in skipped)
    for args in (["list"], ["tokens", "--json"], ["doctor", "--json"]):
        assert invoke(*args).exit_code == 0, args
    for fmt in ("jsonl", "csv", "sqlite"):
        out = tmp_path / f"export.{fmt}"
        assert invoke("export", "--format", fmt, "--output", str(out)).exit_code == 0, fmt


# -- roots named by env vars that point at the wrong kind of thing --------------------

def test_codex_home_pointing_at_a_file(isolated_home: Path) -> None:
    """The contract makes an unreadable explicitly named root exit 1; it is never a crash,
    the other providers' sessions are still printed, and the message names the setting."""
    placed = controls(isolated_home)
    a_file = placed[case("codex", "clean").id]
    result = invoke("list", "--json", env={"CODEX_HOME": str(a_file)})
    assert result.exit_code == 1
    assert "Codex CLI: no readable root" in result.stderr and "(CODEX_HOME: a file, not a directory)" in result.stderr
    rows = {row["id"] for row in orjson.loads(result.stdout)["sessions"]}
    assert rows == {case(p, "clean").id for p in PROVIDERS if p != "codex"}
    doctor = invoke("doctor", "--json", env={"CODEX_HOME": str(a_file)})
    assert doctor.exit_code == 0
    (codex,) = [p for p in orjson.loads(doctor.stdout)["providers"] if p["provider"] == "codex"]
    assert all(not root["readable"] and root["problem"] for root in codex["roots"])


@pytest.mark.parametrize("variable", ["CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME"])
def test_other_provider_homes_pointing_at_a_file(isolated_home: Path, variable: str) -> None:
    placed = controls(isolated_home)
    result = invoke("list", "--json", env={variable: str(placed[case("codex", "clean").id])})
    assert result.exit_code == 1 and "no readable root" in result.stderr
    assert f"({variable}: a file, not a directory)" in result.stderr
    assert case("codex", "clean").id in {row["id"] for row in orjson.loads(result.stdout)["sessions"]}


def test_gemini_data_dir_pointing_at_a_file(isolated_home: Path) -> None:
    """GEMINI_DATA_DIR names the sessions dir itself: a file is the wrong kind of root, which
    fails the run as a missing one does (a cron export must not become empty), the other
    providers' sessions still listed."""
    placed = controls(isolated_home)
    a_file = placed[case("codex", "clean").id]
    result = invoke("list", "--json", env={"GEMINI_DATA_DIR": str(a_file)})
    assert result.exit_code == 1 and f"{a_file} (GEMINI_DATA_DIR: a file, not a directory)" in result.stderr
    rows = {row["id"] for row in orjson.loads(result.stdout)["sessions"]}
    assert case("codex", "clean").id in rows and case("gemini", "clean").id not in rows


def test_cursor_state_db_pointing_at_a_directory(isolated_home: Path) -> None:
    """A folder (``globalStorage`` instead of the file in it) fails as a missing DB does."""
    controls(isolated_home)
    result = invoke("list", "--json", env={"CURSOR_STATE_DB": str(isolated_home)})
    assert result.exit_code == 1 and f"{isolated_home} (CURSOR_STATE_DB: a directory, not a file)" in result.stderr
    assert_controls_intact({row["id"]: row for row in orjson.loads(result.stdout)["sessions"]})


@pytest.mark.parametrize("variable", ["CODEX_HOME", "CODEX_SQLITE_HOME", "CURSOR_STATE_DB", "CLAUDE_CONFIG_DIR", "GEMINI_DATA_DIR"])
def test_env_roots_that_are_not_utf8_are_never_fatal(isolated_home: Path, variable: str) -> None:
    """A setting may hold any bytes; whatever it names is skipped or read, and reported legibly."""
    controls(isolated_home)
    odd = undecodable_name(isolated_home / "odd", b"\xff", b"")
    try:
        odd.mkdir()
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    if variable == "CURSOR_STATE_DB":
        odd = make_state_db(odd / "state.vscdb", composers=[composer_data(IDE_ONLY, name="ide", bubbles=["q"])],
                            bubbles={IDE_ONLY: [bubble("q", 1, "hi", tokens=(1, 1))]})
    env = {variable: str(odd)}
    for args in (["list", "--json"], ["tokens", "--json"], ["doctor", "--json"], ["doctor"]):
        result = invoke(*args, env=env)
        assert result.exit_code in (0, 1), (args, result.stderr)
        if "--json" in args:
            orjson.loads(result.stdout)  # valid UTF-8 JSON, whatever the setting held


def test_a_database_whose_path_is_not_utf8_opens_read_only(tmp_path: Path) -> None:
    """The read-only URI quotes the path's bytes, so any file can be named in it."""
    import sqlite3

    from agentscan.toolkit.sqlite_ro import readonly

    directory = undecodable_name(tmp_path, b"\xfe\xff", b"")
    try:
        directory.mkdir()
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    path = make_state_db(directory / "state.vscdb")
    with readonly(path) as conn:
        assert conn.execute("SELECT count(*) FROM ItemTable").fetchone() == (1,)
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("INSERT INTO ItemTable VALUES ('k', 'v')")


def test_a_session_that_could_not_be_read_this_time_is_read_again_next_time(isolated_home: Path) -> None:
    """A read that failed (EACCES now, fine later) must not leave its empty row and sums in
    the cache: the next run, with the same files, counts the session."""
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    session = "dddddddd-1111-4222-8333-444444444444"
    path = claude_session_file(isolated_home, session, [
        claude_user(session, "2026-11-02T10:00:00Z", "count me"),
        claude_assistant(session, "2026-11-02T10:00:01Z", msg_id="m-d", request_id="r-d", usage=claude_usage(700, 7)),
    ])
    with pytest.MonkeyPatch.context() as denied:
        _deny(denied, dirs=set(), files={str(path)})
        first = orjson.loads(invoke("tokens", "--json").stdout)
        listed_first, _ = listed()
    assert first["total"] is None or first["total"]["total"] == 0
    again = orjson.loads(invoke("tokens", "--json").stdout)
    fresh = orjson.loads(invoke("--no-cache", "tokens", "--json").stdout)
    assert again["total"] == fresh["total"] and fresh["total"]["total"] == 707
    rows, _ = listed()
    assert rows[f"claude:{session}"]["counts"]["prompts"] == 1
    assert f"claude:{session}" not in listed_first  # it recorded nothing readable: left out, with its warning
