"""Codex's ``show``, as a daily Codex CLI user reads it (pass 50).

* A compaction of a thread's context (``/compact``, or an automatic one) was nowhere on a
  Codex session's card, in ``--full`` or in ``show --json``, though Claude's are marked.  A
  rollout records one as a ``compacted`` line and, from the builds that emit it, a
  ``context_compacted`` event on the next line: each such pair, or a lone one, is one
  compaction, marked as Claude's are (with no trigger: no line says which it was), the
  context it held being the latest call's ``last_token_usage.total_tokens`` before it (not
  the estimate of what is left that the compaction writes just before its line).
* A fork whose parent's rollout is gone counts the calls of its copy of the parent's history
  (``tokens``, ``list``), but ``show`` listed only its own part: the conversation those calls
  were made in was nowhere.  It lists the copy with its own, as Claude's ``show`` lists a gone
  session's copied records (``forked_copies_listed``); the counts stay its own part's.
* ``show`` of a rollout that cannot be read (mode 000, a corrupt zstd frame) printed an empty
  card, exit 0, when the thread index named it (its title made the row one that "recorded
  something"); it fails saying why, as for an unreadable Claude transcript and as ``tokens``
  of it alone does.  ``list`` keeps its row of what the index knows, beside the warning, its
  counts partial (a corrupt ``.zst`` frame's row said its counts of what came before were whole).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

from builders import cli_json, deny_access, invoke, only_row
from codex_fork_builders import FORK_CALLS, total_of, write_fork, write_parent
from codex_builders import (T0, Calls, agent_message, compacted, index_row, line, meta, rollout_path, task_started,
                            token_count, turn_context, usage, user_item, user_message, write_rollout, write_state_db)

S = "019c5050-0000-7000-8000-000000000050"


def _turn(calls: Calls, minutes: int, text: str, input: int) -> list[dict[str, Any]]:
    moment = T0 + timedelta(minutes=minutes)
    return [task_started(moment), turn_context(moment), user_item(moment, text), user_message(moment, text),
            calls.call(moment + timedelta(seconds=5), input, 0, 500),
            agent_message(moment + timedelta(seconds=6), f"done with {text}")]


def _compaction(calls: Calls, minutes: int, *, event: bool, context_before: int, left: int) -> list[dict[str, Any]]:
    """A compaction as codex-rs writes one: its ``turn_context``, the summarising call, the
    estimate of what is left (``recompute_token_usage``: no input), the ``compacted`` line and,
    from newer builds, the ``context_compacted`` event."""
    moment = T0 + timedelta(minutes=minutes)
    lines = [turn_context(moment), calls.call(moment + timedelta(seconds=3), context_before - 800, 0, 800),
             token_count(moment + timedelta(seconds=4), dict(calls.total), {**usage(0), "total_tokens": left}),
             compacted(moment + timedelta(seconds=4), None)]
    if event:
        lines.append(line(moment + timedelta(seconds=4), "event_msg", {"type": "context_compacted"}))
    return lines


def _compacted_thread(home: Path) -> None:
    calls = Calls()
    records = [meta(S, T0), *_turn(calls, 1, "first task", 90_000),
               *_compaction(calls, 10, event=True, context_before=180_000, left=12_000),
               *_turn(calls, 20, "second task", 40_000),
               # an older build's: the ``compacted`` line alone
               *_compaction(calls, 30, event=False, context_before=150_000, left=9_000),
               *_turn(calls, 40, "third task", 20_000)]
    write_rollout(rollout_path(home / ".codex", S, T0), records)


def test_show_json_lists_a_codex_thread_s_compactions(isolated_home: Path) -> None:
    _compacted_thread(isolated_home)
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert shown["compactions"] == [
        {"timestamp": "2026-03-02T09:10:04.000Z", "trigger": None, "pre_tokens": 180_000},
        {"timestamp": "2026-03-02T09:30:04.000Z", "trigger": None, "pre_tokens": 150_000}]
    assert shown["compacted"] == 2
    assert [p["text"] for p in shown["prompts"]] == ["first task", "second task", "third task"]


def test_the_card_counts_and_marks_a_codex_thread_s_compactions(isolated_home: Path, tty) -> None:
    _compacted_thread(isolated_home)
    tty(100)
    lines = invoke("show", S).stdout.splitlines()
    counts = next(line for line in lines if line.startswith("  counts"))
    assert counts.endswith(", 2 compactions")
    start = lines.index("prompts (3)")
    assert [line[20:] for line in lines[start + 1:start + 6]] == [
        "first task",
        "── context compacted (180,000 tokens before)",
        "second task",
        "── context compacted (150,000 tokens before)",
        "third task"]


def test_show_full_marks_a_codex_compaction_at_its_time(isolated_home: Path) -> None:
    _compacted_thread(isolated_home)
    out = invoke("show", S, "--full").stdout
    assert out.count("── context compacted (180000 tokens before)") == 1
    assert out.count("── context compacted (150000 tokens before)") == 1


def test_a_compaction_s_lines_in_either_order_are_one(isolated_home: Path) -> None:
    """Two compactions in a row with no call between them are two; an event before its
    line is the same compaction's; a compaction with no call before it has no figure."""
    event = line(T0 + timedelta(minutes=5), "event_msg", {"type": "context_compacted"})
    records = [meta(S, T0), *_turn(Calls(), 1, "task", 1_000),
               event, compacted(T0 + timedelta(minutes=5), None),
               compacted(T0 + timedelta(minutes=6), None), event]
    write_rollout(rollout_path(isolated_home / ".codex", S, T0), records)
    shown = orjson.loads(invoke("show", S, "--json").stdout)["session"]
    assert [c["pre_tokens"] for c in shown["compactions"]] == [1_500, None]


# -- a fork whose parent is gone lists the copy it counts ----------------------------------

P = "019c4910-0000-7000-8000-00000000050a"  # the parent
F = "019c4910-0000-7000-8000-00000000050f"  # its fork, after its second turn
START = datetime(2026, 7, 2, 15, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("markers", "rewrite"), [(True, False), (True, True), (False, True), (False, False)])
def test_a_fork_of_a_gone_parent_lists_the_copy_it_counts(isolated_home: Path, markers: bool, rewrite: bool) -> None:
    """``tokens`` counts the copied calls in the fork when its parent is gone: ``show`` lists
    the copied conversation too (the only record of it left), as Claude's ``show`` lists a
    gone session's copied records; the counts stay the fork's own part's, as its row's."""
    codex = isolated_home / ".codex"
    parent = write_parent(codex, P, START, markers=markers, write=False)
    write_fork(codex, parent, F, START + timedelta(hours=5), markers=markers, rewrite=rewrite)
    shown = cli_json("show", F)["session"]
    assert [p["text"] for p in shown["prompts"]] == ["parent step 0", "parent step 1", "now the fork"]
    assert shown["forked_copies_listed"] is True and shown["forked_counted_there"] is False
    assert shown["counts"]["prompts"] == 1 == only_row()["counts"]["prompts"]
    assert shown["tokens"]["total"] == total_of(parent.calls[:3]) + total_of(FORK_CALLS)


def test_a_fork_of_a_found_parent_lists_its_own_part(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    parent = write_parent(codex, P, START, markers=True)
    write_fork(codex, parent, F, START + timedelta(hours=5), markers=True, rewrite=False)
    shown = cli_json("show", F)["session"]
    assert [p["text"] for p in shown["prompts"]] == ["now the fork"]
    assert shown["forked_copies_listed"] is False and shown["forked_counted_there"] is True
    assert "is listed below" not in invoke("show", F).stdout


# -- a rollout that cannot be read, which the thread index knows ----------------------------


@pytest.mark.parametrize("how", ["denied", "corrupt"])
def test_an_unreadable_rollout_the_index_knows(isolated_home: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """``list`` keeps its row with what the thread index knows beside the warning (a session
    that may hold real work keeps its row, as a large unreadable Claude transcript keeps its
    row of dashes), ``tokens`` leaves it out saying it could not be read, and ``show`` fails
    saying why, as for Claude's: it showed an empty card, exit 0, when the index named it."""
    path = write_rollout(rollout_path(isolated_home / ".codex", S, T0, compressed=how == "corrupt"),
                         [meta(S, T0), *_turn(Calls(), 1, "first task", 1_000)])
    write_state_db(isolated_home / ".codex" / "state_5.sqlite", [
        index_row(S, path, created=T0, updated=T0 + timedelta(minutes=2), title="fix the flaky test",
                  model="gpt-5.5", cwd="/w/q")])
    if how == "denied":
        deny_access(monkeypatch, path)
    else:
        data = path.read_bytes()
        path.write_bytes(data[:20] + b"\x00" * 40 + data[60:])
    document = cli_json("list", "--all")
    (row,) = document["sessions"]
    assert (row["title"], row["cwd"], row["model"], row["tokens"]) == ("fix the flaky test", "/w/q", "gpt-5.5", None)
    assert row["counts_partial"] is True  # (its counts of 0 are no count: a corrupt frame's said complete)
    assert any(w["path"] == str(path) and w["message"].startswith("cannot read: ") for w in document["warnings"])
    assert cli_json("tokens")["rows"] == []
    assert f"could not be read, not counted: codex:{S}" in invoke("tokens").stderr
    for args in (("show", S[:13]), ("show", S[:13], "--json")):
        shown = invoke(*args)
        assert shown.exit_code == 1 and shown.stdout == "", shown.output
        assert f"error: cannot read codex:{S}: {path}: " in shown.stderr, shown.stderr
