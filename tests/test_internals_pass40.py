"""The fortieth pass's internal fixes, each with no answer changed.

* ``_cut_dead_tops`` (Cursor's ``children``): one pass over the forest, not a walk to the top
  per run (quadratic in a chain's depth); the same cuts as the walk on any forest.
* Codex's ``tablefacts.table_facts`` (``tokens``' table): the naming thread's header is
  taken once (``row.thread_header``), not once for the cwd and again for the title's mark,
  and a third time for a cut window's replay check.
* Cursor's ``bubbletimes``: a ref's sort key reads its own composer's last bubble, not every
  composer's: ``show`` of a session with a transcript (``locate``) reads one bubble.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from agentscan.model import TableFacts
from agentscan.providers.codex import fullcounts, headtail
from agentscan.providers.codex import row as codex_row
from agentscan.providers.codex import threadfacts as codex_threadfacts
from agentscan.providers.codex import header as codex_header
from agentscan.providers.cursor import statedb
from agentscan.providers.cursor.children import _cut_dead_tops, build
from agentscan.scan.scanner import Scanner
from builders import cli_json
from codex_builders import (
    agent_message, at, meta, rollout_path, token_count, turn_context, usage, user_message, write_rollout,
)
from cursor_builders import (
    assistant, bubble, composer_data, cursor_only, make_state_db, state_db_path, user, write_transcript,
)
from spies import record_calls


# -- Cursor: a chain cut below a top that cannot be a session ------------------------


def _cut_by_walking(parent_of: dict[str, str], viable: set[str]) -> None:
    """The rule as the thirty-ninth pass wrote it (a walk to the top from every run), kept as
    the reference the one pass must agree with."""
    for start in sorted(parent_of):
        chain = [start]
        while chain[-1] in parent_of:
            chain.append(parent_of[chain[-1]])
        if chain[-1] in viable:
            continue
        highest = next((node for node in reversed(chain) if node in viable), None)
        if highest is not None:
            parent_of.pop(highest, None)


def _random_forest(rng: random.Random) -> tuple[dict[str, str], set[str]]:
    # A parent always comes earlier in a shuffled order: no loop, as ``_break_loops`` leaves it.
    nodes = [f"n{i}" for i in range(rng.randint(1, 40))]
    rng.shuffle(nodes)
    parent_of = {node: rng.choice(nodes[:i]) for i, node in enumerate(nodes) if i and rng.random() < 0.8}
    return parent_of, {node for node in nodes if rng.random() < 0.6}


def test_one_pass_cuts_what_a_walk_from_every_run_cut() -> None:
    rng = random.Random(40)
    for _ in range(2000):
        parent_of, viable = _random_forest(rng)
        expected = dict(parent_of)
        _cut_by_walking(expected, viable)
        got = dict(parent_of)
        _cut_dead_tops(got, viable)
        assert got == expected, (parent_of, viable)


class _CountingLinks(dict[str, str]):
    """A child -> parent map that counts how often a link is looked up."""

    lookups = 0

    def __contains__(self, key: Any) -> bool:
        self.lookups += 1
        return super().__contains__(key)

    def __getitem__(self, key: str) -> str:
        self.lookups += 1
        return super().__getitem__(key)


def _chain_lookups(depth: int) -> int:
    # Listed deepest first, the worst order for a walk that stops at what it has seen.
    links = _CountingLinks({f"c{i}": f"c{i - 1}" for i in range(depth, 0, -1)})
    _cut_dead_tops(links, viable={f"c{i}" for i in range(1, depth + 1)})  # c0, the top, is not
    assert "c1" not in links and len(links) == depth - 1
    return links.lookups


def test_the_work_grows_with_a_chain_not_with_its_square() -> None:
    # A walk to the top from each run looks up ~n²/2 links (16 times as many for 4n).
    small, large = _chain_lookups(2_000), _chain_lookups(8_000)
    assert large <= 5 * small, (small, large)
    assert large <= 5 * 8_000, large


def test_a_twenty_thousand_run_chain_under_a_dead_top_is_cut_at_its_highest_session() -> None:
    rng = random.Random(4040)
    depth = 20_000
    labels = rng.sample(range(10 * depth), depth + 1)  # the ids in no order along the chain
    ids = [f"cccc{label:08d}" for label in labels]
    top, runs = ids[0], ids[1:]
    named = {run: (above,) for above, run in zip(ids, runs)}
    viable = set(runs[99:])  # the top and the ninety-nine runs under it cannot be sessions
    forest = build(named, listed={}, present=set(ids), viable=viable)
    cut = runs[99]
    assert not forest.owned(cut)
    assert forest.parent == {run: parent for run, (parent,) in named.items() if run != cut}
    assert forest.descendants(cut) == tuple(runs[100:])
    assert forest.descendants(top) == tuple(runs[:99])


# -- Codex: tokens' table reads the naming thread's header once ----------------------

MAIN = "019a0000-0000-7000-8000-0000000040aa"
CHILD = "019a0000-0000-7000-8000-0000000040bb"


def _scanner(home: Path) -> Scanner:
    env = {"AGENTSCAN_CACHE_DIR": str(home.parent / "cache"), "AGENTSCAN_DATA_DIR": str(home.parent / "data")}
    scanner = Scanner(home=home, env=env, use_cache=True)
    assert scanner.cache is not None  # opened: a whole pass keeps its tallies there, the facts read them
    return scanner


def _table_facts_and_header_reads(home: Path, monkeypatch: pytest.MonkeyPatch,
                                  *, models: bool) -> tuple[list[tuple[TableFacts | None, TableFacts]], list[str]]:
    """Each session's table facts beside its row's, and the threads whose header the facts took."""
    with _scanner(home) as scanner:
        provider = scanner.provider("codex")
        refs = provider.discover(scanner.ctx)
        rows = [provider.row(ref, scanner.ctx) for ref in refs]
        reads = record_calls(monkeypatch, codex_header, "thread_header", lambda thread, ctx: thread.thread_id)
        for reader in (codex_row, codex_threadfacts):  # their own bindings too
            monkeypatch.setattr(reader, "thread_header", codex_header.thread_header)
        found = [provider.table_facts(ref, scanner.ctx, models=models) for ref in refs]
    return [(facts, TableFacts(row.updated_at, row.cwd, row.title)) for facts, row in zip(found, rows)], reads


def _keep_tallies(home: Path) -> None:
    """A whole pass (``tokens``): each file's tally kept, so a cut window's models are sure."""
    with _scanner(home) as scanner:
        provider = scanner.provider("codex")
        provider.usage(provider.discover(scanner.ctx), scanner.ctx)


def _conversation(thread_id: str, start: float, turns: int) -> list[dict]:
    records = [meta(thread_id, at(start), cwd=f"/work/{thread_id[-2:]}")]
    for n in range(turns):
        moment = start + 1 + 3 * n
        records += [turn_context(at(moment)), user_message(at(moment), f"step {n}"), agent_message(at(moment + 1), "done"),
                    token_count(at(moment + 2), usage(10 * (n + 1), output=n + 1))]
    return records


@pytest.mark.parametrize("models", [False, True])
def test_a_codex_sessions_table_facts_read_its_header_once(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                           models: bool) -> None:
    codex = isolated_home / ".codex"
    write_rollout(rollout_path(codex, MAIN, at(0)), _conversation(MAIN, 0, 40))
    write_rollout(rollout_path(codex, CHILD, at(5)), [meta(CHILD, at(5), spawn_parent=MAIN),
                                                      *_conversation(CHILD, 5, 2)[1:]])
    # A window that cuts the main rollout, and its kept tally: with ``models``, whether the
    # thread replays a copied history is asked of its header too.
    monkeypatch.setattr(headtail, "TAIL_BYTES", 600)
    monkeypatch.setattr(fullcounts, "WHOLE_BYTES", 100)
    headtail._TAIL_CACHE.clear()
    _keep_tallies(isolated_home)
    pairs, reads = _table_facts_and_header_reads(isolated_home, monkeypatch, models=models)
    ((found, row),) = pairs
    assert found is not None and (found.models is not None) == models
    assert (found.updated_at, found.cwd, found.title) == (row.updated_at, row.cwd, row.title)
    assert reads == [MAIN]


def test_a_codex_session_of_subagents_only_reads_the_first_ones_header_once(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_rollout(rollout_path(isolated_home / ".codex", CHILD, at(5)),
                  [meta(CHILD, at(5), spawn_parent=MAIN), *_conversation(CHILD, 5, 2)[1:]])
    pairs, reads = _table_facts_and_header_reads(isolated_home, monkeypatch, models=False)
    ((found, row),) = pairs
    assert found is not None and found.cwd == row.cwd
    assert reads == [CHILD]


# -- Cursor: one session's sort key reads one bubble ---------------------------------

T0_MS = 1_790_000_000_000


def _iso(ms: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat().replace("+00:00", "Z")


def test_show_of_a_cursor_session_with_a_transcript_reads_its_own_last_bubble_only(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cursor_only(monkeypatch)
    ids = [f"cccc4040-0000-4000-8000-{n:012d}" for n in range(30)]
    # Each composer's last bubble is newer than its ``lastUpdatedAt``, by a different amount:
    # the sessions' order in ``list`` is their bubbles'.
    composers = [composer_data(cid, name=f"s{n}", created=T0_MS, updated=T0_MS, fs_path="/home/me/app",
                               bubbles=["u", "a"]) for n, cid in enumerate(ids)]
    bubbles = {cid: [bubble("u", 1, "task", created=_iso(T0_MS)),
                     bubble("a", 2, "done", tokens=(10, 1), created=_iso(T0_MS + (n * 7 % 30 + 1) * 60_000))]
               for n, cid in enumerate(ids)}
    make_state_db(state_db_path(isolated_home), composers=composers, bubbles=bubbles)
    shown = ids[4]
    write_transcript(isolated_home, "home-me-app", shown, [user("task"), assistant("done")])
    listed = cli_json("list", "--all")["sessions"]
    assert [row["native_id"] for row in listed] == sorted(ids, key=lambda cid: ids.index(cid) * 7 % 30, reverse=True)
    read = record_calls(monkeypatch, statedb.StateDb, "values", lambda db, keys: list(keys))
    detail = cli_json("show", shown)
    assert read == [[f"bubbleId:{shown}:a"]]
    assert detail["session"]["native_id"] == shown
