"""Cursor's format drift, pass 38: subagents linked by ``subagentComposerIds`` and
``subagentInfo``, injected user messages, a stale ``lastUpdatedAt``, the CLI's config dir
(``CURSOR_CONFIG_DIR``, ``$XDG_CONFIG_HOME/cursor``), comma-joined model labels, CLI
subagent chats and a 3.0 composer's cwd by its ``workspaceId`` (docs/providers/cursor.md)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import cli_json
from cursor_builders import (
    HEADERS_DDL,
    add_store_messages,
    bubble,
    composer_data,
    make_state_db,
    state_db_path,
    write_chat_store,
)

DAY = 86_400_000
T0 = 1_790_000_000_000  # 2026-09-21T14:13:20Z
P, C, ORPHAN = ("aaaa0000-0000-4000-8000-00000000000%d" % n for n in (1, 2, 3))
Q, Q_CHILD = "aaaa0000-0000-4000-8000-000000000004", "aaaa0000-0000-4000-8000-000000000005"
S, U, W, M = ("bbbb0000-0000-4000-8000-00000000000%d" % n for n in (1, 2, 3, 4))
GONE = "ffff0000-0000-4000-8000-000000000009"


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat().replace("+00:00", "Z")


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _ide_home(home: Path) -> Path:
    composers = [
        # linked by the parent's subagentComposerIds (and the child's subagentInfo)
        composer_data(P, name="parent", created=T0, updated=T0 + 1000, model="claude-4.5-sonnet", fs_path="/home/me/app",
                      bubbles=["p1", "p2"], subagentComposerIds=[C]),
        composer_data(C, name="explore", created=T0 + 500, updated=T0 + 900, model="claude-4.5-sonnet",
                      fs_path="/home/me/app", bubbles=["c1", "c2"], subagentInfo={"parentComposerId": P}),
        # linked by the child's subagentInfo alone
        composer_data(Q, name="second parent", created=T0, updated=T0 + 10, fs_path="/home/me/app", bubbles=["q1", "q2"]),
        composer_data(Q_CHILD, name="child of q", created=T0, updated=T0 + 10, fs_path="/home/me/app",
                      bubbles=["k1", "k2"], subagentInfo={"parentComposerId": Q, "subagentType": "explore"}),
        # a child whose parent is gone: listed, so that its tokens are not lost
        composer_data(ORPHAN, name="orphan", created=T0, updated=T0 + 10, fs_path="/home/me/app",
                      bubbles=["o1", "o2"], subagentInfo={"parentComposerId": GONE}),
        composer_data(S, created=T0, updated=T0 + 2000, fs_path="/home/me/app", bubbles=["s0", "s1", "s2"]),
        composer_data(U, name="stale header", created=T0, updated=T0, fs_path="/home/me/app", bubbles=["u1", "u2"]),
        composer_data(W, name="no fsPath", created=T0, updated=T0 + 10, bubbles=["w1", "w2"]),
        composer_data(M, name="model switch", created=T0, updated=T0 + 10, fs_path="/home/me/app",
                      model="claude-4.5-sonnet, gpt-5", bubbles=["m1", "m2"]),
    ]
    bubbles = {
        P: [bubble("p1", 1, "delegate a search", created=iso(T0)),
            bubble("p2", 2, "done", created=iso(T0 + 1000), tokens=(1000, 100), model="claude-4.5-sonnet")],
        C: [bubble("c1", 1, "explore the repo", created=iso(T0 + 500)),
            bubble("c2", 2, "found it", created=iso(T0 + 900), tokens=(5000, 500), model="claude-4.5-sonnet")],
        Q: [bubble("q1", 1, "look around", created=iso(T0)), bubble("q2", 2, "ok", created=iso(T0 + 10), tokens=(10, 1))],
        Q_CHILD: [bubble("k1", 1, "look", created=iso(T0)), bubble("k2", 2, "seen", created=iso(T0 + 10), tokens=(20, 2))],
        ORPHAN: [bubble("o1", 1, "lost", created=iso(T0)), bubble("o2", 2, "here", created=iso(T0 + 10), tokens=(30, 3))],
        S: [bubble("s0", 1, '<system_notification source="goal">Continue working</system_notification>',
                   created=iso(T0), isSimulatedMsg=True, simulatedMsgReason=1, tokens=(7, 0)),
            bubble("s1", 1, "fix the flaky test", created=iso(T0 + 1000)),
            bubble("s2", 2, "fixed", created=iso(T0 + 2000))],
        U: [bubble("u1", 1, "old then resumed", created=iso(T0)),
            bubble("u2", 2, "resumed reply", created=iso(T0 + 3 * DAY))],
        W: [bubble("w1", 1, "where am i", created=iso(T0)), bubble("w2", 2, "here", created=iso(T0 + 10))],
        M: [bubble("m1", 1, "switch", created=iso(T0)), bubble("m2", 2, "ok", created=iso(T0 + 10), tokens=(2000, 200))],
    }
    db = make_state_db(state_db_path(home), composers=composers, bubbles=bubbles)
    workspace = "0123456789abcdef0123456789abcdef"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(HEADERS_DDL)
        conn.execute("INSERT INTO composerHeaders (composerId, workspaceId, createdAt, lastUpdatedAt, isSubagent, recency)"
                     " VALUES (?, ?, ?, ?, 0, ?)", (W, workspace, T0, T0 + 10, T0 + 10))
        conn.commit()
    folder = db.parent.parent / "workspaceStorage" / workspace
    folder.mkdir(parents=True)
    (folder / "workspace.json").write_bytes(orjson.dumps({"folder": "file:///home/me/newapp"}))
    return db


def _three_ways(*args: str) -> dict:
    """``args`` cold, then cached, then ``--no-cache``: the three must agree."""
    cold, cached, uncached = cli_json(*args), cli_json(*args), cli_json(*args, "--no-cache")
    assert cold == cached == uncached
    return cold


def _rows(isolated_home: Path) -> dict[str, dict]:
    return {row["native_id"]: row for row in _three_ways("list", "--all")["sessions"]}


def test_subagents_by_subagent_composer_ids_and_subagent_info_roll_into_their_parent(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    rows = _rows(isolated_home)
    assert C not in rows and Q_CHILD not in rows
    assert rows[P]["tokens"]["total"] == 6600 and rows[P]["subagents"] == 1
    assert rows[Q]["tokens"]["total"] == 33 and rows[Q]["subagents"] == 1
    assert rows[ORPHAN]["tokens"]["total"] == 33  # its parent is gone: listed on its own
    report = _three_ways("tokens", "--by", "session")
    by_key = {row["key"]: row for row in report["rows"]}
    assert by_key[f"cursor:{P}"]["own"]["total"] == 1100
    assert [(s["id"], s["tokens"]["total"]) for s in by_key[f"cursor:{P}"]["subagents"]] == [(C, 5500)]
    # every bubble counted exactly once
    assert report["total"]["total"] == 1100 + 5500 + 11 + 22 + 33 + 7 + 2200
    # the child's id opens its parent
    assert cli_json("show", C)["session"]["native_id"] == P


def test_a_simulated_user_bubble_is_no_prompt_and_no_title_but_its_tokens_count(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    row = _rows(isolated_home)[S]
    assert row["title"] == "fix the flaky test"
    assert row["counts"]["prompts"] == 1
    assert row["tokens"]["total"] == 7
    prompts = cli_json("show", S)["session"]["prompts"]
    assert [p["text"] for p in prompts] == ["fix the flaky test"]


def test_a_stale_last_updated_at_gives_way_to_the_bubbles_times(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    assert _rows(isolated_home)[U]["updated_at"] == "2026-09-24T14:13:20.000Z"
    since = _three_ways("list", "--since", "2026-09-23")["sessions"]
    assert [row["native_id"] for row in since] == [U]


def test_the_header_recency_counts_as_an_update(isolated_home: Path) -> None:
    db = make_state_db(state_db_path(isolated_home),
                       composers=[composer_data(U, name="recent", created=T0, updated=T0, bubbles=["u1"])],
                       bubbles={U: [bubble("u1", 1, "hello")]})
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(HEADERS_DDL)
        conn.execute("INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, isSubagent, recency)"
                     " VALUES (?, ?, ?, 0, ?)", (U, T0, T0, T0 + 5 * DAY))
        conn.commit()
    since = _three_ways("list", "--since", "2026-09-25")["sessions"]
    assert [(row["native_id"], row["updated_at"]) for row in since] == [(U, "2026-09-26T14:13:20.000Z")]


def test_a_comma_joined_model_label_is_its_last_model(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    row = _rows(isolated_home)[M]
    assert row["model"] == "gpt-5"
    assert row["cost_usd"] is not None


def test_a_3_0_composer_takes_its_cwd_from_its_workspace_id(isolated_home: Path) -> None:
    _ide_home(isolated_home)
    assert _rows(isolated_home)[W]["cwd"] == "/home/me/newapp"


# -- the Agent CLI -------------------------------------------------------------

PARENT, CHILD = "22222222-0000-4000-8000-000000000001", "33333333-0000-4000-8000-000000000002"


def _cli_chat(home: Path, chat: str, store: dict, messages: list[dict], meta: dict | None = None) -> Path:
    directory = write_chat_store(home, "/home/me/app", chat, store=store, meta=meta or {
        "schemaVersion": 1, "createdAtMs": T0, "updatedAtMs": T0 + 5, "cwd": "/home/me/app"})
    add_store_messages(directory, messages)
    return directory


def _context_then_query() -> list[dict]:
    return [
        {"role": "user", "content": [{"type": "text", "text": "<user_info>OS: linux, workspace: /home/me/app</user_info>"}]},
        {"role": "user", "content": "<rules>\nbe brief\n</rules>\n<agent_transcripts>past chats</agent_transcripts>"},
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\n<system_reminder>plan mode</system_reminder>\n</user_query>"}]},
        {"role": "user", "content": [{"type": "text", "text": "<user_query>refactor the parser</user_query>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    ]


def test_cli_context_messages_are_no_prompts_and_new_agent_is_no_title(isolated_home: Path) -> None:
    _cli_chat(isolated_home, PARENT, {"agentId": PARENT, "name": "New Agent", "createdAt": T0,
                                      "lastUsedModel": {"model": "gpt-5", "id": "x"}}, _context_then_query())
    (row,) = _three_ways("list")["sessions"]
    assert (row["title"], row["counts"]["prompts"], row["model"]) == ("refactor the parser", 1, "gpt-5")


def test_a_cli_subagent_chat_is_its_parents_subagent(isolated_home: Path) -> None:
    _cli_chat(isolated_home, PARENT, {"agentId": PARENT, "name": "parent chat", "createdAt": T0}, _context_then_query())
    _cli_chat(isolated_home, CHILD, {"agentId": CHILD, "name": "New Agent", "createdAt": T0 + 1,
                                     "subagentInfo": {"parentAgentId": PARENT, "rootParentAgentId": PARENT}},
              [{"role": "user", "content": "scan files"}, {"role": "assistant", "content": "scanned"}])
    (row,) = _three_ways("list")["sessions"]
    assert (row["native_id"], row["subagents"]) == (PARENT, 1)
    shown = cli_json("show", CHILD)["session"]
    assert shown["native_id"] == PARENT and [s["id"] for s in shown["subagents"]] == [CHILD]


def test_a_cli_subagent_chat_whose_parent_is_gone_is_listed(isolated_home: Path) -> None:
    _cli_chat(isolated_home, CHILD, {"agentId": CHILD, "name": "lonely", "createdAt": T0,
                                     "subagentInfo": {"parentAgentId": GONE}},
              [{"role": "user", "content": "scan files"}])
    assert [row["native_id"] for row in _three_ways("list")["sessions"]] == [CHILD]


def _xdg_chat(config: Path, chat: str, name: str) -> None:
    """A CLI chat under ``config`` (a Cursor config dir in place of ``~/.cursor``)."""
    fake_home = config.parent / f"build-{chat[:4]}"
    _cli_chat(fake_home, chat, {"agentId": chat, "name": name, "createdAt": T0}, [{"role": "user", "content": name}])
    config.parent.mkdir(parents=True, exist_ok=True)
    (fake_home / ".cursor").rename(config)


def test_the_cli_config_dir_under_xdg_config_home_is_read(isolated_home: Path) -> None:
    _xdg_chat(isolated_home / ".config" / "cursor", PARENT, "xdg chat")
    assert [row["title"] for row in _three_ways("list")["sessions"]] == ["xdg chat"]
    doctor = CliRunner().invoke(app, ["doctor"])
    assert f"XDG_CONFIG_HOME  {isolated_home / '.config' / 'cursor' / 'chats'}" in doctor.output


def test_cursor_config_dir_is_read_first_and_named(isolated_home: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _xdg_chat(tmp_path / "elsewhere" / "cursor-config", CHILD, "configured chat")
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(tmp_path / "elsewhere" / "cursor-config"))
    assert [row["title"] for row in _three_ways("list")["sessions"]] == ["configured chat"]
    doctor = CliRunner().invoke(app, ["doctor"])
    assert f"CURSOR_CONFIG_DIR  {tmp_path / 'elsewhere' / 'cursor-config' / 'chats'}" in doctor.output


def test_a_cursor_config_dir_that_is_not_there_fails(isolated_home: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(tmp_path / "nowhere"))
    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 1
    assert "fix or unset CURSOR_CONFIG_DIR" in result.output


def test_cursor_config_dir_expands_tilde_under_the_scans_home(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.cursor.provider import CursorProvider

    ctx = ScanContext.create(home=tmp_path, env={"CURSOR_CONFIG_DIR": "~/cc"})
    named = [(r.path, r.explicit) for r in CursorProvider().roots(ctx) if r.source == "CURSOR_CONFIG_DIR"]
    assert named == [(tmp_path / "cc" / name, True) for name in ("projects", "chats", "acp-sessions")]
    assert ctx.warnings.items == []


def test_nothing_is_written_inside_the_folder_cursor_config_dir_names(isolated_home: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "cursor-config"
    (config / "chats").mkdir(parents=True)
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(config))
    result = CliRunner().invoke(app, ["export", "-f", "csv", "-o", str(config / "x.csv")])
    assert result.exit_code == 1 and "cursor's own folder" in result.output
    assert not (config / "x.csv").exists()
