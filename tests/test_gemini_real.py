"""The three real Gemini CLI samples give exact per-session totals.

Expected numbers come from ccusage 20.0.24, obtained by laying the samples
out with ``lay_out_real_gemini(home)`` and running::

    cd <home> && env -i PATH="$PATH" HOME=<home> LOG_LEVEL=0 \
        /tmp/ccu/node_modules/.bin/ccusage gemini session --json --offline

ccusage's ``inputTokens`` (input − cached), ``cacheReadTokens`` (cached) and
``totalTokens`` (Gemini's own total) mean what ours mean.  Its
``outputTokens`` leaves the thinking tokens out, while the contract puts
them in ``output`` (and in ``reasoning``); so ``output`` = ccusage output +
the thoughts, summed by hand from the samples below.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from agentscan.scan.tokens import token_report
from gemini_builders import REAL_JSONL, lay_out_real_gemini

LEGACY_2025 = "eefc44a3-0832-4bc0-ac33-fa668f038213"
LEGACY_2026 = "8a20078e-2d5e-4f81-a640-9b879bbb7e6d"
JSONL = "0ab84937-9fe7-4284-986a-33c832af0b6a"

# ccusage gemini session --json --offline (see the module docstring).
CCUSAGE = {
    JSONL: {"inputTokens": 153635, "cacheReadTokens": 48951, "outputTokens": 2152, "totalTokens": 206879},
    LEGACY_2026: {"inputTokens": 36522, "cacheReadTokens": 39826, "outputTokens": 9325, "totalTokens": 97289},
    LEGACY_2025: {"inputTokens": 140022, "cacheReadTokens": 326620, "outputTokens": 3302, "totalTokens": 473586},
}

# `thoughts` of every gemini message, read off the samples by hand.
THOUGHTS = {
    # 18 gemini messages, in file order
    LEGACY_2025: 2659 + 309 + 41 + 81 + 27 + 66 + 19 + 78 + 30 + 44 + 44 + 27 + 37 + 68 + 72 + 19 + 21 + 0,  # 3642
    # messages 22dfaab2, d4581b9c, c4cee073
    LEGACY_2026: 344 + 10849 + 423,  # 11616
    # the six distinct gemini ids 52e62e67, a4173396, cda8a342, edf94f05, 0752be32, 42a121a5
    # (all but 0752be32 are written twice; each counts once)
    JSONL: 306 + 642 + 232 + 161 + 348 + 452,  # 2141
}


def expected(native_id: str) -> dict[str, int]:
    ccusage = CCUSAGE[native_id]
    thoughts = THOUGHTS[native_id]
    return {
        "input": ccusage["inputTokens"],
        "cache_read": ccusage["cacheReadTokens"],
        "cache_write": 0,
        "output": ccusage["outputTokens"] + thoughts,
        "reasoning": thoughts,
        "total": ccusage["totalTokens"],
    }


def test_rows_match_ccusage(isolated_home: Path) -> None:
    lay_out_real_gemini(isolated_home)
    rows = {row.native_id: row for row in Scanner(home=isolated_home, provider_names=["gemini"]).list_sessions()}
    assert set(rows) == set(CCUSAGE)
    for native_id, row in rows.items():
        assert row.tokens is not None
        assert row.tokens.to_json() == expected(native_id), native_id


def test_token_report_matches_ccusage_grand_total(isolated_home: Path) -> None:
    lay_out_real_gemini(isolated_home)
    report = token_report(Scanner(home=isolated_home, provider_names=["gemini"]))
    assert report.total is not None
    # ccusage "totals": inputTokens 330179, cacheReadTokens 415397, totalTokens 777754
    assert (report.total.input, report.total.cache_read, report.total.total) == (330179, 415397, 777754)
    assert report.total.reasoning == 3642 + 11616 + 2141


def test_jsonl_lines_are_not_summed(isolated_home: Path) -> None:
    # The trap: summing `tokens.total` over every line of the JSONL sample.
    naive = sum(
        (record.get("tokens") or {}).get("total", 0)
        for record in map(json.loads, REAL_JSONL.read_text("utf-8").splitlines())
        if "id" in record
    )
    # 14397*2 + 29813*2 + 39728*2 + 41426*2 + 40559 + 40956*2 = 373199
    assert naive == 373199
    lay_out_real_gemini(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["gemini"])
    row = scanner.row(next(ref for ref in scanner.refs() if ref.native_id == JSONL))
    # 14397 + 29813 + 39728 + 41426 + 40559 + 40956 = 206879 (= ccusage)
    assert row.tokens is not None and row.tokens.total == 206879


def test_real_jsonl_row_and_show(isolated_home: Path) -> None:
    lay_out_real_gemini(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["gemini"])
    detail = scanner.show(JSONL[:8])
    row = detail.row
    # The first user message is "/init" expanded into a long prompt: not a title.
    assert row.title == "幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題"
    assert [p.text for p in detail.prompts] == ["/init", row.title]
    # "System: Please continue." answers a tool call (its displayContent is a
    # functionResponse): injected, not a prompt.
    assert row.counts.prompts == 2
    # edf94f05 and 0752be32 carry reply text; the other four only tool calls.
    assert row.counts.responses == 2
    # 5 + 3 + 1 + 1 + 2 tool calls on the last copies of 52e62e67, a4173396, cda8a342, edf94f05, 42a121a5
    assert row.counts.tool_calls == 12
    assert [t.name for t in detail.tools][:2] == ["update_topic", "read_file"]
    assert all(t.status == "ok" for t in detail.tools)
    assert detail.tools[1].paths == ("README.md",)
    # 5 of the 6 billed replies are gemini-3-flash-preview, 1 is gemini-3.1-pro-preview.
    assert row.model == "gemini-3-flash-preview"
    # A hash dir that nothing else on this machine names; the chat itself does:
    # line 14's write_file records resultDisplay.filePath
    # "/home/wei/repo/discordbot/GEMINI.md", and sha256("/home/wei/repo/discordbot")
    # is the chat's projectHash 9da8b3df… (issue 17).
    assert row.cwd == "/home/wei/repo/discordbot"
    assert row.started_at is not None and row.started_at.isoformat() == "2026-04-23T12:52:52.759000+00:00"
    assert detail.extra["rewound_messages"] == 0
    assert scanner.warnings == []


def test_real_legacy_rows(isolated_home: Path) -> None:
    lay_out_real_gemini(isolated_home)
    rows = {row.native_id: row for row in Scanner(home=isolated_home, provider_names=["gemini"]).list_sessions()}
    old = rows[LEGACY_2025]
    assert old.title == "請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼"
    assert old.model == "gemini-2.5-pro"
    assert (old.counts.prompts, old.counts.responses, old.counts.tool_calls) == (1, 18, 0)
    assert old.path is not None and old.path.endswith("session-2025-10-05T07-11-eefc44a3.json")
    new = rows[LEGACY_2026]
    assert new.model == "gemini-3.1-pro-preview-customtools"
    # 3 read_file calls + 4 write_file calls; only the last message has reply text.
    assert (new.counts.prompts, new.counts.responses, new.counts.tool_calls) == (1, 1, 7)


def test_cli_json_documents(isolated_home: Path) -> None:
    lay_out_real_gemini(isolated_home)
    runner = CliRunner()
    listed = runner.invoke(app, ["list", "--json"])
    assert listed.exit_code == 0, listed.output
    document = json.loads(listed.stdout)
    assert document["schema"] == "agentscan.list/1"
    by_id = {row["id"]: row for row in document["sessions"]}
    assert by_id[f"gemini:{JSONL}"]["tokens"] == expected(JSONL)
    tokens = runner.invoke(app, ["tokens", "--json", "--provider", "gemini"])
    assert tokens.exit_code == 0, tokens.output
    rows = {row["key"]: row for row in json.loads(tokens.stdout)["rows"]}
    assert rows[f"gemini:{LEGACY_2025}"]["tokens"] == expected(LEGACY_2025)
    assert rows[f"gemini:{LEGACY_2025}"]["subagents"] == []
    shown = runner.invoke(app, ["show", JSONL[:8], "--json"])
    assert shown.exit_code == 0, shown.output
    session = json.loads(shown.stdout)["session"]
    assert session["id"] == f"gemini:{JSONL}"
    assert session["rewound_messages"] == 0
    assert [p["text"] for p in session["prompts"]][0] == "/init"
