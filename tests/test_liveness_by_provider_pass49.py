"""``running`` of a provider whose running sessions hold no file open is ``null``, not ``false``.

Gemini CLI appends each record (``fs.appendFileSync``) and closes its chat: ``/proc/*/fd``
never shows it open, so ``false`` would be a guess (docs/providers/gemini.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.model import SessionRef
from agentscan.providers import BUILTIN_PROVIDERS, LIVENESS_NOT_KNOWN, get_provider, liveness_known
from agentscan.scan.liveness import Liveness
from builders import claude_session_file, claude_user
from gemini_builders import gemini, meta, tokens, user, write_chat

runner = CliRunner()
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="liveness is read from /proc")
GEM = "9e9e9e9e-1111-4222-8333-444444444444"
CLAUDE = "c1c1c1c1-1111-4222-8333-444444444444"


def gemini_chat(home: Path) -> Path:
    return write_chat(home, "api", f"session-2026-05-01T10-00-{GEM[:8]}.jsonl", [
        meta(GEM), user("u1", "2026-05-01T10:00:00.000Z", "port the module"),
        gemini("g1", "2026-05-01T10:00:05.000Z", "done", usage=tokens(100, 10))], mtime=1_777_000_000)


def running(*argv: str) -> dict[str, bool | None]:
    result = runner.invoke(app, ["list", "--json", *argv])
    assert result.exit_code == 0, result.output
    return {row["native_id"]: row["running"] for row in orjson.loads(result.stdout)["sessions"]}


def test_the_registry_mirrors_each_provider_class() -> None:
    for name in BUILTIN_PROVIDERS:
        assert get_provider(name).liveness_known is (name not in LIVENESS_NOT_KNOWN), name
        assert liveness_known(name) is get_provider(name).liveness_known
    assert LIVENESS_NOT_KNOWN == {"gemini"}


@linux_only
def test_a_gemini_chat_is_never_told_running_or_not(isolated_home: Path) -> None:
    chat = gemini_chat(isolated_home)
    held = claude_session_file(isolated_home, CLAUDE, [claude_user(CLAUDE, "2026-05-01T09:00:00Z", "hi")])
    (isolated_home / ".claude" / "sessions").mkdir()  # (its registry: a Claude session is told not running)
    with chat.open("ab"), held.open("ab"):
        assert running() == {GEM: None, CLAUDE: True}
        assert Liveness().of(SessionRef("gemini", GEM, chat, 0.0, (chat,))) is None
        shown = runner.invoke(app, ["show", GEM[:8], "--json"])
        assert shown.exit_code == 0, shown.output
        assert orjson.loads(shown.stdout)["session"]["running"] is None
    assert running() == {GEM: None, CLAUDE: False}
    # --running lists only sessions known to run: a Gemini chat never is.
    assert running("--running") == {}


@linux_only
def test_a_remembered_page_of_gemini_rows_is_printed_again(isolated_home: Path, pages: list[int | None]) -> None:
    """The page keeps each row's ``running`` and asks again; a Gemini row's ``null`` must not be
    taken for a session that stopped running (the page made again on every run)."""
    gemini_chat(isolated_home)
    first = runner.invoke(app, ["list", "--json"]).stdout
    assert runner.invoke(app, ["list", "--json"]).stdout == first
    assert len(pages) == 1


@linux_only
def test_running_asked_of_gemini_alone_says_it_cannot_tell(isolated_home: Path) -> None:
    gemini_chat(isolated_home)
    result = runner.invoke(app, ["list", "--running", "-p", "gemini"])
    assert result.exit_code == 0
    assert "no running sessions found\n" in result.stderr, result.stderr
    assert "1 Gemini CLI session left out, its `running` not known (null)" in result.stderr, result.stderr
