"""Helpers written more than once in the Cursor adapter, now written once (pass 57):

* a SQLite database and its ``-wal`` (``toolkit.sqlite_ro.with_wal``, ``wal_of``), spelt out in
  the fingerprint, the DB's stamp, the kept stats and the reader;
* the model most calls ran (``cursor.mostused.model_of_calls``), counted by the row from its
  bubbles (``row.used_model``) and by the kept sums (``mostused.calls_model``) apart;
* JSON with comments (``toolkit.jsoncomments``), blanked by the hook installer
  (``hooks.configjson.commented``) and by the multi-root workspace reader
  (``cursor.multiroot.without_comments``) each its own way: the reader folded a block comment
  to one space, so its warning's "line 3" was line 1.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from agentscan.context import ScanContext

CURSOR = Path(__file__).parent.parent / "src" / "agentscan" / "providers" / "cursor"


def test_a_databases_wal_is_named_once() -> None:
    from agentscan.toolkit.sqlite_ro import wal_of, with_wal

    db = Path("/x/User/globalStorage/state.vscdb")
    assert with_wal(db) == (db, Path("/x/User/globalStorage/state.vscdb-wal")) and wal_of(db) == with_wal(db)[1]
    spelt = [path.name for path in CURSOR.glob("*.py") if '+ "-wal"' in path.read_text(encoding="utf-8")]
    assert spelt == [], spelt


def test_the_model_of_calls_is_counted_one_way() -> None:
    from agentscan.providers.cursor import mostused, row

    assert not hasattr(row, "used_model")
    assert "model_of_calls" in inspect.getsource(row.top_model)
    assert "model_of_calls" in inspect.getsource(mostused.calls_model)
    # The most calls; a tie to the first by name; Cursor's auto (``default``) and none name no model.
    assert mostused.model_of_calls([("gpt-5", 1), ("claude-4-sonnet", 1), ("default", 5), (None, 3)]) == "claude-4-sonnet"
    assert mostused.model_of_calls([("gpt-5", 2), ("claude-4-sonnet", 1)]) == "gpt-5"


def test_comments_are_blanked_one_way_their_lines_kept(tmp_path: Path) -> None:
    from agentscan.hooks import configjson
    from agentscan.providers.cursor import multiroot
    from agentscan.toolkit import jsoncomments

    assert multiroot.without_comments is jsoncomments.without_comments
    assert "blank_comments" in inspect.getsource(configjson.commented)
    assert configjson.commented('{"a": 1 /* one\n two */, // three\n "b": "http://x"}')
    assert not configjson.commented('{"a": "http://x"}')
    workspace = tmp_path / "mono.code-workspace"
    workspace.write_text('{"folders": [/* one\ntwo\nthree */ {"path": x}]}', "utf-8")
    ctx = ScanContext.create(env={})
    assert multiroot.folders(workspace, ctx) == ()
    (said,) = [warning.message for warning in ctx.warnings.items]
    assert "at line 3, column 19" in said, said  # (where an editor shows it: it said line 1)
