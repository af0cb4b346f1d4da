"""``--home DIR`` on a copied home: an ``XDG_CONFIG_HOME`` inside the login's own home (as a
desktop session sets ``~/.config``) is read inside DIR, so the copy's ``~/.config/claude``
is listed, not this machine's (``toolkit.roots.platform_dir``, as for Cursor's database)."""

from __future__ import annotations

from pathlib import Path

from agentscan.context import ScanContext
from agentscan.providers.claude.roots import claude_roots
from builders import claude_assistant, claude_usage, claude_user, cli_json, write_jsonl

SESSION = "c1a0de00-7777-4000-8000-000000000000"


def _session(config: Path, title: str) -> None:
    write_jsonl(config / "claude" / "projects" / "-home-dev-project" / f"{SESSION}.jsonl", [
        claude_user(SESSION, "2026-11-02T10:00:00.000Z", title),
        claude_assistant(SESSION, "2026-11-02T10:01:00.000Z", msg_id="m1", request_id="r1", usage=claude_usage(5, 1))])


def test_home_on_a_copied_home_reads_its_own_config_claude(isolated_home: Path, tmp_path: Path) -> None:
    """``isolated_home`` sets ``XDG_CONFIG_HOME=$HOME/.config``."""
    _session(isolated_home / ".config", "this machine's task")
    copied = tmp_path / "copied"
    _session(copied / ".config", "the copy's task")
    assert [row["title"] for row in cli_json("--home", str(copied), "list")["sessions"]] == ["the copy's task"]
    assert [row["title"] for row in cli_json("list")["sessions"]] == ["this machine's task"]


def test_an_xdg_config_home_elsewhere_is_taken_as_it_is(tmp_path: Path) -> None:
    login, copied = tmp_path / "me", tmp_path / "copied"
    ctx = ScanContext.create(home=copied, env={"HOME": str(login), "XDG_CONFIG_HOME": "/srv/config"})
    assert Path("/srv/config/claude/projects") in [root.path for root in claude_roots(ctx)]
    moved = ScanContext.create(home=copied, env={"HOME": str(login), "XDG_CONFIG_HOME": str(login / ".config")})
    (root,) = [root for root in claude_roots(moved) if ".config" in str(root.path)]
    assert root.path == copied / ".config" / "claude" / "projects" and root.source == "--home"
    assert root.note == f"XDG_CONFIG_HOME={login / '.config'} is under $HOME, so read under --home as {copied / '.config'}"
