"""The peers' known-answer home and the fixture traps that broke them (research/peers.md §3).

Each rule has its own test elsewhere (test_claude_counting, test_codex_counting, the
Gemini and Cursor token tests); this file runs them together, the way the peers were
run: one home holding all four providers, whose answers ccusage 20.0.24 got right and
tokscale 1.4.3, agentsview 0.46.1, claude-code-log 1.7.0 and agent-sessions 0.2.0 did
not.  A regression in any one rule changes a number here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import orjson
import pytest

import codex_builders as cx
import cursor_builders as cu
import gemini_builders as gm
from builders import (
    claude_assistant,
    claude_session_file,
    claude_slug,
    claude_subagent_file,
    claude_usage,
    claude_user,
    cli_json,
    write_jsonl,
)

A = "aaaaaaaa-1111-4000-8000-000000000001"
B = "bbbbbbbb-1111-4000-8000-000000000002"
CODEX = "019a0000-0000-7000-8000-00000000c0de"
GEMINI = "9e000000-0000-4000-8000-0000000000a1"
CURSOR = "c0c0c0c0-0000-4000-8000-000000000001"
#: a cwd whose dash makes Claude Code's project dir name ambiguous (claude-history decoded
#: ``-home-u-proj-a`` as ``/home/u/proj/a``): the records' own ``cwd`` is the answer
CWD = "/home/u/proj-a"


def claude_a() -> list[dict[str, Any]]:
    """Session A: one call streamed twice (output 5, then 120: first-wins undercounts) and a second call."""
    return [
        claude_user(A, "2026-11-01T10:00:00Z", "refactor the cart", cwd=CWD),
        claude_assistant(A, "2026-11-01T10:00:01Z", msg_id="msg_A", request_id="req_A",
                         usage=claude_usage(10, 5, 1000, 1000), cwd=CWD),
        claude_assistant(A, "2026-11-01T10:00:02Z", msg_id="msg_A", request_id="req_A",
                         usage=claude_usage(10, 120, 1000, 1000), cwd=CWD),
        claude_assistant(A, "2026-11-01T10:00:03Z", msg_id="msg_B", request_id="req_B",
                         usage=claude_usage(20, 200), cwd=CWD),
    ]


def claude_a_subagent() -> list[dict[str, Any]]:
    return [
        claude_user(A, "2026-11-01T10:00:04Z", "look around", sidechain=True, agentId="a1b2c3", cwd=CWD),
        claude_assistant(A, "2026-11-01T10:00:05Z", msg_id="msg_S", request_id="req_S",
                         usage=claude_usage(30, 300, 500), sidechain=True, agentId="a1b2c3", cwd=CWD),
    ]


def claude_b() -> list[dict[str, Any]]:
    return [
        claude_user(B, "2026-11-01T11:00:00Z", "tiny", cwd=CWD),
        claude_assistant(B, "2026-11-01T11:00:01Z", msg_id="msg_T", request_id="req_T", usage=claude_usage(1, 1), cwd=CWD),
    ]


def codex_rollout() -> list[dict[str, Any]]:
    """Three ``token_count``s, the middle one a pure re-emit (tokscale 1.4.3 counted it), and no
    assistant ``response_item`` before them (agentsview 0.46.1 then reported 0)."""
    return [
        cx.meta(CODEX, cx.at(0)),
        cx.turn_context(cx.at(1)),
        cx.user_message(cx.at(1), "fix the build"),
        cx.token_count(cx.at(2), cx.usage(1000, 500, 100, 50), cx.usage(1000, 500, 100, 50)),
        cx.token_count(cx.at(3), cx.usage(1000, 500, 100, 50), cx.usage(1000, 500, 100, 50)),
        cx.token_count(cx.at(4), cx.usage(3000, 1700, 400, 150), cx.usage(2000, 1200, 300, 100)),
    ]


def gemini_chat() -> list[dict[str, Any]]:
    """``input`` 5000 already holds ``cached`` 1000 (tokscale and agentsview added both)."""
    return [
        gm.meta(GEMINI, start="2026-11-01T12:00:00.000Z"),
        gm.user("u1", "2026-11-01T12:00:00.000Z", "explain the parser"),
        gm.gemini("g1", "2026-11-01T12:00:01.000Z", "It reads lines.", usage=gm.tokens(5000, 400, cached=1000, thoughts=200)),
    ]


def write_spaced(path: Path, records: Iterable[Any]) -> Path:
    """JSONL as ``json.dumps`` writes it by default, ``": "`` and ``", "`` (ccusage 20.0.24's
    byte-marker scanner found 0 Claude and 0 Codex sessions in such files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def lay_out_known_answer_home(home: Path, *, spaced: bool = False) -> None:
    project = claude_slug(CWD)
    claude_session_file(home, A, claude_a(), project=project)
    claude_subagent_file(home, A, "a1b2c3", claude_a_subagent(), project=project)
    claude_session_file(home, B, claude_b(), project=project)
    cx.write_rollout(cx.rollout_path(home / ".codex", CODEX, cx.at(0)), codex_rollout())
    gm.write_chat(home, "proj", f"session-2026-11-01T12-00-{GEMINI[:8]}.jsonl", gemini_chat())
    cu.make_state_db(
        cu.state_db_path(home),
        composers=[cu.composer_data(CURSOR, name="rename the flag", created=1793527200000,
                                    updated=1793527260000, model="claude-4.5-sonnet", bubbles=["b1", "b2"])],
        bubbles={CURSOR: [cu.bubble("b1", 1, "rename the flag"), cu.bubble("b2", 2, "Done.", tokens=(700, 90))]},
    )
    if spaced:
        for path in home.rglob("*.jsonl"):
            write_spaced(path, [orjson.loads(line) for line in path.read_bytes().splitlines()])


def parts(tokens: dict[str, int]) -> tuple[int, int, int, int, int]:
    return tokens["input"], tokens["cache_read"], tokens["cache_write"], tokens["output"], tokens["total"]


#: (input, cache read, cache write, output, total) per session: peers.md §3a's expected column
EXPECTED = {
    f"claude:{A}": (60, 1000, 1500, 620, 3180),  # subagent's 30/300/500 rolled in
    f"claude:{B}": (1, 0, 0, 1, 2),
    f"codex:{CODEX}": (1300, 1700, 0, 400, 3400),  # reasoning 150 is inside output, not added
    f"gemini:{GEMINI}": (4000, 1000, 0, 600, 5600),  # output 400 + thoughts 200; total = Gemini's own
    f"cursor:{CURSOR}": (700, 0, 0, 90, 790),
}


@pytest.mark.parametrize("spaced", [False, True], ids=["compact", "spaced"])
def test_the_known_answer_home_counts_as_ccusage_and_counts_cursor_too(isolated_home: Path, spaced: bool) -> None:
    lay_out_known_answer_home(isolated_home, spaced=spaced)
    report = cli_json("tokens", "--all")
    assert {row["key"]: parts(row["tokens"]) for row in report["rows"]} == EXPECTED
    # ccusage's 4-source figure (12,182: it reads no Cursor) plus Cursor's 790
    assert report["total"]["total"] == 12_182 + 790
    (row_a,) = [row for row in report["rows"] if row["key"] == f"claude:{A}"]
    assert [(sub["id"], parts(sub["tokens"])) for sub in row_a["subagents"]] == [("a1b2c3", (30, 0, 500, 300, 830))]
    assert parts(row_a["own"]) == (30, 1000, 1000, 320, 2350)
    codex = next(row for row in report["rows"] if row["key"] == f"codex:{CODEX}")
    gemini = next(row for row in report["rows"] if row["key"] == f"gemini:{GEMINI}")
    assert (codex["tokens"]["reasoning"], gemini["tokens"]["reasoning"]) == (150, 200)


def test_every_grouping_of_the_known_answer_home_sums_to_one_total(isolated_home: Path) -> None:
    # tokscale 1.4.3 gave 13,967 in one report and 14,167 in another for the same home.
    lay_out_known_answer_home(isolated_home)
    for by in ("session", "day", "week", "month", "model", "provider", "cwd", "agent"):
        report = cli_json("tokens", "--by", by, "--since", "2026-01-01")
        assert report["total"]["total"] == 12_972, by
        assert sum(row["tokens"]["total"] for row in report["rows"]) == 12_972, by


def test_the_known_answer_home_lists_each_session_once_with_its_own_facts(isolated_home: Path) -> None:
    lay_out_known_answer_home(isolated_home)
    rows = {row["id"]: row for row in cli_json("list", "--all")["sessions"]}
    # the subagent file is part of A, not a session of its own (claude-code#35800)
    assert sorted(rows) == sorted(EXPECTED)
    row_a = rows[f"claude:{A}"]
    # agent-sessions 0.2.0 counted the streamed copy as a third message
    assert row_a["counts"]["responses"] == 2 and row_a["subagents"] == 1
    assert row_a["cwd"] == CWD
    # docs/ccusage.md sends ccusage's `session --json` users (who want dates) to list --json:
    # its rows' tokens and cost are tokens' own
    by_session = {row["key"]: (row["tokens"], row["cost_usd"]) for row in cli_json("tokens", "--all")["rows"]}
    assert {key: (row["tokens"], row["cost_usd"]) for key, row in rows.items()} == by_session
    assert row_a["started_at"] == "2026-11-01T10:00:00.000Z" and row_a["updated_at"] == "2026-11-01T10:00:05.000Z"
    # agentsview answered "not found" for a Claude id given with its provider's prefix
    assert cli_json("tokens", f"claude:{A}")["total"] == cli_json("tokens", A)["total"]


def test_records_appended_as_spaced_json_are_read_on_the_warm_path(isolated_home: Path) -> None:
    project = claude_slug(CWD)
    path = write_spaced(isolated_home / ".claude" / "projects" / project / f"{A}.jsonl", claude_a())
    rollout = write_spaced(cx.rollout_path(isolated_home / ".codex", CODEX, cx.at(0)), codex_rollout())
    assert cli_json("tokens", "--all")["total"]["total"] == 3180 - 830 + 3400
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(claude_assistant(A, "2026-11-01T10:05:00Z", msg_id="msg_C", request_id="req_C",
                                              usage=claude_usage(5, 50), cwd=CWD)) + "\n")
    with rollout.open("a", encoding="utf-8") as out:
        out.write(json.dumps(cx.token_count(cx.at(9), cx.usage(3100, 1700, 410, 150), cx.usage(100, 0, 10))) + "\n")
    report = cli_json("tokens", "--all")
    assert {row["key"]: row["tokens"]["total"] for row in report["rows"]} == {
        f"claude:{A}": 2350 + 55, f"codex:{CODEX}": 3400 + 110}
    assert {row["id"]: row["tokens"]["total"] for row in cli_json("list", "--all")["sessions"]} == {
        f"claude:{A}": 2350 + 55, f"codex:{CODEX}": 3400 + 110}


def test_a_valid_json_line_that_is_not_an_object_skips_only_itself(isolated_home: Path) -> None:
    # agent-sessions 0.2.0 crashed (a TypeError in its warning) and listed nothing.
    records: list[Any] = [*claude_b()[:1], [1, 2, 3], "text", None, 7, *claude_b()[1:]]
    write_jsonl(isolated_home / ".claude" / "projects" / claude_slug(CWD) / f"{B}.jsonl", records)
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", CODEX, cx.at(0)), [*codex_rollout()[:3], [1, 2, 3], *codex_rollout()[3:]])
    report = cli_json("tokens", "--all")
    assert {row["key"]: row["tokens"]["total"] for row in report["rows"]} == {f"claude:{B}": 2, f"codex:{CODEX}": 3400}


def test_a_stream_copy_without_request_id_joins_the_copy_that_has_one(isolated_home: Path) -> None:
    claude_session_file(isolated_home, B, [
        claude_user(B, "2026-11-02T10:00:00Z", "mixed request ids"),
        claude_assistant(B, "2026-11-02T10:00:01Z", msg_id="msg_M", request_id="req_M", usage=claude_usage(10, 5, 100, 1000)),
        claude_assistant(B, "2026-11-02T10:00:02Z", msg_id="msg_M", request_id=None, usage=claude_usage(10, 90, 100, 1000)),
    ])
    (row,) = cli_json("tokens", "--all")["rows"]
    assert parts(row["tokens"]) == (10, 1000, 100, 90, 1200)


def test_a_btw_replay_inside_the_main_transcript_loses_to_the_parent_call(isolated_home: Path) -> None:
    # ccusage #913: a `/btw` side question replays a parent call (same message.id, its own
    # requestId, isSidechain) in the same file; counted twice, the session doubled
    claude_session_file(isolated_home, B, [
        claude_user(B, "2026-11-01T10:00:00Z", "main question"),
        claude_assistant(B, "2026-11-01T10:00:01Z", msg_id="msg_1", request_id="req_1", usage=claude_usage(10, 100, 0, 1000)),
        claude_user(B, "2026-11-01T10:00:05Z", "/btw what is x", sidechain=True),
        claude_assistant(B, "2026-11-01T10:00:06Z", msg_id="msg_1", request_id="req_side",
                         usage=claude_usage(10, 100, 0, 1000), sidechain=True),
        claude_assistant(B, "2026-11-01T10:00:07Z", msg_id="msg_2", request_id="req_2", usage=claude_usage(1, 1), sidechain=True),
    ])
    (row,) = cli_json("tokens", "--all")["rows"]
    assert parts(row["tokens"]) == (11, 1000, 0, 101, 1112)


def test_a_rollout_named_in_local_time_counts_on_its_utc_day(isolated_home: Path) -> None:
    # Codex names a rollout's dirs and file in local time, its records in UTC: a UTC-10 user's
    # 2026-10-31 23:30 rollout holds a call of 2026-11-01 09:31Z
    from datetime import datetime, timedelta, timezone

    start = datetime(2026, 11, 1, 9, 30, tzinfo=timezone.utc)
    local = start - timedelta(hours=10)
    name = f"rollout-{local.strftime('%Y-%m-%dT%H-%M-%S')}-{CODEX}.jsonl"
    cx.write_rollout(isolated_home / ".codex" / "sessions" / local.strftime("%Y/%m/%d") / name, [
        cx.meta(CODEX, start), cx.turn_context(start), cx.user_message(start, "late evening"),
        cx.token_count(start + timedelta(minutes=1), cx.usage(100, 0, 10), cx.usage(100, 0, 10)),
    ], mtime=(start + timedelta(minutes=1)).timestamp())
    report = cli_json("tokens", "--by", "day", "--since", "2026-11-01", "--until", "2026-11-01", "--tz", "UTC")
    assert [(row["key"], row["tokens"]["total"]) for row in report["rows"]] == [("2026-11-01", 110)]
    assert cli_json("tokens", "--by", "day", "--since", "2026-10-31", "--until", "2026-10-31", "--tz", "UTC")["rows"] == []


def test_a_codex_row_and_tokens_agree_when_a_running_total_jumps_past_its_call(isolated_home: Path) -> None:
    cx.write_rollout(cx.rollout_path(isolated_home / ".codex", CODEX, cx.at(0)), [
        cx.meta(CODEX, cx.at(0)), cx.turn_context(cx.at(1)), cx.user_message(cx.at(1), "disagree"),
        cx.token_count(cx.at(2), cx.usage(100, 0, 10), cx.usage(100, 0, 10)),
        cx.token_count(cx.at(3), cx.usage(999_999, 5, 77), cx.usage(1000, 5, 77)),
    ])
    (row,) = cli_json("list", "--all")["sessions"]
    (counted,) = cli_json("tokens", "--all")["rows"]
    assert row["tokens"] == counted["tokens"]
