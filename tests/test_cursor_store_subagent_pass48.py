"""A Cursor Agent CLI subagent chat (its own ``store.db`` naming its parent in
``subagentInfo``, no transcript) is shown under its parent's session from its own store:
its kind (``typeName``), its prompts, replies and tool calls (``providers/cursor/subchats.py``;
docs/providers/cursor.md, "Subagent chats")."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import cli_json, invoke
from cursor_builders import add_store_messages, assistant, tool, user, write_chat_store, write_transcript

pytestmark = pytest.mark.usefixtures("only_cursor")

T0 = 1_790_000_000_000
PARENT, CHILD = "dddd4800-0000-4000-8000-000000000001", "dddd4800-0000-4000-8000-000000000002"
CWD = "/home/me/cli-proj"


def _chat(home: Path, chat: str, messages: list[dict], info: dict | None = None) -> None:
    store: dict = {"agentId": chat, "name": "New Agent", "createdAt": T0, "lastUsedModel": "gpt-5"}
    if info:
        store["subagentInfo"] = info
    directory = write_chat_store(home, CWD, chat, store=store, meta={
        "schemaVersion": 1, "createdAtMs": T0, "updatedAtMs": T0 + 5, "cwd": CWD})
    add_store_messages(directory, messages)


def _child(home: Path, parent: str) -> None:
    _chat(home, CHILD, [
        {"role": "user", "content": [{"type": "text", "text": "<user_info>OS linux</user_info>"}]},
        {"role": "user", "content": "<user_query>\nexplore the flags\n</user_query>"},
        {"role": "assistant", "content": [{"type": "text", "text": "explored"},
                                          {"type": "tool-call", "toolName": "Grep", "toolCallId": "c1",
                                           "args": {"pattern": "verbose", "path": f"{CWD}/src"}}]},
    ], {"parentAgentId": parent, "rootParentAgentId": parent, "toolCallId": "tcx", "typeName": "explore"})


@pytest.fixture
def cli_pair(isolated_home: Path) -> Path:
    _chat(isolated_home, PARENT, [
        {"role": "user", "content": "<user_query>\nAdd a --verbose flag\n</user_query>"},
        {"role": "assistant", "content": [{"type": "text", "text": "Adding it."},
                                          {"type": "tool-call", "toolName": "Read", "toolCallId": "t1",
                                           "args": {"path": f"{CWD}/main.py"}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ])
    _child(isolated_home, PARENT)
    return isolated_home


def test_show_json_lists_the_subagent_chats_kind_and_exchange(cli_pair: Path) -> None:
    session = cli_json("show", f"cursor:{PARENT}")["session"]
    (sub,) = session["subagents"]
    assert (sub["id"], sub["agent_type"], sub["model"]) == (CHILD, "explore", "gpt-5")  # (its lastUsedModel)
    assert sub["path"] is not None and sub["path"].endswith(f"{CHILD}/store.db")
    assert [p["text"] for p in sub["prompts"]] == ["explore the flags"]  # (the injected <user_info> is none)
    assert [r["text"] for r in sub["responses"]] == ["explored"]
    # Its calls are among the session's, marked as its; its talk is not the session's.
    assert [(t["name"], t["subagent"]) for t in session["tools"]] == [("Read", None), ("Grep", CHILD)]
    assert [p["text"] for p in session["prompts"]] == ["Add a --verbose flag"]
    # ``counts`` stay the session's own (docs/json.md), as ``list`` says.
    assert session["counts"] == {"prompts": 1, "responses": 2, "tool_calls": 1}
    (row,) = cli_json("list", "--all")["sessions"]
    assert (row["native_id"], row["subagents"], row["counts"]) == (PARENT, 1, session["counts"])


def test_show_of_the_subagent_id_no_longer_says_nothing_is_recorded(cli_pair: Path) -> None:
    result = invoke("show", CHILD)
    assert result.exit_code == 0, result.output
    focus = next(line for line in result.output.splitlines() if line.strip().startswith("focus"))
    assert "no prompt or response" not in focus and "no tool call of its" not in focus
    assert "its tool calls marked [" in focus
    assert f"prompts of {CHILD} (1)" in result.output and "explore the flags" in result.output
    assert f"last response of {CHILD}" in result.output


def test_show_full_has_a_subagent_block_for_it(cli_pair: Path) -> None:
    result = invoke("show", "--full", f"cursor:{PARENT}")
    assert result.exit_code == 0, result.output
    text = result.output
    assert f"↳ subagent {CHILD} (explore)" in text
    block = text[text.index(f"↳ subagent {CHILD}"):]
    assert "explore the flags" in block and "explored" in block and "Grep" in block


def test_a_transcript_session_shows_its_cli_subagent_chat_once(isolated_home: Path) -> None:
    write_transcript(isolated_home, "home-me-cli-proj", PARENT,
                     [user("Add a --verbose flag"), assistant("Looking", tool("Read", path=f"{CWD}/main.py"))])
    _child(isolated_home, PARENT)
    session = cli_json("show", CHILD)["session"]
    assert session["native_id"] == PARENT
    (sub,) = session["subagents"]
    assert (sub["id"], sub["agent_type"]) == (CHILD, "explore")
    assert [p["text"] for p in sub["prompts"]] == ["explore the flags"]
    assert [t["subagent"] for t in session["tools"]].count(CHILD) == 1
