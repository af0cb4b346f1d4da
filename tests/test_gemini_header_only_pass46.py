"""A Gemini chat of its header alone (pass 46).

Gemini CLI writes a chat's header line when it starts, before the first prompt (the real
0.44 sample's header is dated ten seconds before its first message), so a ``gemini`` left
at once leaves a file of one line.  Its start time and project made it a row of dashes at
the top of ``list``; it recorded nothing, and is told as a session that did.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import invoke
from gemini_builders import gemini, meta, tokens, user, write_chat

EMPTY = "22222222-aaaa-4bbb-8ccc-000000000046"
REAL = "33333333-aaaa-4bbb-8ccc-000000000046"


def _home(home: Path) -> None:
    (home / ".gemini" / "tmp" / "proj").mkdir(parents=True)
    (home / ".gemini" / "tmp" / "proj" / ".project_root").write_text(str(home / "src"))
    write_chat(home, "proj", "session-2026-05-01T09-00-33333333.jsonl", [
        meta(REAL, start="2026-05-01T09:00:00.000Z"), user("u1", "2026-05-01T09:00:05.000Z", "fix the tests"),
        gemini("g1", "2026-05-01T09:00:09.000Z", "done", usage=tokens(100, 10))])
    write_chat(home, "proj", "session-2026-05-01T11-00-22222222.jsonl", [meta(EMPTY, start="2026-05-01T11:00:00.000Z")])


def test_a_chat_of_its_header_alone_is_left_out_of_list(isolated_home: Path) -> None:
    _home(isolated_home)
    for _ in range(2):  # cold, then the kept rows
        listed = invoke("list", "--json")
        assert listed.exit_code == 0, listed.stderr
        assert [row["native_id"] for row in orjson.loads(listed.stdout)["sessions"]] == [REAL]


def test_show_and_tokens_say_it_recorded_nothing(isolated_home: Path) -> None:
    _home(isolated_home)
    shown = orjson.loads(invoke("show", EMPTY, "--json").stdout)["session"]
    assert (shown["started_at"], shown["cwd"], shown["tokens"]) == (None, None, None)
    table = invoke("tokens")
    assert table.exit_code == 0, table.stderr
    assert "1 session that recorded nothing" in table.stderr
    assert orjson.loads(invoke("tokens", "--json").stdout)["total"]["total"] == 110


LOGGED = "44444444-aaaa-4bbb-8ccc-000000000046"
LEGACY = "55555555-aaaa-4bbb-8ccc-000000000046"


def test_a_header_whose_prompts_the_log_holds_recorded_them(isolated_home: Path) -> None:
    # (review of pass 46: ``/help`` then ``/quit`` leaves the header and a ``logs.json`` prompt;
    # the row took the prompt as its title but no start or cwd, and a warm run then gave it a cwd)
    _home(isolated_home)
    write_chat(isolated_home, "proj", "session-2026-05-01T12-00-44444444.jsonl",
               [meta(LOGGED, start="2026-05-01T12:00:00.000Z")])
    (isolated_home / ".gemini" / "tmp" / "proj" / "logs.json").write_text(
        '[{"sessionId": "%s", "messageId": 0, "type": "user", "message": "/help", '
        '"timestamp": "2026-05-01T12:00:01.000Z"}]' % LOGGED)
    rows = []
    for args in ((), (), ("--no-cache",)):
        listed = orjson.loads(invoke(*args, "list", "--json").stdout)["sessions"]
        rows.append({row["native_id"]: (row["title"], row["cwd"], row["started_at"]) for row in listed})
    assert rows[0] == rows[1] == rows[2]
    assert rows[0][LOGGED] == ("/help", str(isolated_home / "src"), "2026-05-01T12:00:00.000Z")


def test_list_and_show_judge_a_legacy_chat_alike(isolated_home: Path) -> None:
    # (review of pass 46: a legacy chat whose message has no id was nothing to ``list`` and a
    # session with a start and a cwd to ``show``, which alone keeps its raw messages)
    from gemini_builders import write_legacy

    _home(isolated_home)
    write_legacy(isolated_home, "proj", "session-2026-05-01T13-00-55555555.json", {
        **meta(LEGACY, start="2026-05-01T13:00:00.000Z"),
        "messages": [{"type": "user", "content": "no id here", "timestamp": "2026-05-01T13:00:01.000Z"}]})
    listed = {row["native_id"] for row in orjson.loads(invoke("list", "--json").stdout)["sessions"]}
    shown = orjson.loads(invoke("show", LEGACY, "--json").stdout)["session"]
    assert (LEGACY in listed) == (shown["started_at"] is not None)
