"""Gemini chat semantics: repeated ids, $set, $rewindTo, pairs, subagents, damage.

Token expectations are computed by hand from the contract's mapping:
input = input − cached + tool, cache_read = cached, output = output +
thoughts, reasoning = thoughts; total = Gemini's own total.
"""

from __future__ import annotations

from pathlib import Path

from agentscan.scan.scanner import Scanner
from agentscan.bounds import Bounds
from agentscan.model import TokenUsage
from agentscan.scan.tokens import token_report
from gemini_builders import (
    call,
    chats_dir,
    gemini,
    meta,
    rewind,
    set_,
    tokens,
    user,
    write_chat,
    write_legacy,
)

S1 = "11111111-aaaa-4bbb-8ccc-000000000001"
S2 = "22222222-aaaa-4bbb-8ccc-000000000002"
S3 = "33333333-aaaa-4bbb-8ccc-000000000003"
T0 = "2026-05-01T10:00:0"


def scanner(home: Path) -> Scanner:
    return Scanner(home=home, provider_names=["gemini"])


def only_row(home: Path):
    rows = scanner(home).list_sessions()
    assert len(rows) == 1, rows
    return rows[0]


def scanner_warnings(home: Path):
    scan = scanner(home)
    scan.list_sessions()
    return scan.warnings


def test_repeated_message_id_counts_once_and_keeps_the_last_copy(isolated_home: Path) -> None:
    usage = tokens(1000, 100, cached=200, thoughts=50, tool=10)
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "read the config"),
        gemini("g1", T0 + "2.000Z", usage=usage),
        set_(lastUpdated=T0 + "2.500Z"),
        # Same id again once the tool call is attached: one API call, not two.
        gemini("g1", T0 + "2.000Z", usage=usage, calls=[call("c1", "read_file", {"file_path": "app.toml"})]),
    ])
    row = only_row(isolated_home)
    # input 1000 - cached 200 + tool 10 = 810; output 100 + thoughts 50 = 150
    # total 810 + 200 + 0 + 150 = 1160 = Gemini's total 1000 + 100 + 50 + 10
    assert row.tokens == TokenUsage(input=810, cache_read=200, cache_write=0, output=150, reasoning=50)
    assert row.tokens.total == 1160
    assert (row.counts.prompts, row.counts.responses, row.counts.tool_calls) == (1, 0, 1)
    detail = scanner(isolated_home).show(S1)
    assert [(t.name, t.summary, t.paths) for t in detail.tools] == [("read_file", "app.toml", ("app.toml",))]


def test_rewind_drops_messages_from_show_but_not_from_tokens(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "first question"),
        gemini("g1", T0 + "2.000Z", "answer one", usage=tokens(1000, 100, cached=200, thoughts=50, tool=10)),
        user("u2", "2026-05-01T10:01:00.000Z", "second question"),
        gemini("g2", "2026-05-01T10:01:02.000Z", "answer two", usage=tokens(2000, 300, cached=1500, thoughts=40)),
        rewind("u2"),
        user("u3", "2026-05-01T10:02:00.000Z", "second question, edited"),
        gemini("g3", "2026-05-01T10:02:02.000Z", "answer three", usage=tokens(1900, 250, cached=1000, thoughts=30)),
    ])
    detail = scanner(isolated_home).show(S1)
    assert [p.text for p in detail.prompts] == ["first question", "second question, edited"]
    assert [r.text for r in detail.responses] == ["answer one", "answer three"]
    assert detail.extra["rewound_messages"] == 2  # u2 and g2
    assert detail.to_json()["rewound_messages"] == 2
    assert (detail.row.counts.prompts, detail.row.counts.responses) == (2, 2)
    # g2 was billed before the rewind, so it still counts:
    # input  (1000-200+10) + (2000-1500) + (1900-1000) = 810 + 500 + 900 = 2210
    # cached 200 + 1500 + 1000 = 2700; output (100+50) + (300+40) + (250+30) = 770
    # total 2210 + 2700 + 770 = 5680 (ccusage 20.0.24 on this chat: 5680 too)
    assert detail.row.tokens == TokenUsage(input=2210, cache_read=2700, output=770, reasoning=120)
    assert token_report(scanner(isolated_home)).total.total == 5680


def test_rewind_to_an_unknown_id_clears_the_conversation(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "hello"),
        gemini("g1", T0 + "2.000Z", "hi", usage=tokens(10, 2)),
        rewind("no-such-id"),  # Gemini CLI's loader clears everything here
        user("u2", T0 + "3.000Z", "start over"),
    ])
    detail = scanner(isolated_home).show(S1)
    assert [p.text for p in detail.prompts] == ["start over"]
    assert detail.extra["rewound_messages"] == 2
    assert detail.row.title == "start over"
    assert detail.row.tokens == TokenUsage(input=10, output=2)  # 10 - 0 + 0; 2 + 0


def test_set_messages_checkpoint_rebuilds_the_list(isolated_home: Path) -> None:
    g2 = gemini("g2", T0 + "4.000Z", "the fix", usage=tokens(400, 40))
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "long history"),
        gemini("g1", T0 + "2.000Z", "old reply", usage=tokens(300, 30)),
        user("u2", T0 + "3.000Z", "fix it"),
        g2,
        # Compression: the history becomes a summary turn plus the last reply.
        set_(lastUpdated=T0 + "5.000Z", summary="fixing",
             messages=[user("sum", T0 + "5.000Z", "<state_snapshot>…</state_snapshot>"), g2]),
        user("u3", T0 + "6.000Z", "thanks"),
    ])
    detail = scanner(isolated_home).show(S1)
    # The summary turn is the CLI's, not a prompt (its text starts <state_snapshot>).
    assert [p.text for p in detail.prompts] == ["thanks"]
    assert detail.row.title == "fixing"  # Gemini's own summary of the session
    assert [r.text for r in detail.responses] == ["the fix"]
    assert detail.extra["rewound_messages"] == 0
    # g1 left the live list but was billed: (300 + 30) + (400 + 40) = 770
    assert detail.row.tokens is not None and detail.row.tokens.total == 770
    assert detail.row.updated_at is not None


def test_null_tokens_count_nothing_and_no_tokens_means_null(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "hi"),
        gemini("g1", T0 + "2.000Z", "", usage=None, calls=[call("c1", "glob", {"pattern": "**/*.py"})]),
    ], mtime=1_780_000_000)
    write_chat(isolated_home, "proj", "session-2026-05-02T10-00-22222222.jsonl", [
        meta(S2),
        user("u1", T0 + "1.000Z", "hi"),
        gemini("g1", T0 + "2.000Z", "", usage=None),
        gemini("g2", T0 + "3.000Z", "done", usage=tokens(50, 5)),
    ], mtime=1_780_000_100)
    rows = {row.native_id: row for row in scanner(isolated_home).list_sessions()}
    assert rows[S1].tokens is None
    assert rows[S2].tokens == TokenUsage(input=50, output=5)  # only g2: 50 - 0 + 0, 5 + 0
    report = {row.key: row for row in token_report(scanner(isolated_home)).rows}
    assert report[f"gemini:{S1}"].tokens is None
    assert report[f"gemini:{S2}"].tokens.total == 55


def test_json_and_migrated_jsonl_are_one_session(isolated_home: Path) -> None:
    legacy_messages = [
        user("p1", "2026-03-01T10:00:01.000Z", "legacy question"),
        gemini("pg1", "2026-03-01T10:00:05.000Z", "legacy answer", usage=tokens(500, 50, cached=100, thoughts=5)),
    ]
    name = "session-2026-03-01T10-00-22222222"
    write_legacy(isolated_home, "proj", name + ".json", {
        "sessionId": S2, "projectHash": "0" * 64, "startTime": "2026-03-01T10:00:00.000Z",
        "lastUpdated": "2026-03-01T10:05:00.000Z", "messages": legacy_messages,
    }, mtime=1_790_000_000)  # newer mtime than the .jsonl: the .jsonl still wins
    write_chat(isolated_home, "proj", name + ".jsonl", [
        meta(S2, start="2026-03-01T10:00:00.000Z"),
        *legacy_messages,
        user("p2", "2026-05-02T10:00:01.000Z", "resumed question"),
        gemini("pg2", "2026-05-02T10:00:05.000Z", "resumed answer", usage=tokens(800, 80, cached=400, thoughts=8)),
    ], mtime=1_780_000_000)
    refs = scanner(isolated_home).refs()
    assert [ref.native_id for ref in refs] == [S2]
    assert refs[0].path is not None and refs[0].path.name == name + ".jsonl"
    row = only_row(isolated_home)
    assert row.counts.prompts == 2
    # pg1 once + pg2: input (500-100) + (800-400) = 800; cached 100 + 400 = 500
    # output (50+5) + (80+8) = 143; total 800 + 500 + 143 = 1443.
    # (ccusage 20.0.24 reads both files and reports 1998 = 1443 + 555, pg1 twice.)
    assert row.tokens == TokenUsage(input=800, cache_read=500, output=143, reasoning=13)
    assert row.tokens.total == 1443


def test_subagent_chat_rolls_into_its_parent(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-03T10-00-33333333.jsonl", [
        meta(S3),
        user("q1", "2026-05-03T10:00:01.000Z", "investigate the flaky test"),
        gemini("qg1", "2026-05-03T10:00:05.000Z", "", usage=tokens(300, 30),
               calls=[call("c1", "codebase_investigator", {"objective": "flaky test"})]),
    ])
    write_chat(isolated_home, "proj", f"{S3}/ab12cd.jsonl", [
        meta("ab12cd", kind="subagent"),
        user("s1", "2026-05-03T10:00:06.000Z", "sub task"),
        gemini("sg1", "2026-05-03T10:00:09.000Z", "found it", usage=tokens(700, 70, cached=100, thoughts=7),
               calls=[call("c2", "grep_search", {"pattern": "sleep"}, ts="2026-05-03T10:00:08.000Z")]),
    ])
    rows = scanner(isolated_home).list_sessions()
    assert [row.native_id for row in rows] == [S3]
    row = rows[0]
    assert row.subagents == 1
    # own 300 + 30 = 330; subagent (700-100) + 100 + (70+7) = 777; together 1107
    assert row.tokens is not None and row.tokens.total == 1107
    report = token_report(scanner(isolated_home)).rows[0]
    assert report.own == TokenUsage(input=300, output=30)
    assert report.subagents == (("ab12cd", TokenUsage(input=600, cache_read=100, output=77, reasoning=7)),)
    detail = scanner(isolated_home).show(S3)
    assert [(s.id, s.tokens.total if s.tokens else None) for s in detail.subagents] == [("ab12cd", 777)]
    # The subagent's prompts are not the session's; its tools are shown, marked.
    assert [p.text for p in detail.prompts] == ["investigate the flaky test"]
    assert [(t.name, t.subagent) for t in detail.tools] == [("codebase_investigator", None), ("grep_search", "ab12cd")]


def test_subagent_whose_parent_chat_is_missing_appears_under_the_parent_id(isolated_home: Path) -> None:
    sub = write_chat(isolated_home, "proj", f"{S3}/zz99yy.jsonl", [
        meta("zz99yy", kind="subagent"),
        gemini("sg1", "2026-05-03T10:00:09.000Z", "found", usage=tokens(100, 10)),
    ])
    row = only_row(isolated_home)
    assert row.id == f"gemini:{S3}"
    assert row.path == str(sub.parent)
    assert row.subagents == 1
    assert row.tokens is not None and row.tokens.total == 110  # 100 + 10
    assert row.title is None
    report = token_report(scanner(isolated_home)).rows[0]
    assert report.own is None and report.subagents[0][0] == "zz99yy"


def test_truncated_legacy_file_is_listed_from_what_can_be_read(isolated_home: Path) -> None:
    path = write_legacy(isolated_home, "proj", "session-2025-09-01T08-00-11111111.json", {
        "sessionId": S1, "projectHash": "0" * 64, "startTime": "2025-09-01T08:00:00.000Z",
        "lastUpdated": "2025-09-01T08:09:00.000Z",
        "messages": [
            user("u1", "2025-09-01T08:00:01.000Z", "rename the module"),
            gemini("g1", "2025-09-01T08:00:05.000Z", "renamed", usage=tokens(900, 90, cached=300, thoughts=9)),
            user("u2", "2025-09-01T08:05:00.000Z", "now update the imports"),
            gemini("g2", "2025-09-01T08:05:09.000Z", "updated every import", usage=tokens(1200, 120)),
        ],
    })
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"updated every import")])  # cut inside g2: a half-written rewrite
    row = only_row(isolated_home)
    assert row.native_id == S1
    assert row.title == "rename the module"
    assert row.counts.prompts == 2
    # only g1 is complete: (900-300) + 300 + (90+9) = 999
    assert row.tokens == TokenUsage(input=600, cache_read=300, output=99, reasoning=9)
    warnings = [w for w in scanner_warnings(isolated_home) if w.path == str(path)]
    # (a file this young is "cut short (file still being written?)", pass 52)
    assert any("truncated" in w.message or "cut short" in w.message for w in warnings), warnings


def test_bad_jsonl_lines_are_warnings(isolated_home: Path) -> None:
    path = write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "hello"),
        gemini("g1", T0 + "2.000Z", "hi", usage=tokens(10, 1)),
    ])
    with path.open("ab") as handle:
        handle.write(b"{not json}\n")
        handle.write(b'{"id": "g2", "type": "gemini", "tokens": {"input": 5')  # still being written
    scan = scanner(isolated_home)
    rows = scan.list_sessions()
    assert rows[0].tokens == TokenUsage(input=10, output=1)
    assert sorted(w.line for w in scan.warnings if w.path == str(path)) == [4, 5]


def test_identity_comes_from_the_header_not_the_file_name(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-deadbeef.jsonl", [
        meta(S1), user("u1", T0 + "1.000Z", "hello"),
    ])
    headless = write_chat(isolated_home, "proj", "session-2026-05-01T11-00-22222222.jsonl", [
        user("u1", T0 + "1.000Z", "a chat without its metadata line"),
    ])
    scan = scanner(isolated_home)
    assert [ref.native_id for ref in scan.refs()] == [S1]
    assert any(w.path == str(headless) and "sessionId" in w.message for w in scan.warnings)


def test_tool_statuses_map_to_ok_error_denied_unknown(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "run the tests"),
        gemini("g1", T0 + "2.000Z", "", usage=tokens(10, 1), calls=[
            call("c1", "run_shell_command", {"command": "pytest -q"}, status="success"),
            call("c2", "run_shell_command", {"command": "make lint"}, status="error"),
            call("c3", "write_file", {"file_path": "a.py", "content": "x"}, status="cancelled"),
            call("c4", "web_fetch", {"prompt": "read the docs"}, status="executing"),
        ]),
    ])
    tools = scanner(isolated_home).show(S1).tools
    assert [(t.summary, t.status) for t in tools] == [
        ("pytest -q", "ok"), ("make lint", "error"), ("a.py", "denied"), ("read the docs", "unknown"),
    ]


def test_title_skips_injected_and_slash_prompts(isolated_home: Path) -> None:
    long_prompt = "please   refactor\n\n" + "the parser " * 40
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        user("u1", T0 + "1.000Z", "You are an AI agent that analyses the directory…", display="/init"),
        user("u2", T0 + "2.000Z", "System: Please continue."),
        user("u3", T0 + "3.000Z", long_prompt),
    ])
    row = only_row(isolated_home)
    assert row.counts.prompts == 2  # /init and the real prompt
    assert row.title is not None and len(row.title) == 180
    assert row.title.startswith("please refactor the parser the parser")
    assert row.title.endswith("…")


def test_logs_json_supplies_prompts_only_when_the_chat_has_none(isolated_home: Path) -> None:
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", [
        meta(S1),
        gemini("g1", T0 + "2.000Z", "hello there", usage=tokens(10, 1)),
    ])
    write_chat(isolated_home, "proj", "session-2026-05-01T11-00-22222222.jsonl", [
        meta(S2),
        user("u1", T0 + "1.000Z", "from the chat"),
    ])
    (chats_dir(isolated_home, "proj").parent / "logs.json").write_text(
        '[{"sessionId": "%s", "messageId": 0, "type": "user", "message": "from the log", "timestamp": "2026-05-01T10:00:01.000Z"},'
        ' {"sessionId": "%s", "messageId": 0, "type": "user", "message": "logged too", "timestamp": "2026-05-01T11:00:01.000Z"}]'
        % (S1, S2)
    )
    scan = scanner(isolated_home)
    assert [p.text for p in scan.show(S1).prompts] == ["from the log"]
    assert scan.show(S1).row.title == "from the log"
    assert [p.text for p in scan.show(S2).prompts] == ["from the chat"]


def test_show_keeps_the_newest_within_bounds(isolated_home: Path) -> None:
    records = [meta(S1)]
    for n in range(10):
        records.append(user(f"u{n}", f"2026-05-01T10:{n:02d}:00.000Z", f"prompt {n}"))
        records.append(gemini(f"g{n}", f"2026-05-01T10:{n:02d}:30.000Z", f"reply {n}", usage=tokens(10, 1),
                              calls=[call(f"c{n}", "read_file", {"file_path": f"f{n}.py"})]))
    write_chat(isolated_home, "proj", "session-2026-05-01T10-00-11111111.jsonl", records)
    detail = scanner(isolated_home).show(S1, bounds=Bounds(prompts=3, responses=2, tools=4))
    assert [p.text for p in detail.prompts] == ["prompt 7", "prompt 8", "prompt 9"]
    assert [r.text for r in detail.responses] == ["reply 8", "reply 9"]
    assert [t.summary for t in detail.tools] == ["f6.py", "f7.py", "f8.py", "f9.py"]
    assert detail.truncated == {"prompts": 7, "responses": 8, "tools": 6, "clipped_messages": 0, "clipped_tools": 0,
                                "subagent_prompts": 0, "subagent_responses": 0}
    assert detail.row.counts.prompts == 10
