"""The real Claude Code samples, laid out as a home, against ccusage's totals.

Expected numbers come from ccusage 20.0.24, run once by hand on the home that
``lay_out_real_claude`` builds:

    npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24
    python -c "from tests.builders import lay_out_real_claude; ..."   # -> $FAKE
    cd $FAKE && env -i PATH="$PATH" HOME=$FAKE LOG_LEVEL=0 \
        node_modules/.bin/ccusage claude session --json --offline

Each tuple is (inputTokens, cacheReadTokens, cacheCreationTokens, outputTokens)
copied from that output.  The derived 0a1b2c3d… pair has no usage at all, so
ccusage omits it and we report ``null``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.pricing import PriceBook
from agentscan.scan.costs import with_costs
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import lay_out_real_claude

CCUSAGE_20_0_24 = {
    "48f428f9-72d8-40b2-9594-953019809473": (88, 425666, 70925, 22),
    "258c7280-ae70-4798-800f-63464d01a85d": (24, 324234, 58326, 655),
    "e9f146fa-3b20-48d0-9be4-d99ca901cae4": (137, 730586, 69676, 3602),
    "488c5296-fc78-4fdf-8cfd-f1cae9454bd0": (46, 210429, 43344, 386),
    "491e126e-1e71-469c-ade2-fcc8af567c74": (1568, 179771, 18313, 1112),
    "d6e0bada-1959-4eec-a9d2-0bfade768d8f": (54, 88231, 17696, 212),
    "55604662-cf2a-4331-851a-ec234028f8ca": (3, 11515, 13835, 13),
    "example-session-claude-01": (835, 25337, 13980, 258),
    "06090cb1-3e64-433a-bc7e-a621c0f596d2": (6, 3057, 1045, 16),
    "ses_stage0_small": (10, 0, 0, 5),
}

# ``totalCost`` of each session in the same ccusage output (LiteLLM's prices).  ccusage bills
# ``cache_creation.ephemeral_1h_input_tokens`` at the one-hour rate, as we do; every session
# agrees to the cent and, in fact, to 1e-9 (docs/providers/claude.md, "Cost").
CCUSAGE_COST_20_0_24 = {
    "48f428f9-72d8-40b2-9594-953019809473": 0.65710425,
    "258c7280-ae70-4798-800f-63464d01a85d": 0.5862762,
    "e9f146fa-3b20-48d0-9be4-d99ca901cae4": 0.5349018,
    "488c5296-fc78-4fdf-8cfd-f1cae9454bd0": 0.3859945,
    "491e126e-1e71-469c-ade2-fcc8af567c74": 0.3086555,
    "d6e0bada-1959-4eec-a9d2-0bfade768d8f": 0.2266455,
    "55604662-cf2a-4331-851a-ec234028f8ca": 0.1444475,
    "example-session-claude-01": 0.1106685,
    "06090cb1-3e64-433a-bc7e-a621c0f596d2": 0.0124085,
    "ses_stage0_small": 0.000175,
}

# Where we differ from ccusage's `session` report, on purpose: the
# spotter-agent-progress sample (491e126e…) lost its subagent transcript
# (afb92ff), and the parent's agent_progress records still hold 5 distinct
# calls of it (ccusage `session` ignores them; its `daily` report counts
# them).  Hand count of the file, one line per (message.id, requestId):
#                                    input  cache_read  cache_write  output
#   line 38 msg_0199s85G… req_…FKcx      2       15584         2398       3
#   line 44 msg_01ATQQnz… req_…UCmK      6       17982          362       1
#   line 48 msg_01ALuB14… req_…g6sp      6       18344         2384       1
#   line 52 msg_01LfZhXE… req_…rPkt      6       20728         1977       1
#   line 54 msg_018iZteh… req_…ztER      4       22705         7164       1
#   recovered                          24       95343        14285       7
# (lines 40, 42, 46 and 50 repeat calls already counted.)
RECOVERED_AFB92FF = (24, 95343, 14285, 7)
EXPECTED = dict(CCUSAGE_20_0_24)
EXPECTED["491e126e-1e71-469c-ade2-fcc8af567c74"] = tuple(
    a + b for a, b in zip(CCUSAGE_20_0_24["491e126e-1e71-469c-ade2-fcc8af567c74"], RECOVERED_AFB92FF)
)
# Their cost (claude-haiku-4-5: $1 in, $0.10 cache read, $2 one-hour cache write
# (every copy's cache_creation is ephemeral_1h), $5 out, per million):
# 24 * 1 + 95343 * 0.10 + 14285 * 2 + 7 * 5 = 38163.3 per million.
EXPECTED_COST = dict(CCUSAGE_COST_20_0_24)
EXPECTED_COST["491e126e-1e71-469c-ade2-fcc8af567c74"] += (24 * 1 + 95343 * 0.10 + 14285 * 2 + 7 * 5) / 1e6
# Its one call ran on US-only inference (``usage.inference_geo`` ``"us"``), billed at 1.1x every
# token rate, which ccusage does not read (docs/pricing.md, "Claude's US-only inference"):
# 10 in and 5 out of Opus 5, $0.000175 at list price.
EXPECTED_COST["ses_stage0_small"] = (10 * 5 + 5 * 25) * 1.1 / 1e6


@pytest.fixture
def real_home(isolated_home: Path) -> Path:
    lay_out_real_claude(isolated_home)
    return isolated_home


def test_every_session_total_equals_ccusage_or_the_recovered_hand_count(real_home: Path) -> None:
    report = token_report(Scanner(home=real_home), by="session")
    ours = {
        row.key.removeprefix("claude:"): (row.tokens.input, row.tokens.cache_read, row.tokens.cache_write, row.tokens.output)
        for row in report.rows
        if row.tokens is not None
    }
    assert ours == EXPECTED
    empty = [row.key for row in report.rows if row.tokens is None]
    assert empty == ["claude:0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"]


def test_every_session_cost_equals_ccusage_or_the_recovered_hand_count(real_home: Path) -> None:
    scanner = Scanner(home=real_home)
    report = token_report(scanner, by="session")
    ours = {row.key.removeprefix("claude:"): row.cost for row in report.rows if row.tokens is not None}
    assert set(ours) == set(EXPECTED_COST)
    for session, cost in EXPECTED_COST.items():
        assert ours[session] is not None and abs(float(ours[session]) - cost) < 1e-9, session
    assert [row.cost for row in report.rows if row.tokens is None] == [None]
    # No model is unknown here; the zero-token "<synthetic>" turns cost nothing and warn nothing.
    assert scanner.warnings == []
    rows = {row.native_id: row for row in with_costs(scanner, scanner.list_sessions(), scanner.refs(),
                                                        PriceBook(scanner.ctx))}
    for session, cost in EXPECTED_COST.items():
        assert abs(float(rows[session].cost) - cost) < 1e-9, session


def test_list_row_totals_agree_with_tokens(real_home: Path) -> None:
    scanner = Scanner(home=real_home)
    rows = {row.native_id: row for row in scanner.list_sessions(limit=25)}
    assert len(rows) == 11
    for native_id, (inp, cache_read, cache_write, out) in EXPECTED.items():
        tokens = rows[native_id].tokens
        assert (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output) == (inp, cache_read, cache_write, out)


def test_subagents_roll_into_parent_and_are_not_sessions(real_home: Path) -> None:
    scanner = Scanner(home=real_home)
    ids = {ref.native_id for ref in scanner.refs()}
    assert not any(native_id.startswith("agent-") for native_id in ids)
    row = scanner.row(scanner.resolve("258c7280"))
    assert row.subagents == 2
    # cwd comes from the records (the publisher rewrote it to USER); the dir name says "marco".
    assert row.cwd == "/home/USER/projects/spotter-worktrees/spotter-gqc"
    report = token_report(scanner, ids=["258c7280"])
    (only,) = report.rows
    assert [sub_id for sub_id, _ in only.subagents] == ["a881341", "acompact-fffbd0"]
    assert only.own is not None and only.tokens.total == only.own.total + sum(t.total for _, t in only.subagents)


def test_parentless_subagent_appears_under_parent_id(real_home: Path) -> None:
    scanner = Scanner(home=real_home)
    row = scanner.row(scanner.resolve("example-session-claude-01"))
    assert row.subagents == 1
    assert row.tokens is not None and row.tokens.total == 835 + 25337 + 13980 + 258


def test_show_of_a_real_session(real_home: Path) -> None:
    detail = Scanner(home=real_home).show("0a1b2c3d-4e5f")
    assert detail.row.title == "Delegate a repo search to a subagent"
    (sub,) = detail.subagents
    assert sub.id == "a0ad4f44468bdf20d"
    assert sub.agent_type == "general-purpose"  # from the .meta.json sidecar
    assert detail.row.tokens is None  # the derived pair records no usage


def test_custom_title_beats_first_prompt(real_home: Path) -> None:
    scanner = Scanner(home=real_home)
    assert scanner.row(scanner.resolve("ses_stage0_small")).title == "Stage0 small fixture"
