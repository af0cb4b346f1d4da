"""A Codex fork's file is read whole once where it can be (review of pass 46: a fork of 1 to
32 MiB was read whole by ``forkpart`` for its own part, again by the row's ``read_replay_whole``
and by the usage pass, and ``show`` read it twice).  The fork-part read feeds the scanner the
row's and the usage pass's ``scan_file`` take (``forkpart.shared_scan``) and keeps the tally
``scan_file`` would; the part a turn marker told is remembered in agentscan's index while the
file is unchanged, so ``show`` after ``list`` reads it once (docs/providers/codex.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from builders import cli_json
from codex_builders import (Calls, agent_message, append_records, assistant_item, at, iso, meta, rollout_path,
                            task_started, turn_context, user_item, user_message, write_rollout)

P = "019c4700-0000-7000-8000-00000000000a"
F = "019c4700-0000-7000-8000-00000000000f"
OWN = {"prompts": 1, "responses": 1, "tool_calls": 0}


def _lay_out(codex: Path) -> Path:
    """P, whose copied history runs past a row's first 1 MiB, and F, a fork of it (a marker
    first, as 0.135 writes it).  Returns F's path."""
    calls = Calls()
    parent: list[dict[str, Any]] = []
    for turn in range(2):
        t = at(10 * (turn + 1))
        parent += [task_started(t), turn_context(t), user_item(t, f"parent step {turn}"),
                   user_message(t, f"parent step {turn}"), calls.call(t, 1000, 0, 100),
                   agent_message(t, "x" * 800_000), assistant_item(t, "parent done")]
    write_rollout(rollout_path(codex, P, at(0)), [meta(P, at(0)), *parent])
    forked = Calls(total=dict(calls.total))
    copy = [dict(record, timestamp=iso(at(3000 + 0.001 * (n + 1)))) for n, record in enumerate([meta(P, at(0)), *parent])]
    t = at(3030)
    own = [task_started(t), turn_context(t), user_item(t, "now the fork"), user_message(t, "now the fork"),
           forked.call(t, 500, 0, 50), agent_message(t, "fork done"), assistant_item(t, "fork done")]
    return write_rollout(rollout_path(codex, F, at(3000)), [meta(F, at(3000), forked_from=P), *copy, *own])


@pytest.fixture
def whole_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """The files read whole from their start, once each time, by the passes that may read a
    fork whole; each command as a new process runs it (``forkpart``'s memory dropped)."""
    from agentscan.providers.codex import forkpart, showpass, usage

    read: list[Path] = []
    for module in (forkpart, showpass, usage):
        def counted(path: Path, ctx: Any, *, _original: Any = module.iter_json_lines, **options: Any) -> Any:
            yield from _original(path, ctx, **options)
            if not options.get("start"):
                read.append(Path(path))  # (not reached by a read that stopped early)

        monkeypatch.setattr(module, "iter_json_lines", counted)
    yield read


def _command(read: list[Path], *args: str) -> dict:
    from agentscan.providers.codex import forkpart

    forkpart._CACHE.clear()
    read.clear()
    return cli_json(*args)


def test_a_fork_is_read_whole_once(isolated_home: Path, whole_reads: list[Path]) -> None:
    fork = _lay_out(isolated_home / ".codex")
    assert fork.stat().st_size > 1024 * 1024
    rows = {row["native_id"]: row for row in _command(whole_reads, "list", "--all")["sessions"]}
    assert (rows[F]["counts"], rows[F]["title"], rows[F]["tokens"]["total"]) == (OWN, "now the fork", 550)
    assert whole_reads.count(fork) == 1  # (3: its part, the row's own calls, the usage pass)
    doc = _command(whole_reads, "show", F)["session"]
    assert (doc["counts"], doc["title"], doc["forked_after_prompts"]) == (OWN, "now the fork", 2)
    assert whole_reads == [fork]  # the show pass alone (2: its part was told again)
    t = at(3100)
    append_records(fork, [task_started(t), turn_context(t), user_message(t, "and more"), agent_message(t, "ok")])
    row = next(row for row in _command(whole_reads, "list", "--all")["sessions"] if row["native_id"] == F)
    assert (row["counts"], row["title"]) == ({"prompts": 2, "responses": 2, "tool_calls": 0}, "now the fork")
    assert whole_reads.count(fork) == 1  # (2: its part, and the usage pass)


def test_a_remembered_part_is_another_thread_s_no_more(isolated_home: Path, whole_reads: list[Path]) -> None:
    """The part kept of a file is taken for the thread and fork it was told of only."""
    from agentscan.context import ScanContext
    from agentscan.providers.codex import forkpart
    from agentscan.providers.codex.header import read_header

    fork = _lay_out(isolated_home / ".codex")
    ctx = ScanContext(home=isolated_home, env={})
    link = read_header(fork, ctx, F).link
    started = read_header(fork, ctx, F).started_at
    part = forkpart.fork_part(fork, ctx, link, started, F)
    assert part is not None and part.start > 0 and whole_reads == [fork]
    forkpart._CACHE.clear()
    assert forkpart.fork_part(fork, ctx, link, started, F) == part
    assert whole_reads == [fork]  # remembered: not read again
    forkpart._CACHE.clear()
    assert forkpart._recalled(fork, ctx, fork.stat(), started, "019c4700-0000-7000-8000-0000000000ee", P) is None
    assert forkpart._recalled(fork, ctx, fork.stat(), None, F, P) is None
