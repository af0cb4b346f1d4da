"""A Gemini row made by the sums' pass from its own replay (``providers/gemini/sumsrow.py``).

A cold ``tokens`` table replayed every Gemini chat twice: once for its sums (in the workers),
once more for its row's DATE, CWD and TITLE, one chat after the other (1.1 s against 0.3 s
for ccusage on a 900-chat home).  The sums' pass now keeps the row it can build from its
replay; the row's pass takes it.  Every figure, row and warning must be what two passes gave.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.gemini import chatlog, sumsrow
from gemini_builders import (
    call,
    gemini,
    hash_named_chat,
    lay_out_real_gemini,
    meta,
    rewind,
    set_,
    sha256_hex,
    tokens,
    user,
    write_chat,
    write_claude_transcript,
)
from spies import record_calls

runner = CliRunner()


def _home(home: Path) -> int:
    """Chats whose rows the sums' pass can make, and ones it cannot; how many chats."""
    for number in range(4):
        native = f"{number:08x}-1111-4222-8333-444444444444"
        chat = write_chat(home, "api", f"session-2026-05-01T10-0{number}-{native[:8]}.jsonl", [
            meta(native),
            user("u0", "2026-05-01T10:00:00.000Z", "first try"), rewind("u0"),
            user("u1", f"2026-05-01T10:0{number}:02.000Z", f"port module {number}"),
            gemini("g1", f"2026-05-01T10:0{number}:05.000Z", "done", usage=tokens(100 + number, 10),
                   calls=[call("c1", "read_file", {"absolute_path": "/home/dev/api/src/main.ts"})]),
            set_(lastUpdated=f"2026-05-01T11:0{number}:00.000Z")])
    (chat.parent.parent / ".project_root").write_text("/home/dev/api")
    web = "/home/dev/web"  # a hash dir the registry names
    write_chat(home, sha256_hex(web), "session-2026-05-02T10-00-bbbbbbbb.jsonl", [
        meta("bbbbbbbb-1111-4222-8333-444444444444", project_hash=sha256_hex(web)),
        user("u1", "2026-05-02T10:00:00.000Z", "fix the build"),
        gemini("g1", "2026-05-02T10:00:05.000Z", "ok", usage=tokens(10, 1)),
        "not a record"])  # a bad line: its row is the row's pass's, with the warning
    (home / ".gemini" / "projects.json").write_bytes(orjson.dumps({"projects": {web: sha256_hex(web)}}))
    hash_named_chat(home, "/home/dev/shared")  # its cwd only Claude's session tells
    write_claude_transcript(home, "/home/dev/shared", "c1c1c1c1-1111-4222-8333-444444444444")
    lay_out_real_gemini(home)  # hash dirs nothing names
    return 4 + 1 + 1 + 3


def _run(*argv: str) -> tuple[str, str]:
    result = runner.invoke(app, list(argv))
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_a_cold_table_replays_each_chat_it_can_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chats = _home(isolated_home)
    replayed = record_calls(monkeypatch, chatlog, "read_conversation", lambda path, *args, **kwargs: Path(path).name)
    _run("tokens", "--provider", "gemini")
    # The four chats of the slug dir: once each (their sums' replay made their rows); the
    # others (a bad line, a cwd another provider tells, hash dirs nothing names) twice.
    assert len(replayed) == 4 + 2 * (chats - 4), sorted(replayed)


@pytest.mark.parametrize("no_cache", [False, True])
@pytest.mark.parametrize("in_workers", [False, True])
def test_every_figure_row_and_warning_is_the_two_passes(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                        no_cache: bool, in_workers: bool) -> None:
    from agentscan.scan import usageparse
    from agentscan.toolkit import workers

    if in_workers:
        if not workers.usable_workers():
            pytest.skip("needs two cores and fork")
        # The sums' pass in the workers: the rows they keep come back through the index (none
        # with --no-cache: the row's pass replays then).
        monkeypatch.setattr(usageparse, "PARALLEL_MIN_BYTES", 0)
    _home(isolated_home)
    cache = ["--no-cache"] if no_cache else []

    def everything() -> list[tuple[str, str]]:
        shutil.rmtree(os.environ["AGENTSCAN_CACHE_DIR"], ignore_errors=True)  # cold, then warm
        return [_run(*cache, "tokens", "--provider", "gemini"), _run(*cache, "tokens", "--json"),
                _run(*cache, "list", "--all", "--json"), _run(*cache, "list", "--all")]

    one_replay = everything()
    assert "/home/dev/api" in one_replay[0][0] and "/home/dev/shared" in one_replay[0][0]
    warnings = orjson.loads(one_replay[2][0])["warnings"]
    assert [w["line"] for w in warnings if w["path"].endswith("bbbbbbbb.jsonl")] == [4], warnings
    monkeypatch.setattr(sumsrow, "keep", lambda *args: None)
    assert everything() == one_replay


def test_rows_kept_by_the_workers_sums_pass_come_back_through_the_index(isolated_home: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import usageparse
    from agentscan.toolkit import workers

    if not workers.usable_workers():
        pytest.skip("needs two cores and fork")
    monkeypatch.setattr(usageparse, "PARALLEL_MIN_BYTES", 0)
    chats = _home(isolated_home)
    replayed = record_calls(monkeypatch, chatlog, "read_conversation", lambda path, *args, **kwargs: Path(path).name)
    _run("tokens", "--provider", "gemini")
    # Every sums' replay in the workers (not seen here); here only the rows they could not make.
    assert len(replayed) == chats - 4, sorted(replayed)


def test_a_bad_registry_is_said_as_the_row_s_pass_said_it(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sums' pass reads the registry with its own index, its warnings held: the row's pass
    says them, as when it replayed every chat (none is lost to the sums' pass)."""
    _home(isolated_home)
    (isolated_home / ".gemini" / "projects.json").write_bytes(b"{broken")

    def everything() -> list[tuple[str, str]]:
        shutil.rmtree(os.environ["AGENTSCAN_CACHE_DIR"], ignore_errors=True)
        return [_run("tokens", "--provider", "gemini"), _run("list", "--all", "--json")]

    one_replay = everything()
    assert "projects.json" in one_replay[1][0], one_replay[1][0]  # (the table reads its rows quietly)
    monkeypatch.setattr(sumsrow, "keep", lambda *args: None)
    assert everything() == one_replay
