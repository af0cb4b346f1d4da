"""Every real sample, and the format traps of the shared reference, through every command.

A trap handled by ``tokens`` alone is half handled: ``list``, ``export`` and ``show`` build a
session's row on other paths (the row's pass, a huge transcript's read from its end, the
index), and a cached run answers from what an earlier one kept.  So each home below is read
by ``list --json``, ``tokens --json --by session``, ``export -f jsonl`` and ``show --json`` of
each session, cold, warm (from the index) and with ``--no-cache``: a session's tokens must be
the same in all four, a cached run must print what ``--no-cache`` prints, and each total must
be its hand count (worked out in the comments; the real ones equal ccusage 20.0.24's
``session --json --offline`` but where docs/providers/claude.md says why not).
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

import codex_builders as cx
import cursor_builders as cb
import gemini_builders as gm
from builders import (
    REAL,
    claude_assistant,
    claude_progress,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    invoke,
    lay_out_real_claude,
    write_jsonl,
)

FIELDS = ("input", "cache_read", "cache_write", "output", "reasoning", "total")
#: the real samples' session totals (fixtures/real/SOURCES.md names each sample)
REAL_TOTALS = {
    "claude:48f428f9-72d8-40b2-9594-953019809473": 496_701,  # entire 2.1.12 checkpoint
    "claude:258c7280-ae70-4798-800f-63464d01a85d": 383_239,  # 2.1.39 + subagents a881341, acompact
    "claude:e9f146fa-3b20-48d0-9be4-d99ca901cae4": 804_001,  # 1.0.95 (records of b162b1ae… too)
    "claude:488c5296-fc78-4fdf-8cfd-f1cae9454bd0": 254_205,  # 2.0.76: output 1 -> 96 kept at 96
    # 200,764 by ccusage: + 109,659 of subagent afb92ff's progress copies (claude.md, "Counting rules")
    "claude:491e126e-1e71-469c-ade2-fcc8af567c74": 310_423,
    "claude:d6e0bada-1959-4eec-a9d2-0bfade768d8f": 106_193,
    "claude:55604662-cf2a-4331-851a-ec234028f8ca": 25_366,  # one call over 5 records
    "claude:example-session-claude-01": 40_410,  # a subagent file with no parent transcript
    "claude:609efeca-2f51-4118-b077-e91c9fe63f73": 44_374,  # inline sidechain; toolUseResult.usage never
    "claude:0e26ec2f-937e-482c-b889-bc126f996913": 15_808,  # = its compact_boundary's preTokens
    "claude:3423aa0a-0ebe-4ed0-a291-abc0b466990d": 85_726,
    "claude:06090cb1-3e64-433a-bc7e-a621c0f596d2": 4_124,
    "claude:ses_stage0_small": 15,
    "codex:01996135-afde-7911-97f0-d863511eca56": 283_081,  # = its final total_token_usage
    "codex:019e9625-802f-7e91-840a-cfe88d14117a": 22_549,
    "codex:019fc8be-3658-7ca3-9e29-000000000000": 16_422,
    "gemini:eefc44a3-0832-4bc0-ac33-fa668f038213": 473_586,  # Σ tokens.total
    "gemini:2d9ea14f-1e4e-44f6-8bf5-7a7819cb1cd9": 178_576,
    "gemini:8a20078e-2d5e-4f81-a640-9b879bbb7e6d": 97_289,
    "gemini:0ab84937-9fe7-4284-986a-33c832af0b6a": 206_879,  # last copy of each of 5 repeated ids
}
REAL_NO_USAGE = {  # recorded no usage: null tokens everywhere
    "claude:0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f", "cursor:aaaaaaaa-0000-0000-0000-000000000001",
    "cursor:bbbbbbbb-0000-0000-0000-000000000002", "cursor:sanitized-agent-sessions-test-session",
    "cursor:synthetic-agent-sessions-stage0-small-turn_ended", "cursor:synthetic-cursor-history-error-line",
    "cursor:synthetic-cursor-history-multi-parts",
}


def _lay_out_every_real_sample(home: Path) -> None:
    lay_out_real_claude(home)
    for name, native in (("agentlogs-compact-boundary-v2.0.13.jsonl", "0e26ec2f-937e-482c-b889-bc126f996913"),
                         ("agentlogs-inline-sidechain-v2.0.13.jsonl", "609efeca-2f51-4118-b077-e91c9fe63f73"),
                         ("greenbelt-cost-state-v2.1.268.trimmed.jsonl", "3423aa0a-0ebe-4ed0-a291-abc0b466990d")):
        target = home / ".claude" / "projects" / "-fixtures-more" / f"{native}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REAL / "claude" / name, target)
    cx.lay_out_real_codex(home)
    gm.lay_out_real_gemini(home)
    legacy = REAL / "gemini" / "session-2025-10-11T13-00-2d9ea14f.json"
    chats = home / ".gemini" / "tmp" / json.loads(legacy.read_text("utf-8"))["projectHash"] / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(legacy, chats / legacy.name)
    cb.copy_real_dot_cursor(home)
    for name in ("sanitized-agent-sessions-test-session", "synthetic-agent-sessions-stage0-small-turn_ended",
                 "synthetic-cursor-history-error-line", "synthetic-cursor-history-multi-parts"):
        cb.copy_real_sample(f"{name}.jsonl", cb.transcripts_dir(home, "home-dev-real") / name / f"{name}.jsonl")
    cb.copy_real_sample("sanitized-agent-sessions-subagent-session.jsonl",
                        cb.transcripts_dir(home, "home-dev-real") / "sanitized-agent-sessions-test-session"
                        / "subagents" / "11111111-2222-4333-8444-555555555555.jsonl")


def _stdout(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def _tokens_of(value: dict | None) -> tuple | None:
    return None if value is None else tuple(value[field] for field in FIELDS)


def _one_run(*flags: str, tokens_first: bool = False) -> tuple[dict[str, tuple | None], list[str]]:
    """Each session's tokens as all four commands say them (asserted equal), and the outputs.
    ``tokens_first``: a ``list`` after ``tokens`` takes the rows its sums' pass kept."""
    if tokens_first:
        report = _stdout(*flags, "tokens", "--by", "session", "--json")
    listed = _stdout(*flags, "list", "--all", "--json")
    if not tokens_first:
        report = _stdout(*flags, "tokens", "--by", "session", "--json")
    exported = _stdout(*flags, "export", "-f", "jsonl")
    by_list = {row["id"]: _tokens_of(row["tokens"]) for row in orjson.loads(listed)["sessions"]}
    by_tokens = {row["key"]: _tokens_of(row["tokens"]) for row in orjson.loads(report)["rows"]}
    by_export = {record["id"]: _tokens_of(record["tokens"]) for record in map(orjson.loads, exported.splitlines())}
    shown = []
    for session in sorted(by_list):
        shown.append(_stdout(*flags, "show", "--json", session))
        by_show = _tokens_of(orjson.loads(shown[-1])["session"]["tokens"])
        assert by_show == by_list[session] == by_export[session] == by_tokens.get(session), session
    assert set(by_export) == set(by_list)
    assert {key for key, value in by_list.items() if value is not None} <= set(by_tokens) <= set(by_list)
    return by_list, [listed, report, exported, *shown]


def _every_way() -> dict[str, tuple | None]:
    """``_one_run`` cold (``tokens`` first), warm and with ``--no-cache`` (each row read by its
    own pass): the three print the same bytes."""
    cold, cold_out = _one_run(tokens_first=True)
    warm, warm_out = _one_run()
    fresh, fresh_out = _one_run("--no-cache")
    assert cold == warm == fresh
    assert cold_out == warm_out == fresh_out
    return fresh


def test_every_real_sample_agrees_on_every_path(isolated_home: Path) -> None:
    _lay_out_every_real_sample(isolated_home)
    sessions = _every_way()
    assert {session: tokens[-1] for session, tokens in sessions.items() if tokens is not None} == REAL_TOTALS
    assert {session for session, tokens in sessions.items() if tokens is None} == REAL_NO_USAGE


# -- the traps, one small session each -------------------------------------------------

U = claude_usage
T0 = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
GEMINI_ROOT = "/home/dev/gproj"


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _claude(number: int) -> str:
    return f"aaaaaaaa-0000-4000-8000-{number:012d}"


def _claude_traps(home: Path) -> dict[str, int]:
    def session(number: int, *records: dict) -> str:
        native = _claude(number)
        claude_session_file(home, native, [claude_user(native, f"2026-11-01T{number:02d}:00:00.000Z", f"trap {number}"),
                                           *records])
        return native

    def call(native: str, second: int, msg: Any, req: Any, usage: dict, **extra: Any) -> dict:
        return claude_assistant(native, f"2026-11-01T{int(native[-2:]):02d}:00:{second:02d}.000Z", msg_id=msg,
                                request_id=req, usage=usage, **extra)

    a, b, c, d, e, f = (_claude(n) for n in range(1, 7))
    # 1.6 rule 2: a streamed call's output grows 1 -> 96, then a smaller copy: the largest counts
    session(1, call(a, 1, "m1", "r1", U(3, 1, 100, 50)), call(a, 2, "m1", "r1", U(3, 96, 100, 50)),
            call(a, 3, "m1", "r1", U(3, 8, 100, 50)))
    # 1.6 rule 6 and peers #976: bare copies of one message count once; records with no id each
    session(2, call(b, 1, "m2", None, U(5, 10)), call(b, 2, "m2", None, U(5, 20)),
            call(b, 3, None, None, U(7, 7)), call(b, 4, None, None, U(7, 7)))
    # 1.7 legacy (< 2.1.2): agent-<8hex>.jsonl beside the sessions, the parent's sessionId
    session(3, call(c, 1, "m3", "r3", U(10, 10)))
    write_jsonl(home / ".claude" / "projects" / "-home-dev-project" / "agent-1a2b3c4d.jsonl", [
        claude_user(c, "2026-11-01T03:00:02.000Z", "sub", sidechain=True, agentId="1a2b3c4d"),
        call(c, 3, "m3s", "r3s", U(100, 100), sidechain=True, agentId="1a2b3c4d")])
    # 1.1 workflow runs: subagents/workflows/<wf>/agent-*.jsonl count; journal.jsonl is no subagent
    session(4, call(d, 1, "m4", "r4", U(10, 10)))
    workflow = home / ".claude" / "projects" / "-home-dev-project" / d / "subagents" / "workflows" / "wf_1"
    write_jsonl(workflow / "agent-abc123.jsonl", [call(d, 3, "m4w", "r4w", U(1000, 1000), sidechain=True, agentId="abc123")])
    write_jsonl(workflow / "journal.jsonl", [{"type": "step"}])
    # 1.6 rule 5: a /btw log replays the parent's message under another requestId: dropped
    session(5, call(e, 1, "m5", "r5", U(10, 10)))
    claude_subagent_file(home, e, "aside_question-1", [
        call(e, 1, "m5", "r5b", U(10, 10), sidechain=True, agentId="aside_question-1"),
        call(e, 5, "m5q", "r5q", U(1, 1), sidechain=True, agentId="aside_question-1")])
    # 1.3: a "<synthetic>" API error record spends nothing and names no model of the session
    session(6, call(f, 1, "m6", "r6", U(10, 10)),
            call(f, 2, "m6e", None, U(0, 0), model="<synthetic>", isApiErrorMessage=True))
    # 1.1 roots: ~/.config/claude/projects is read beside ~/.claude/projects
    g = _claude(7)
    write_jsonl(home / ".config" / "claude" / "projects" / "-home-dev-project" / f"{g}.jsonl", [
        claude_user(g, "2026-11-01T07:00:00.000Z", "xdg root"), call(g, 1, "m7", "r7", U(10, 10))])
    return {a: 249, b: 25 + 14 + 14, c: 20 + 200, d: 20 + 2000, e: 20 + 2, f: 20, g: 20}


def _codex_traps(home: Path) -> dict[str, int]:
    def thread(number: int) -> str:
        return f"019a0000-0000-7000-8000-{number:012d}"

    def opening(native: str, second: int, text: str) -> list[dict]:
        return [cx.meta(native, _at(second)), cx.turn_context(_at(second + 1)), cx.user_message(_at(second + 2), text)]

    one, two, three, four, five = (thread(n) for n in range(1, 6))
    # 2.6: no last_token_usage (the totals' growth), info null, a re-emitted total: 110 + 220
    cx.write_rollout(cx.rollout_path(home / ".codex", one, _at(0)), [
        *opening(one, 0, "deltas"), cx.token_count(_at(3), cx.usage(100, 40, 10, 5)), cx.token_count(_at(4), None),
        cx.token_count(_at(5), cx.usage(100, 40, 10, 5)), cx.token_count(_at(6), cx.usage(300, 140, 30, 5))])
    # 2.1: a rollout both plain and .zst, and one both active and archived: each counts once
    for native, second in ((two, 100), (three, 200)):
        records = [*opening(native, second, "twin"), cx.token_count(_at(second + 3), cx.usage(50, 0, 5), cx.usage(50, 0, 5))]
        path = cx.write_rollout(cx.rollout_path(home / ".codex", native, _at(second)), records)
        twin = path.with_name(path.name + ".zst") if native == two else cx.rollout_path(home / ".codex", native, _at(second), archived=True)
        cx.write_rollout(twin, records)
    # 2.1 very old flat layout, 2.3 the meta's session_id alias
    flat = opening(four, 300, "flat alias")
    flat[0]["payload"]["session_id"] = flat[0]["payload"].pop("id")
    cx.write_rollout(cx.rollout_path(home / ".codex", four, _at(300), flat=True),
                     [*flat, cx.token_count(_at(303), cx.usage(90, 0, 9), cx.usage(90, 0, 9))])
    # 2.4: a token_count's own info.model (some builds)
    named = cx.token_count(_at(403), cx.usage(60, 0, 6), cx.usage(60, 0, 6))
    named["payload"]["info"]["model"] = "gpt-5.1-codex-mini"
    cx.write_rollout(cx.rollout_path(home / ".codex", five, _at(400)), [*opening(five, 400, "event model"), named])
    return {one: 330, two: 55, three: 55, four: 99, five: 66}


def _gemini_traps(home: Path) -> dict[str, int]:
    tmp = home / ".gemini" / "tmp" / "gproj"
    chats = tmp / "chats"
    chats.mkdir(parents=True)
    (tmp / ".project_root").write_text(GEMINI_ROOT)
    project = gm.sha256_hex(GEMINI_ROOT)
    main, twin, child = "0bbbbbbb-0000-4000-8000-000000000001", "0ccccccc-0000-4000-8000-000000000002", "0ddddddd-0000-4000-8000-000000000003"
    # 3.3/3.4: the last copy of an id counts (cached inside input; thoughts, tool outside output);
    # a $rewindTo an unknown id clears the chat, and its calls still count
    write_jsonl(chats / "session-2026-11-03T10-00-0bbbbbbb.jsonl", [
        gm.meta(main, project_hash=project, start="2026-11-03T10:00:00.000Z"),
        gm.user("u1", "2026-11-03T10:00:00.000Z", "tool tokens"),
        gm.gemini("g1", "2026-11-03T10:00:01.000Z", "a", usage=gm.tokens(1000, 100, cached=400, thoughts=50, tool=30)),
        gm.gemini("g1", "2026-11-03T10:00:02.000Z", "a", usage=gm.tokens(1000, 120, cached=400, thoughts=50, tool=30)),
        gm.gemini("g2", "2026-11-03T10:00:04.000Z", "b", usage=gm.tokens(10, 1)), gm.rewind("not-there"),
        gm.user("u3", "2026-11-03T10:00:05.000Z", "after rewind"),
        gm.gemini("g3", "2026-11-03T10:00:06.000Z", "c", usage=gm.tokens(20, 2))])
    # 3.1: a subagent chat, chats/<parent>/<id>.jsonl, counts in its parent
    write_jsonl(chats / main / f"{child}.jsonl", [
        gm.meta(child, project_hash=project, start="2026-11-03T10:00:02.000Z", kind="subagent"),
        gm.user("s1", "2026-11-03T10:00:02.000Z", "sub"),
        gm.gemini("s2", "2026-11-03T10:00:03.000Z", "z", usage=gm.tokens(300, 30))])
    # 3.1: a legacy .json migrated into a .jsonl beside it on resume: one session, each call once
    messages = [gm.user("v1", "2026-11-03T11:00:00.000Z", "twin"),
                gm.gemini("w1", "2026-11-03T11:00:01.000Z", "x", usage=gm.tokens(500, 50))]
    head = gm.meta(twin, project_hash=project, start="2026-11-03T11:00:00.000Z")
    (chats / "session-2026-11-03T11-00-0ccccccc.json").write_text(json.dumps({**head, "messages": messages}))
    write_jsonl(chats / "session-2026-11-03T11-05-0ccccccc.jsonl", [
        head, *messages, gm.user("v2", "2026-11-03T11:05:00.000Z", "resumed"),
        gm.gemini("w2", "2026-11-03T11:05:01.000Z", "y", usage=gm.tokens(600, 60))])
    return {main: 1200 + 11 + 22 + 330, twin: 550 + 660}


def test_every_format_trap_agrees_on_every_path(isolated_home: Path) -> None:
    expected = {f"claude:{k}": v for k, v in _claude_traps(isolated_home).items()}
    expected.update({f"codex:{k}": v for k, v in _codex_traps(isolated_home).items()})
    expected.update({f"gemini:{k}": v for k, v in _gemini_traps(isolated_home).items()})
    sessions = _every_way()
    assert {session: tokens[-1] for session, tokens in sessions.items() if tokens is not None} == expected
    gemini = sessions["gemini:0bbbbbbb-0000-4000-8000-000000000001"]
    # input 1000 - 400 cached + 30 tool, + 10 + 20 + the subagent's 300; output 120 + 50 thoughts + 1 + 2 + 30
    assert gemini == (960, 400, 0, 203, 50, 1563)


# -- a trap's copies written after a cached run ---------------------------------------


def _append(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(b"".join(orjson.dumps(record) + b"\n" for record in records))
    stamp = path.stat().st_mtime + 2  # a later write, whatever the clock's grain
    os.utime(path, (stamp, stamp))


@pytest.mark.parametrize("cached_first", ["list", "tokens"])
def test_a_trap_s_later_copy_counts_as_if_read_at_once(isolated_home: Path, cached_first: str) -> None:
    project = isolated_home / ".claude" / "projects" / "-home-dev-project"
    grow, gateway, progress, aside = (_claude(n) for n in (11, 12, 13, 14))
    sub = claude_assistant(progress, "2026-11-01T13:00:02.000Z", msg_id="mcs", request_id="rcs",
                           usage=U(100, 100), sidechain=True, agentId="a1b2c3d")
    first = {
        grow: [claude_user(grow, "2026-11-01T11:00:00.000Z", "grow"),
               claude_assistant(grow, "2026-11-01T11:00:01.000Z", msg_id="ma", request_id="ra", usage=U(3, 8, 100, 50))],
        gateway: [claude_user(gateway, "2026-11-01T12:00:00.000Z", "gateway"),
                  claude_assistant(gateway, "2026-11-01T12:00:01.000Z", msg_id="mb", request_id="rb", usage=U(5, 10))],
        progress: [claude_user(progress, "2026-11-01T13:00:00.000Z", "progress first"),
                   claude_assistant(progress, "2026-11-01T13:00:01.000Z", msg_id="mc", request_id="rc", usage=U(10, 10)),
                   claude_progress(progress, "2026-11-01T13:00:03.000Z", "a1b2c3d", sub)],
        aside: [claude_user(aside, "2026-11-01T14:00:00.000Z", "btw later"),
                claude_assistant(aside, "2026-11-01T14:00:01.000Z", msg_id="md", request_id="rd", usage=U(10, 10))],
    }
    for native, records in first.items():
        _append(project / f"{native}.jsonl", records)
    _stdout(cached_first, "--json") if cached_first == "tokens" else _stdout("list", "--all", "--json")
    # the streamed copy grows; the gateway's bare copy of rb; the subagent's transcript after its
    # progress copy (plus a last call no progress copy has); a /btw replay of the parent's md
    _append(project / f"{grow}.jsonl", [claude_assistant(grow, "2026-11-01T11:00:02.000Z", msg_id="ma", request_id="ra",
                                                         usage=U(3, 108, 100, 50))])
    _append(project / f"{gateway}.jsonl", [claude_assistant(gateway, "2026-11-01T12:00:02.000Z", msg_id="mb",
                                                            request_id=None, usage=U(5, 30))])
    _append(project / progress / "subagents" / "agent-a1b2c3d.jsonl", [
        claude_user(progress, "2026-11-01T13:00:01.500Z", "task", sidechain=True, agentId="a1b2c3d"), sub,
        claude_assistant(progress, "2026-11-01T13:00:04.000Z", msg_id="mcs2", request_id="rcs2", usage=U(7, 7),
                         sidechain=True, agentId="a1b2c3d")])
    _append(project / aside / "subagents" / "agent-aside_question-9.jsonl", [
        claude_assistant(aside, "2026-11-01T14:00:01.000Z", msg_id="md", request_id="rd2", usage=U(50, 50),
                         sidechain=True, agentId="aside_question-9")])
    sessions = _every_way()
    assert {session.removeprefix("claude:"): tokens[-1] for session, tokens in sessions.items()} == {
        grow: 3 + 108 + 100 + 50, gateway: 5 + 30, progress: 20 + 200 + 14, aside: 20}


def test_a_streamed_call_across_midnight_is_on_its_kept_copy_s_day(isolated_home: Path) -> None:
    # The copy counted (output 96, the largest) was written at 00:00:01 on 2026-11-02; its first
    # copy at 23:59:59 the day before.  Every day view puts the call where ccusage's daily does,
    # on the 2nd (codeburn#201 kept the last copy's tokens at the first copy's time).
    native = _claude(21)
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-01T23:59:58.000Z", "midnight"),
        *(claude_assistant(native, ts, msg_id="m1", request_id="r1", usage=U(10, out))
          for ts, out in (("2026-11-01T23:59:59.000Z", 1), ("2026-11-02T00:00:01.000Z", 96), ("2026-11-02T00:00:02.000Z", 5)))])
    for flags in ((), (), ("--no-cache",)):
        by_day = orjson.loads(_stdout(*flags, "tokens", "--by", "day", "--tz", "UTC", "--json"))["rows"]
        assert [(row["key"], row["tokens"]["total"]) for row in by_day] == [("2026-11-02", 106)]
        days = [orjson.loads(line) for line in _stdout(*flags, "export", "--days", "-f", "jsonl", "--tz", "UTC").splitlines()]
        assert [(day["day"], day["tokens"]["total"]) for day in days] == [("2026-11-02", 106)]
        since = orjson.loads(_stdout(*flags, "tokens", "--since", "2026-11-02", "--tz", "UTC", "--json"))
        until = orjson.loads(_stdout(*flags, "tokens", "--until", "2026-11-01", "--tz", "UTC", "--json"))
        assert (since["total"]["total"], until["total"]["total"]) == (106, 0)
