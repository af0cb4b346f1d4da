"""Each Cursor run in exactly one session (``providers/cursor/children.py``): a child with a
transcript of its own, one listed by a parent and naming another, loops, self links,
orphans and nested CLI subagent chats; ``list`` and ``tokens`` count every bubble once."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agentscan.providers.cursor.children import build
from builders import cli_json
from cursor_builders import (
    HEADERS_DDL,
    add_store_messages,
    assistant,
    bubble,
    composer_data,
    make_state_db,
    state_db_path,
    user,
    write_chat_store,
    write_subagent,
    write_transcript,
)

T0 = 1_790_000_000_000
NAMES = ["A", "B", "ORPH", "GONE", "P1", "P2", "X", "TP", "TC", "SELF"]
ID = {name: f"cccc0000-0000-4000-8000-0000000000{i:02d}" for i, name in enumerate(NAMES)}


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat().replace("+00:00", "Z")


def _composer(composer_id: str, tokens: int, **links: object) -> tuple[dict, list[dict]]:
    data = composer_data(composer_id, name=composer_id[-2:], created=T0, updated=T0 + 10, fs_path="/home/me/app",
                         bubbles=["u", "a"], **links)
    bubbles = [bubble("u", 1, "task", created=_iso(T0)),
               bubble("a", 2, "done", created=_iso(T0 + 10), tokens=(tokens, 0), model="claude-4.5-sonnet")]
    return data, bubbles


def _state(home: Path, composers: dict[str, tuple[dict, list[dict]]], subagent_headers: tuple[str, ...] = ()) -> None:
    db = make_state_db(state_db_path(home), composers=[data for data, _ in composers.values()],
                       bubbles={cid: bubbles for cid, (_, bubbles) in composers.items()})
    if subagent_headers:
        with closing(sqlite3.connect(db)) as conn:
            conn.execute(HEADERS_DDL)
            conn.executemany("INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, isSubagent)"
                             " VALUES (?, ?, ?, 1)", [(cid, T0, T0 + 10) for cid in subagent_headers])
            conn.commit()


def _three_ways(*args: str) -> dict:
    cold, cached, uncached = cli_json(*args), cli_json(*args), cli_json(*args, "--no-cache")
    assert cold == cached == uncached
    return cold


def _counted_once(bubble_total: int) -> tuple[dict[str, dict], dict[str, dict]]:
    """``list`` and ``tokens --by session`` agree, and each sums every bubble once."""
    rows = {row["native_id"]: row for row in _three_ways("list", "--all")["sessions"]}
    report = _three_ways("tokens", "--by", "session")
    by_session = {row["key"].removeprefix("cursor:"): row for row in report["rows"]}
    assert report["total"]["total"] == bubble_total
    assert sum((row["tokens"] or {}).get("total", 0) for row in rows.values()) == bubble_total
    for native_id, row in by_session.items():
        assert rows[native_id]["tokens"]["total"] == row["tokens"]["total"]
    # no run is its own row and another's subagent, nor two sessions' subagent
    runs = [sub["id"] for row in by_session.values() for sub in row["subagents"]]
    assert len(runs) == len(set(runs)) and not set(runs) & set(rows)
    return rows, by_session


def test_each_child_is_counted_in_one_row_only(isolated_home: Path) -> None:
    composers = {
        ID["A"]: _composer(ID["A"], 1, subagentInfo={"parentComposerId": ID["B"]}),  # a loop
        ID["B"]: _composer(ID["B"], 10, subagentInfo={"parentComposerId": ID["A"]}),
        ID["ORPH"]: _composer(ID["ORPH"], 100, subagentInfo={"parentComposerId": ID["GONE"]}),
        ID["P1"]: _composer(ID["P1"], 1000, subagentComposerIds=[ID["X"]]),  # X: listed by P1, names P2
        ID["P2"]: _composer(ID["P2"], 10_000),
        ID["X"]: _composer(ID["X"], 100_000, subagentInfo={"parentComposerId": ID["P2"]}),
        ID["TP"]: _composer(ID["TP"], 1_000_000),
        ID["TC"]: _composer(ID["TC"], 10_000_000, subagentInfo={"parentComposerId": ID["TP"]}),
        ID["SELF"]: _composer(ID["SELF"], 100_000_000, subagentComposerIds=[ID["SELF"]],
                              subagentInfo={"parentComposerId": ID["SELF"]}),
    }
    _state(isolated_home, composers, subagent_headers=(ID["ORPH"],))
    write_transcript(isolated_home, "home-me-app", ID["TC"], [user("child task"), assistant("done")])
    rows, by_session = _counted_once(111_111_111)
    assert sorted(rows) == sorted(ID[n] for n in ("A", "ORPH", "P1", "P2", "TP", "SELF"))
    assert rows[ID["TP"]]["tokens"]["total"] == 11_000_000 and rows[ID["TP"]]["subagents"] == 1
    assert rows[ID["P1"]]["tokens"]["total"] == 1000 and rows[ID["P1"]]["subagents"] == 0
    assert rows[ID["P2"]]["tokens"]["total"] == 110_000  # the parent X names wins
    assert rows[ID["A"]]["tokens"]["total"] == 11  # the loop once, under its smallest id
    assert rows[ID["SELF"]]["tokens"]["total"] == 100_000_000 and rows[ID["SELF"]]["subagents"] == 0
    assert [sub["id"] for sub in by_session[ID["TP"]]["subagents"]] == [ID["TC"]]
    assert cli_json("show", ID["TC"])["session"]["native_id"] == ID["TP"]
    assert cli_json("show", ID["B"])["session"]["native_id"] == ID["A"]


G, P, C = (f"eeee0000-0000-4000-8000-00000000000{i}" for i in (1, 2, 3))


def _chat(home: Path, chat: str, name: str, info: dict | None = None) -> None:
    store: dict = {"agentId": chat, "name": name, "createdAt": T0}
    if info:
        store["subagentInfo"] = info
    directory = write_chat_store(home, "/home/me/app", chat, store=store, meta={
        "schemaVersion": 1, "createdAtMs": T0, "updatedAtMs": T0 + 5, "cwd": "/home/me/app"})
    add_store_messages(directory, [{"role": "user", "content": f"task {name}"}, {"role": "assistant", "content": "ok"}])


def test_a_nested_cli_subagent_chat_rolls_into_the_root(isolated_home: Path) -> None:
    _chat(isolated_home, G, "grandparent")
    _chat(isolated_home, P, "child", {"parentAgentId": G, "rootParentAgentId": G})
    _chat(isolated_home, C, "grandchild", {"parentAgentId": P, "rootParentAgentId": G})
    (row,) = _three_ways("list", "--all")["sessions"]
    assert (row["native_id"], row["subagents"]) == (G, 2)
    shown = cli_json("show", C)["session"]
    assert shown["native_id"] == G and [s["id"] for s in shown["subagents"]] == [P, C]


def test_a_cli_subagent_chat_whose_parent_is_gone_goes_to_its_root(isolated_home: Path) -> None:
    _chat(isolated_home, G, "grandparent")
    _chat(isolated_home, C, "grandchild", {"parentAgentId": P, "rootParentAgentId": G})
    (row,) = _three_ways("list", "--all")["sessions"]
    assert (row["native_id"], row["subagents"]) == (G, 1)


@pytest.mark.parametrize("seed", range(10))
def test_random_links_count_every_bubble_once(isolated_home: Path, seed: int) -> None:
    """Random parent links, both ways, with loops, self links, missing parents, children with
    transcripts of their own and ``subagents/`` files: nothing lost, nothing twice."""
    rng = random.Random(seed)
    ids = [f"dddd0000-0000-4000-8000-{seed:06d}{i:06d}" for i in range(7)]
    gone = f"ffff0000-0000-4000-8000-{seed:06d}000099"
    pool = [*ids, gone]
    composers = {}
    for i, cid in enumerate(ids):
        links: dict = {}
        if rng.random() < 0.5:
            links["subagentComposerIds"] = rng.sample(pool, rng.randint(1, 2))
        if rng.random() < 0.5:
            links["subagentInfo"] = {"parentComposerId": rng.choice(pool)}
        composers[cid] = _composer(cid, 1 << i, **links)
    # ``isSubagent`` beside a parent named (gone or not): never a reason to lose it
    named = [c for c, (data, _) in composers.items() if data.get("subagentInfo", {}).get("parentComposerId") not in (None, c)]
    _state(isolated_home, composers, subagent_headers=tuple(c for c in named if rng.random() < 0.5))
    for cid in rng.sample(ids, 3):
        write_transcript(isolated_home, "home-me-app", cid, [user("task"), assistant("ok")], flat=rng.random() < 0.5)
    parent, child = rng.sample(ids, 2)
    write_subagent(isolated_home, "home-me-app", parent, child, [user("sub task"), assistant("ok")])
    _counted_once((1 << len(ids)) - 1)


def test_the_assignment_is_a_forest_whatever_the_links() -> None:
    rng = random.Random(38)
    for _ in range(300):
        nodes = [f"n{i}" for i in range(rng.randint(1, 9))]
        pool = [*nodes, "missing"]
        named = {n: tuple(rng.sample(pool, rng.randint(1, min(2, len(pool))))) for n in nodes if rng.random() < 0.5}
        listed = {n: tuple(rng.sample(pool, rng.randint(1, min(3, len(pool))))) for n in nodes if rng.random() < 0.4}
        viable = {n for n in nodes if rng.random() < 0.8}
        forest = build(named, listed, present=set(nodes), viable=viable)
        # the same whatever order the links came in
        again = build(dict(reversed(list(named.items()))), dict(reversed(list(listed.items()))), set(nodes), viable)
        assert again.parent == forest.parent
        for node, parent in forest.parent.items():
            assert parent != node and parent in nodes
            assert node in forest.kids[parent]
        every = set(nodes) | set(forest.parent)
        roots_of = {}
        for node in sorted(every):
            chain = [node]
            while chain[-1] in forest.parent:
                chain.append(forest.parent[chain[-1]])
                assert len(chain) <= len(every) + 1, "a loop survived"
            roots_of[node] = chain[-1]
            if node in viable:  # a run that can be a session ends under one
                assert chain[-1] in viable
        for root in set(roots_of.values()):
            assert sorted(forest.descendants(root)) == sorted(n for n in every if roots_of[n] == root and n != root)


def test_a_session_with_more_runs_than_a_row_lists_still_counts_every_bubble(isolated_home: Path) -> None:
    # 600 delegated runs under one composer: every run's tokens are the parent's, none lost.
    kids = [f"dddd0000-0000-4000-8000-{n:012d}" for n in range(600)]
    composers = {kid: _composer(kid, 1) for kid in kids}
    composers[ID["P1"]] = _composer(ID["P1"], 1000, subagentComposerIds=kids)
    _state(isolated_home, composers)
    (row,) = cli_json("list", "--all")["sessions"]
    assert row["tokens"]["total"] == 1600 and row["subagents"] == 600
    assert cli_json("tokens")["total"]["total"] == 1600
