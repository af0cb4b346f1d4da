"""A multi-root Cursor chat found by a folder other than its workspace's first (pass 52).

``list --cwd ~/src/web`` found the chat of a workspace whose folders are ``api`` then ``web``
(``workspace_folders``), and its CWD column read ``…/api``: the folder asked for looked
ignored.  The table shows the folder ``--cwd`` matched (``--json`` keeps ``cwd`` as recorded,
beside ``workspace_folders``: docs/json.md); and ``--grep`` searches every folder, as
``--cwd`` matches each (it searched ``cwd`` alone: ``--grep web`` found nothing).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import invoke
from test_cursor_multiroot_pass49 import A, B, MONO, _home

pytestmark = pytest.mark.usefixtures("only_cursor")


def _folders(home: Path) -> tuple[str, str]:
    _home(home, MONO)
    return str(home / "src" / "services" / "api"), "/elsewhere/web"


def test_the_table_shows_the_folder_cwd_matched(isolated_home: Path) -> None:
    api, web = _folders(isolated_home)
    for _ in range(2):  # made, then remembered
        result = invoke("list", "--cwd", web)
        assert result.exit_code == 0, result.stderr
        lines = [line for line in result.stdout.splitlines() if A in line or B in line]
        assert len(lines) == 2 and all(web in line and api not in line for line in lines), result.stdout
    unfiltered = invoke("list").stdout
    assert api in unfiltered and web not in unfiltered  # the first folder stands for the workspace


def test_json_keeps_cwd_as_recorded(isolated_home: Path) -> None:
    api, web = _folders(isolated_home)
    rows = orjson.loads(invoke("list", "--cwd", web, "--json").stdout)["sessions"]
    assert {(row["cwd"], tuple(row["workspace_folders"])) for row in rows} == {(api, (api, web))}


def test_grep_searches_every_folder_of_the_workspace(isolated_home: Path) -> None:
    _folders(isolated_home)
    result = invoke("list", "--grep", "elsewhere", "--json")
    assert result.exit_code == 0, result.stderr
    assert {row["native_id"] for row in orjson.loads(result.stdout)["sessions"]} == {A, B}


def test_tokens_under_cwd_names_the_folder_matched(isolated_home: Path) -> None:
    """``tokens --cwd web``: its session's CWD and its ``--by cwd`` row are the folder asked
    for (they read ``…/api``, the workspace's first); unfiltered, ``--by cwd`` keeps the first."""
    api, web = _folders(isolated_home)
    grouped = orjson.loads(invoke("tokens", "--cwd", web, "--by", "cwd", "--json").stdout)
    assert [row["key"] for row in grouped["rows"]] == [web]
    assert [row["key"] for row in orjson.loads(invoke("tokens", "--by", "cwd", "--json").stdout)["rows"]] == [api]
    table = invoke("tokens", "--cwd", web)
    assert table.exit_code == 0, table.stderr
    lines = [line for line in table.stdout.splitlines() if A in line or B in line]
    assert len(lines) == 2 and all(web in line and api not in line for line in lines), table.stdout


def test_grep_shows_the_folder_it_matched(isolated_home: Path) -> None:
    """``list --grep elsewhere`` found the chat by its second folder, and its CWD read the first:
    the table shows the folder the text is in (``ListFilter.shown_cwd``); a text in the first
    folder, or in the title alone, keeps the first.  ``--json`` keeps ``cwd`` as recorded."""
    api, web = _folders(isolated_home)
    for text, shown in (("elsewhere", web), ("services", api), ("mono", api)):
        result = invoke("list", "--grep", text)
        assert result.exit_code == 0, result.stderr
        lines = [line for line in result.stdout.splitlines() if A in line or B in line]
        other = api if shown == web else web
        assert len(lines) == 2 and all(shown in line and other not in line for line in lines), (text, result.stdout)
    rows = orjson.loads(invoke("list", "--grep", "elsewhere", "--json").stdout)["sessions"]
    assert {row["cwd"] for row in rows} == {api}
