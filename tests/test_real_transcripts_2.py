"""Two more real Claude Code 2.0.13 sessions (tomjnsn/agentlogs, MIT; see fixtures/real/SOURCES.md).

Expected numbers are hand counts of the files, one line per (message.id, requestId),
keeping the copy with the largest total (docs/providers/claude.md, rules 1-5):

agentlogs-compact-boundary-v2.0.13.jsonl (session 0e26ec2f…): one call, written twice
    msg_01M6vN… req_…vgkc   input 10, cache_read 13522, cache_write 2128, output 6 then 148
    -> (10, 13522, 2128, 148); total 15,808 = the compact_boundary's own ``preTokens``.
    The file also holds ``/clear`` and ``/compact`` wrappers, an ``isMeta`` caveat, a
    ``compact_boundary`` (``logicalParentUuid``) and an ``isCompactSummary`` user record whose
    text is NOT a prompt: the title is the first typed prompt, "how are you doing".

agentlogs-inline-sidechain-v2.0.13.jsonl (session 609efeca…): a build that wrote the Task
subagent's records INLINE in the parent transcript (``isSidechain: true``, no ``agentId``,
no subagents/ file), plus ``toolUseResult.usage`` repeating the subagent's usage.
    msg_01J9fh… req_…nPRW  x3 (same usage)  10  5302 10348    8
    msg_01EJs7… req_…FnxG  sidechain          4     0 12405  117
    msg_01JkzQ… req_…LRWm  output 4 then 151 10 15650   369  151
    sum                                       24 20952 23122  276
``toolUseResult.usage`` (4/0/12405/117) is the sidechain call again and must not count.
Its title is its first prompt: the file's only ``summary`` record names a ``leafUuid`` that
is not in the file, another session's (docs/providers/claude.md).

Cost (claude-sonnet-4-5: $3 in, $0.30 cache read, $3.75 five-minute cache write, $15 out,
per million; every write here is ``ephemeral_5m``):
    compact:  10*3 + 13522*0.3 + 2128*3.75 + 148*15 = 14286.6  -> $0.0142866
    sidechain: 24*3 + 20952*0.3 + 23122*3.75 + 276*15 = 97205.1 -> $0.0972051
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentscan.pricing import PriceBook
from agentscan.scan.costs import with_costs
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from builders import REAL

COMPACT = "0e26ec2f-937e-482c-b889-bc126f996913"
INLINE = "609efeca-2f51-4118-b077-e91c9fe63f73"
SAMPLES = {
    COMPACT: "agentlogs-compact-boundary-v2.0.13.jsonl",
    INLINE: "agentlogs-inline-sidechain-v2.0.13.jsonl",
}
EXPECTED = {
    COMPACT: (10, 13522, 2128, 148),
    INLINE: (24, 20952, 23122, 276),
}
EXPECTED_COST = {COMPACT: 14286.6 / 1e6, INLINE: 97205.1 / 1e6}


@pytest.fixture
def home(isolated_home: Path) -> Path:
    project = isolated_home / ".claude" / "projects" / "-Users-philipp-dev-studio"
    project.mkdir(parents=True)
    for session, name in SAMPLES.items():
        shutil.copyfile(REAL / "claude" / name, project / f"{session}.jsonl")
    return isolated_home


def test_tokens_equal_the_hand_count(home: Path) -> None:
    report = token_report(Scanner(home=home), by="session")
    ours = {
        row.key.removeprefix("claude:"): (row.tokens.input, row.tokens.cache_read, row.tokens.cache_write, row.tokens.output)
        for row in report.rows
        if row.tokens is not None
    }
    assert ours == EXPECTED


def test_list_rows_agree_and_are_priced(home: Path) -> None:
    scanner = Scanner(home=home)
    rows = {row.native_id: row for row in with_costs(scanner, scanner.list_sessions(), scanner.refs(), PriceBook(scanner.ctx))}
    assert set(rows) == set(EXPECTED)
    for session, (inp, cache_read, cache_write, out) in EXPECTED.items():
        tokens = rows[session].tokens
        assert tokens is not None
        assert (tokens.input, tokens.cache_read, tokens.cache_write, tokens.output) == (inp, cache_read, cache_write, out)
        assert abs(float(rows[session].cost) - EXPECTED_COST[session]) < 1e-9, session
    assert scanner.warnings == []


def test_compaction_records_are_not_prompts(home: Path) -> None:
    detail = Scanner(home=home).show(COMPACT)
    assert detail.row.title == "how are you doing"
    assert detail.row.cwd == "/Users/philipp/dev/studio"
    assert detail.row.git_branch == "main"
    texts = [prompt.text for prompt in detail.prompts]
    assert "how are you doing" in texts
    assert not any(text.startswith("This session is being continued") for text in texts)
    assert not any("Caveat:" in text or "local-command-stdout" in text for text in texts)


def test_inline_sidechain_counts_once_and_tool_result_usage_never(home: Path) -> None:
    scanner = Scanner(home=home)
    row = scanner.row(scanner.resolve("609efeca"))
    # Its one summary record ("Tailwind Studio: Component Catalog Architecture Design") names a
    # leaf that is not in the file: another session's (claude-code issue 2597). The first prompt.
    assert row.title == "ask a subagent how he's doing"
    assert row.model == "claude-sonnet-4-5-20250929"
    assert row.tokens is not None and row.tokens.total == 24 + 20952 + 23122 + 276
