"""Outputs another user could have planted (F1), the foreign-database guard (F3), and the
modes of the directories agentscan creates under any umask (F6)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Iterator

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from cursor_builders import composer_data, make_state_db

runner = CliRunner()
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER = 65534  # nobody
root_only = pytest.mark.skipif(not ROOT, reason="chown to another user needs root")
posix = pytest.mark.skipif(os.name != "posix", reason="owners and modes")

OUTPUTS = [["export", "-f", "jsonl"], ["export", "-f", "csv"], ["export", "-f", "sqlite"], ["otlp"]]


def run(*args: str) -> Any:
    return runner.invoke(app, ["--demo", *args])


def error_line(result: Any) -> str:
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    return line


def make_others(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``path`` (a link or a file) becomes another user's: chowned when this is root, else this
    process becomes someone else to the check (its euid one past the owner's)."""
    if ROOT:
        os.lchown(path, OTHER, OTHER)
    else:
        owner = os.lstat(path).st_uid
        monkeypatch.setattr(os, "geteuid", lambda: owner + 1)


def victim(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bashrc"
    path.write_bytes(b"ORIGINAL RC FILE\n")
    path.chmod(0o644)
    return path


def sticky(path: Path) -> Path:
    path.mkdir()
    path.chmod(0o1777)
    return path


def unchanged(path: Path) -> None:
    assert path.read_bytes() == b"ORIGINAL RC FILE\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temp file, no -wal/-shm


# --- F1: symlinks and files another user planted ------------------------------------------------


@posix
@pytest.mark.parametrize("args", OUTPUTS)
def test_another_users_symlink_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               args: list[str]) -> None:
    target = victim(tmp_path / "victim")
    link = tmp_path / "out" / "report.out"
    link.parent.mkdir()
    link.symlink_to(target)
    make_others(link, monkeypatch)
    line = error_line(run(*args, "-o", str(link)))
    assert str(link) in line and "symbolic link of another user's" in line
    unchanged(target)
    assert link.is_symlink() and [p.name for p in link.parent.iterdir()] == ["report.out"]


@posix
@root_only
@pytest.mark.parametrize("args", OUTPUTS)
def test_a_link_planted_in_a_sticky_folder_cannot_make_root_replace_any_file(tmp_path: Path, args: list[str]) -> None:
    """The audit's case: a root cron job exporting to /tmp, where another user put a link first."""
    target = victim(tmp_path / "victim")
    os.chown(target, 1000, 1000)
    folder = sticky(tmp_path / "tmp")
    link = folder / "agentscan.out"
    link.symlink_to(target)
    os.lchown(link, OTHER, OTHER)
    assert "symbolic link" in error_line(run(*args, "-o", str(link)))
    unchanged(target)
    assert target.stat().st_uid == 1000


@posix
@pytest.mark.parametrize("args", OUTPUTS)
def test_ones_own_link_in_a_sticky_folder_is_written_through(tmp_path: Path, args: list[str]) -> None:
    folder = sticky(tmp_path / "tmp")
    target = tmp_path / "synced" / "sessions.out"
    target.parent.mkdir()
    link = folder / "sessions.out"
    link.symlink_to(target)  # dangling: the export creates the file it leads to
    result = run(*args, "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and target.is_file() and target.stat().st_size > 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


@posix
@root_only
def test_a_chain_of_links_is_checked_link_by_link(tmp_path: Path) -> None:
    target = victim(tmp_path / "victim")
    hop = tmp_path / "elsewhere" / "hop"
    hop.parent.mkdir()
    hop.symlink_to(target)
    os.lchown(hop, OTHER, OTHER)  # the second link is another user's
    first = tmp_path / "out.jsonl"
    first.symlink_to(hop)  # the first is ours
    line = error_line(run("export", "-f", "jsonl", "-o", str(first)))
    assert str(hop) in line and "another user's" in line
    unchanged(target)


@posix
@root_only
def test_a_root_link_in_another_users_sticky_folder_is_not_followed(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's rule: in a sticky world-writable folder, a link is followed only when it is
    the follower's or the folder owner's (here: root's link in uid 65534's folder, run by 1000)."""
    target = victim(tmp_path / "victim")
    folder = sticky(tmp_path / "theirs")
    os.chown(folder, OTHER, OTHER)
    link = folder / "out.jsonl"
    link.symlink_to(target)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    line = error_line(run("export", "-f", "jsonl", "-o", str(link)))
    assert "sticky world-writable" in line and "protected_symlinks" in line
    unchanged(target)


@posix
@root_only
@pytest.mark.parametrize("args", OUTPUTS)
def test_another_users_file_in_a_sticky_folder_is_neither_replaced_nor_written_into(tmp_path: Path,
                                                                                    args: list[str]) -> None:
    """A file of theirs, mode 0666, planted where root's cron job writes: replaced, the export
    kept its mode (world-readable); SQLite wrote into it, and it stayed theirs."""
    folder = sticky(tmp_path / "tmp")
    planted = folder / "agentscan.out"
    planted.write_bytes(b"")
    planted.chmod(0o666)
    os.chown(planted, OTHER, OTHER)
    line = error_line(run(*args, "-o", str(planted)))
    assert "belongs to another user (uid 65534)" in line and str(planted) in line
    assert planted.read_bytes() == b"" and planted.stat().st_uid == OTHER
    assert [p.name for p in folder.iterdir()] == ["agentscan.out"]


@posix
def test_a_sqlite_export_through_ones_own_link_updates_the_file_it_leads_to(tmp_path: Path) -> None:
    where = tmp_path / "out"
    target = where / "synced" / "index.sqlite"
    target.parent.mkdir(parents=True)
    link = where / "index.sqlite"
    link.symlink_to(target)
    for _ in range(2):  # created, then updated in place
        result = run("export", "-f", "sqlite", "-o", str(link))
        assert result.exit_code == 0, result.output
    assert link.is_symlink() and target.stat().st_size > 0
    assert sorted(p.name for p in where.iterdir()) == ["index.sqlite", "synced"]


@posix
def test_a_loop_of_links_is_an_error_not_a_replaced_link(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    for args in (["export", "-f", "jsonl"], ["export", "-f", "sqlite"], ["otlp"]):
        line = error_line(run(*args, "-o", str(tmp_path / "a.jsonl")))
        assert "symbolic links" in line.lower(), line
        assert (tmp_path / "a.jsonl").is_symlink() and (tmp_path / "b.jsonl").is_symlink()
        assert not list(tmp_path.glob(".*.tmp"))


def test_the_docs_say_which_links_are_followed_and_whose_mode_is_kept() -> None:
    docs = Path(__file__).resolve().parents[1] / "docs"
    security = (docs / "security.md").read_text()
    assert "protected_symlinks" in security and "protected_regular" in security
    assert "the file it leads to" in security
    assert "protected_symlinks" in (docs / "cron.md").read_text()


# --- F3: the guard against another program's database creates nothing beside it ----------------


def test_the_foreign_database_guard_creates_no_wal_or_shm_beside_it(tmp_path: Path) -> None:
    state = make_state_db(tmp_path / "Cursor" / "state.vscdb", wal=True, composers=[composer_data("c1", name="x")])
    before = sorted(p.name for p in state.parent.iterdir())
    assert before == ["state.vscdb"]
    content = state.read_bytes()
    line = error_line(run("export", "-f", "sqlite", "-o", str(state)))
    assert "did not write" in line
    assert sorted(p.name for p in state.parent.iterdir()) == before
    assert state.read_bytes() == content


# --- F6: every directory agentscan creates is 0700, whatever the umask --------------------------


@pytest.fixture
def umask_000() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes_under(top: Path) -> dict[str, int]:
    found = {str(top.relative_to(top.parent)): stat.S_IMODE(top.stat().st_mode)}
    for path in top.rglob("*"):
        if path.is_dir():
            found[str(path.relative_to(top.parent))] = stat.S_IMODE(path.stat().st_mode)
    return found


@posix
@pytest.mark.usefixtures("umask_000")
def test_the_hook_stores_parents_are_private_under_umask_000(tmp_path: Path) -> None:
    from agentscan.hooks import store

    root = tmp_path / "d" / "deep" / "data"
    store.append_event(str(root), "claude", "s1", b'{"hook_event_name":"Stop"}\n')
    modes = modes_under(tmp_path / "d")
    assert set(modes) == {"d", "d/deep", "d/deep/data", "d/deep/data/events", "d/deep/data/events/claude"}
    assert set(modes.values()) == {0o700}, modes


@posix
@pytest.mark.usefixtures("umask_000")
def test_an_exports_lock_folders_are_private_under_umask_000(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "c" / "deep" / "cache"))
    result = runner.invoke(app, ["--demo", "--no-cache", "export", "-f", "jsonl", "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 0, result.output
    modes = modes_under(tmp_path / "c")
    assert "c/deep/cache/locks" in modes and set(modes.values()) == {0o700}, modes


@posix
def test_the_temp_lock_folder_is_0700_whatever_the_umask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from agentscan.export.locks import fallback_dir

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.delenv("AGENTSCAN_LOCK_DIR")  # (which would name the folder instead)
    old = os.umask(0o170)  # mkdir(0700) alone gives 0600: a folder no one may enter
    try:
        locks = fallback_dir()
    finally:
        os.umask(old)
    assert stat.S_IMODE(locks.stat().st_mode) == 0o700
    assert stat.S_IMODE(locks.parent.stat().st_mode) == 0o700


@posix
@pytest.mark.usefixtures("umask_000")
def test_a_price_update_makes_the_data_folder_and_its_parents_private(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from pricing_builders import PriceServer, price_data

    from agentscan.pricing import source

    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(tmp_path / "d" / "deep" / "data"))
    with PriceServer(price_data(1, 2)) as server:
        monkeypatch.setenv(source.URL_ENV, server.url)
        result = runner.invoke(app, ["prices", "--update"])
    assert result.exit_code == 0, result.output
    modes = modes_under(tmp_path / "d")
    assert "d/deep/data/prices" in modes and set(modes.values()) == {0o700}, modes
