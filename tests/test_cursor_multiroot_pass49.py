"""A chat of a multi-root workspace takes the workspace's first folder as its cwd (pass 49).

A window opened on a ``.code-workspace`` file has a ``workspace.json`` of
``{"workspace": "file:///…/mono.code-workspace"}``, not ``{"folder": …}``: its chats had no
cwd.  The workspace file (JSON with comments and trailing commas) is read, read-only and
bounded, and its first folder on this machine is the cwd (docs/providers/cursor.md).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from agentscan.toolkit.jsoncomments import without_comments, without_trailing_commas
from builders import invoke
from cursor_builders import (HEADERS_DDL, bubble, composer_data, make_state_db, make_workspace_db, state_db_path, user,
                             write_transcript)

pytestmark = pytest.mark.usefixtures("only_cursor")

A = "abababab-0000-4000-8000-0000000000ab"  # listed by the workspace DB
B = "bcbcbcbc-0000-4000-8000-0000000000bc"  # a 3.0 composer: its header names the workspace
C = "cdcdcdcd-0000-4000-8000-0000000000cd"  # a CLI chat written later
T0 = 1_780_000_000_000
WORKSPACE_ID = "0123456789abcdef0123456789abcdef"

MONO = """// Cursor (VS Code) writes JSON with comments
{
  "folders": [
    /* the API first */
    {"path": "services/api", "name": "api // not a comment"},
    {"uri": "file:///elsewhere/web"},
  ],
  "settings": {"files.exclude": {"**/.git": true,},},
}
"""


def _home(home: Path, workspace_text: str | None, *, name: str = "mono.code-workspace") -> Path:
    """Two IDE composers naming no folder, and the multi-root workspace they ran in."""
    project = home / "src"
    project.mkdir(parents=True, exist_ok=True)
    workspace_file = project / name
    if workspace_text is not None:
        workspace_file.write_text(workspace_text, "utf-8")
    db = make_state_db(state_db_path(home), composers=[
        composer_data(A, name="mono chat", created=T0, updated=T0 + 10, bubbles=["a1", "a2"]),
        composer_data(B, name="mono 3.0 chat", created=T0, updated=T0 + 20, bubbles=["b1", "b2"]),
    ], bubbles={
        A: [bubble("a1", 1, "where is the api"), bubble("a2", 2, "here", tokens=(10, 1), model="gpt-5")],
        B: [bubble("b1", 1, "and the web"), bubble("b2", 2, "there", tokens=(20, 2), model="gpt-5")],
    })
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(HEADERS_DDL)
        conn.execute("INSERT INTO composerHeaders (composerId, workspaceId, createdAt, lastUpdatedAt, isSubagent, recency)"
                     " VALUES (?, ?, ?, ?, 0, ?)", (B, WORKSPACE_ID, T0, T0 + 20, T0 + 20))
        conn.commit()
    uri = workspace_file.as_uri()
    listing = make_workspace_db(home, uri, [{"composerId": A, "name": "mono chat"}])
    (listing.parent / "workspace.json").write_bytes(orjson.dumps({"workspace": uri}))
    by_id = db.parent.parent / "workspaceStorage" / WORKSPACE_ID
    by_id.mkdir(parents=True)
    (by_id / "workspace.json").write_bytes(orjson.dumps({"workspace": uri}))
    return workspace_file


def _cwds(*args: str) -> tuple[dict[str, str | None], list[dict]]:
    result = invoke("list", "--json", *args)
    assert result.exit_code == 0, result.stderr
    document = orjson.loads(result.stdout)
    return {row["native_id"]: row["cwd"] for row in document["sessions"]}, document["warnings"]


def test_the_first_folder_of_the_workspace_file_is_the_cwd(isolated_home: Path) -> None:
    _home(isolated_home, MONO)
    api = str(isolated_home / "src" / "services" / "api")
    for _ in range(2):  # cold, then the kept rows
        assert _cwds() == ({A: api, B: api}, [])
    assert _cwds("--no-cache") == ({A: api, B: api}, [])


def test_an_edited_workspace_file_changes_a_3_0_composer_s_cwd(isolated_home: Path) -> None:
    """The row's fingerprint covers the workspace file its header's workspace names: a kept row
    is not taken once the file changed (seen when anything under the roots changes too: the
    file is no root's, and the remembered page stands while none does)."""
    workspace_file = _home(isolated_home, MONO)
    assert _cwds()[0][B] == str(isolated_home / "src" / "services" / "api")
    workspace_file.write_text('{"folders": [{"path": "/abs/web"}]}', "utf-8")
    write_transcript(isolated_home, "home-me-other", C, [user("another chat")])
    assert _cwds()[0][B] == "/abs/web"


def test_a_folder_given_by_its_uri(isolated_home: Path) -> None:
    _home(isolated_home, '{"folders": [{"uri": "vscode-remote://ssh-remote+box/srv"}, {"uri": "file:///srv/app"}]}')
    assert _cwds()[0] == {A: "/srv/app", B: "/srv/app"}  # the remote one is no path here


def test_a_workspace_file_gone_leaves_the_cwd_unknown_silently(isolated_home: Path) -> None:
    _home(isolated_home, None)
    assert _cwds() == ({A: None, B: None}, [])


def test_a_workspace_file_that_is_not_json_is_a_warning(isolated_home: Path) -> None:
    workspace_file = _home(isolated_home, '{"folders": [ {"path": "api"} ')
    cwds, warnings = _cwds()
    assert cwds == {A: None, B: None}
    assert [warning["path"] for warning in warnings] == [str(workspace_file)]
    assert warnings[0]["message"].startswith("multi-root workspace file is not valid JSON")


def test_a_file_not_named_as_a_workspace_is_not_opened(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers.cursor import multiroot

    opened: list[Path] = []
    monkeypatch.setattr(multiroot, "read_capped", lambda path, limit: opened.append(path) or b"{}")
    _home(isolated_home, '{"folders": [{"path": "/abs/app"}]}', name="notes.json")
    assert _cwds()[0] == {A: None, B: None}
    assert opened == []


def test_comments_and_trailing_commas_go_strings_stay() -> None:
    text = '{"a": "x // y /* z */", // gone\n "b": [1, 2, /* gone */ ], "c": "q\\" ,]",}'
    assert orjson.loads(without_trailing_commas(without_comments(text))) == {"a": "x // y /* z */", "b": [1, 2],
                                                                              "c": 'q" ,]'}



# -- a bubble's createdAt in epoch ms (as composerData writes its times) ---------------------

E = "efefefef-0000-4000-8000-0000000000ef"
DAY_MS = 1_780_000_000_000  # 2026-05-28T20:26:40Z


def test_a_bubble_time_in_epoch_ms_is_its_time(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home), composers=[
        composer_data(E, name="numeric times", created=DAY_MS - 86_400_000, updated=DAY_MS - 86_400_000,
                      fs_path="/home/me/app", bubbles=["e1", "e2"]),
    ], bubbles={E: [bubble("e1", 1, "what day is it", created=DAY_MS),  # type: ignore[arg-type]
                    bubble("e2", 2, "Thursday", created=DAY_MS + 5_000, tokens=(300, 20), model="gpt-5")]})
    result = invoke("tokens", "--by", "day", "--json", "--tz", "UTC")
    assert result.exit_code == 0, result.stderr
    assert [row["key"] for row in orjson.loads(result.stdout)["rows"]] == ["2026-05-28"]  # was its composer's day (without one: unknown)
    (row,) = orjson.loads(invoke("list", "--json", "--tz", "UTC").stdout)["sessions"]
    assert row["updated_at"].startswith("2026-05-28T20:26:45")  # the reply's, past lastUpdatedAt
    shown = orjson.loads(invoke("show", E, "--json").stdout)["session"]
    assert [prompt["timestamp"] for prompt in shown["prompts"]] == ["2026-05-28T20:26:40.000Z"]


# -- every folder of the workspace is matched by --cwd (pass 51) -----------------------------

def test_cwd_of_any_folder_of_the_workspace_finds_its_chats(isolated_home: Path) -> None:
    """A chat of a multi-root workspace shows its first folder as cwd, and ``--cwd`` of any of its
    folders finds it, in ``list`` and ``tokens`` alike; JSON names every folder."""
    _home(isolated_home, MONO)
    api = str(isolated_home / "src" / "services" / "api")
    for extra in ((), ("--no-cache",), ()):  # cold, without the index, then the kept rows
        assert _cwds("--cwd", "/elsewhere/web", *extra)[0] == {A: api, B: api}
        assert _cwds("--cwd", "/elsewhere")[0] == {A: api, B: api}
        assert _cwds("--cwd", "/elsewhere/other")[0] == {}
        rows = orjson.loads(invoke("list", "--json", *extra).stdout)["sessions"]
        assert {row["native_id"]: row["workspace_folders"] for row in rows} == {A: [api, "/elsewhere/web"],
                                                                                B: [api, "/elsewhere/web"]}
        tokens = invoke("tokens", "--cwd", "/elsewhere/web", "--by", "session", "--json", *extra)
        assert tokens.exit_code == 0, tokens.stderr
        assert orjson.loads(tokens.stdout)["total"]["total"] == 33


def test_a_one_folder_workspace_names_no_folders(isolated_home: Path) -> None:
    _home(isolated_home, '{"folders": [{"path": "/abs/app"}, {"path": "/abs/app"}]}')  # one, twice
    rows = orjson.loads(invoke("list", "--json").stdout)["sessions"]
    assert [("workspace_folders" in row, row["cwd"]) for row in rows] == [(False, "/abs/app")] * 2


def test_show_names_every_folder_of_the_workspace(isolated_home: Path) -> None:
    _home(isolated_home, MONO)
    api = str(isolated_home / "src" / "services" / "api")
    lines = invoke("show", A).stdout.splitlines()
    assert [line.split(None, 1) for line in lines[2:4]] == [["cwd", api], ["folders", f"{api}, /elsewhere/web"]]
    assert orjson.loads(invoke("show", A, "--json").stdout)["session"]["workspace_folders"] == [api, "/elsewhere/web"]


def test_redact_masks_a_secret_in_any_folder_as_in_the_cwd(isolated_home: Path) -> None:
    secret = "ghp_" + "a" * 36
    _home(isolated_home, '{"folders": [{"path": "/abs/app"}, {"path": "/abs/%s/web"}]}' % secret)
    rows = orjson.loads(invoke("list", "--json", "--redact").stdout)["sessions"]
    assert rows and all(secret not in folder for row in rows for folder in row["workspace_folders"])
    assert all(len(row["workspace_folders"]) == 2 for row in rows)
