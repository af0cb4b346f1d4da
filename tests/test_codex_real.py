"""The real Codex samples, laid out as a Codex home, against ccusage's numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from codex_builders import lay_out_real_codex

VSCODE_039 = "01996135-afde-7911-97f0-d863511eca56"
EXEC_0135 = "019e9625-802f-7e91-840a-cfe88d14117a"
CATALOG_0146 = "019fc8be-3658-7ca3-9e29-000000000000"

# Obtained with ccusage 20.0.24 on the home that ``lay_out_real_codex`` builds:
#   cd <home> && env -i PATH="$PATH" HOME=<home> LOG_LEVEL=0 \
#     /tmp/ccu/node_modules/.bin/ccusage codex session --json --offline
# ccusage's inputTokens is already input_tokens - cached_input_tokens, so the
# fields map 1:1 onto (input, cache_read, cache_write, output, reasoning, total).
CCUSAGE = {
    VSCODE_039: (133698, 136832, 0, 12551, 9536, 283081),
    EXEC_0135: (1675, 20864, 0, 10, 0, 22549),
    CATALOG_0146: (12757, 3584, 0, 81, 63, 16422),
}
CCUSAGE_TOTAL = (148130, 161280, 0, 12642, 9599, 322052)
# ``costUSD`` per session in the same output.  ccusage prices the VS Code session's
# "aide-gpt-5" (a custom model name) as gpt-5; genai-prices does not know that name, so
# agentscan reports null and a warning instead of guessing (docs/providers/codex.md, "Cost").
CCUSAGE_COST = {VSCODE_039: 0.3097365, EXEC_0135: 0.019107, CATALOG_0146: 0.00272028}


def _tuple(usage) -> tuple[int, ...]:
    return (usage.input, usage.cache_read, usage.cache_write, usage.output, usage.reasoning, usage.total)


@pytest.fixture
def real_home(isolated_home: Path) -> Path:
    lay_out_real_codex(isolated_home)
    return isolated_home


def test_tokens_per_session_equal_ccusage(real_home: Path) -> None:
    scanner = Scanner(home=real_home, provider_names=["codex"])
    report = token_report(scanner, providers=["codex"])
    got = {row.key.split(":", 1)[1]: _tuple(row.tokens) for row in report.rows}
    assert got == CCUSAGE
    assert _tuple(report.total) == CCUSAGE_TOTAL
    # The only warning: the custom model name has no price.
    assert [(w.path, "aide-gpt-5" in w.message) for w in scanner.warnings] == [("model:codex/aide-gpt-5", True)]


def test_costs_equal_ccusage_except_for_the_unknown_model(real_home: Path) -> None:
    report = token_report(Scanner(home=real_home, provider_names=["codex"]), providers=["codex"])
    got = {row.key.split(":", 1)[1]: row.cost for row in report.rows}
    assert got[VSCODE_039] is None
    # ccusage prices no web search; the catalog sample ran one completed web_search_call on
    # gpt-5.6-luna ($10 per 1,000): agentscan's cost is ccusage's plus $0.01.
    searches = {EXEC_0135: 0.0, CATALOG_0146: 0.01}
    for session in (EXEC_0135, CATALOG_0146):
        assert abs(float(got[session]) - CCUSAGE_COST[session] - searches[session]) < 1e-9, session
    assert report.cost is None  # a total that leaves a session out would understate the spend


def test_list_rows_from_bounded_reads_agree_with_ccusage(real_home: Path) -> None:
    rows = {row.native_id: row for row in Scanner(home=real_home, provider_names=["codex"]).list_sessions()}
    assert set(rows) == set(CCUSAGE)
    for native_id, expected in CCUSAGE.items():
        assert _tuple(rows[native_id].tokens) == expected


def test_row_fields_of_the_vscode_session(real_home: Path) -> None:
    row = Scanner(home=real_home, provider_names=["codex"]).show(VSCODE_039).row
    # The IDE wraps the prompt in "# Context from my IDE setup: … ## My request for Codex:".
    assert row.title is not None and row.title.startswith("幫我檢查一下 go.mod 裡面 為何 go版本是 1.24?")
    assert row.cwd == "/proj/ds906659/gai/claude-code"
    assert row.git_branch == "main"
    assert row.model == "aide-gpt-5"  # from turn_context, a custom provider's name
    assert row.started_at is not None and row.started_at.isoformat() == "2025-09-19T09:02:12.446000+00:00"
    # 1 typed prompt; 9 agent_message events; 18 function_call items (counted in the file).
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 9, 18)


def test_show_of_the_vscode_session(real_home: Path) -> None:
    detail = Scanner(home=real_home, provider_names=["codex"]).show(VSCODE_039[:8])
    assert [p.step for p in detail.plan] == ["Add zh-TW and zh-CN markdown notes", "Delete TODO.md"]
    assert {p.status for p in detail.plan} == {"completed"}
    assert len(detail.prompts) == 1 and len(detail.responses) == 9 and len(detail.tools) == 18
    names = [tool.name for tool in detail.tools]
    assert names.count("update_plan") == 4 and names.count("shell") == 14
    # The shell call is shown as the script bash ran, and its exit code 0 is ok.
    assert detail.tools[1].summary == "ls -la" and detail.tools[1].status == "ok"
    patch = next(tool for tool in detail.tools if "*** Update File: go.mod" in tool.summary)
    assert patch.paths == ("go.mod",)
    rejected = next(tool for tool in detail.tools if tool.summary.endswith("*** End Patch\nPATCH") and not tool.paths)
    assert rejected.status == "error"  # output "patch rejected: empty patch"
    assert detail.row.tokens is not None and detail.row.tokens.total == 283081


def test_exec_session_skips_injected_context(real_home: Path) -> None:
    detail = Scanner(home=real_home, provider_names=["codex"]).show(EXEC_0135)
    assert [p.text for p in detail.prompts] == ["[REDACTED_PROMPT]"]  # not <environment_context>
    assert [r.text for r in detail.responses] == ["[REDACTED_ASSISTANT_TEXT]"]
    assert detail.row.model == "gpt-5.5"
    assert detail.to_json()["codex"]["rate_limits"]["primary"]["used_percent"] == 15.0
