"""Cursor, as a power user found it: a locked ``state.vscdb`` is never cached, a reply's
model is its own, a copied home under ``--home`` reads its own DB, and ``doctor`` says
what it read (docs/providers/cursor.md)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.providers.cursor.roots import state_db_root
from agentscan.providers.cursor.statedb import state_db
from agentscan.scan.warningkinds import message_kind as _head
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import sqlite_ro
from bad_corpus import LiveWriter
from builders import cli_json
from cursor_builders import (
    assistant,
    bubble,
    composer_data,
    make_state_db,
    make_workspace_db,
    state_db_path,
    turn_ended,
    user,
    write_transcript,
)

A = "a3400000-0000-4000-8000-000000000001"
B = "b3400000-0000-4000-8000-000000000002"
SLUG = "home-me-shop"
T0 = 1_785_000_000_000  # 2026-07-25T17:20:00Z
LOCKED = ("Cursor state DB not used (database is locked by Cursor or another program); "
          "chats are listed without it, those only it holds left out, the tokens it holds not known "
          "but for sessions unchanged since its last read "
          "(try again in a moment, or close Cursor)")


#: every test of this file reads Cursor alone (``conftest.only_cursor``)
pytestmark = pytest.mark.usefixtures("only_cursor")


def _two_sessions(home: Path, *, wal: bool = False) -> Path:
    """Two transcript sessions the DB names and counts tokens for (47 + 7 = 54 in all)."""
    for composer, words in ((A, "cart"), (B, "checkout")):
        write_transcript(home, SLUG, composer, [user(f"write the {words}"), assistant(f"{words} done"), turn_ended()])
    return make_state_db(
        state_db_path(home), wal=wal,
        composers=[composer_data(A, name="Cart from the DB", updated=T0, model="gpt-5", bubbles=["u", "a"]),
                   composer_data(B, name="Checkout from the DB", updated=T0, model="gpt-5", bubbles=["u", "a"])],
        bubbles={A: [bubble("u", 1, "write the cart"), bubble("a", 2, "cart done", tokens=(40, 7), model="gpt-5")],
                 B: [bubble("u", 1, "write the checkout"), bubble("a", 2, "checkout done", tokens=(5, 2), model="gpt-5")]},
    )


def _titles_and_total() -> tuple[set[str], int | None]:
    listed = cli_json("list")
    report = cli_json("tokens")
    return {row["title"] for row in listed["sessions"]}, (report["total"] or {}).get("total")


# -- F1, F10: a locked DB ---------------------------------------------------------


def test_rows_and_sums_read_while_the_db_was_locked_are_not_kept(isolated_home: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Read under a lock, the rows lack the DB's titles and tokens: once the lock is gone,
    the DB unchanged (its fingerprint too), the next run reads them whole, not the
    degraded rows, sums or answers of the locked run from the cache."""
    monkeypatch.setattr(sqlite_ro, "BUSY_TIMEOUT_MS", 250)
    db = _two_sessions(isolated_home)
    before = db.stat()
    with LiveWriter("exclusive", db):
        report = cli_json("tokens")  # token sums first: their cache is not the rows'
        listed = cli_json("list")
    assert {row["title"] for row in listed["sessions"]} == {"write the cart", "write the checkout"}
    # (pass 49) their usage is in the locked DB: not known, no row; 0 counted of none read
    assert report["rows"] == [] and report["total"]["total"] == 0
    for document in (listed, report):
        assert [(w["path"], w["message"]) for w in document["warnings"]] == [(str(db), LOCKED)]
    assert (db.stat().st_mtime_ns, db.stat().st_size) == (before.st_mtime_ns, before.st_size)
    assert _titles_and_total() == ({"Cart from the DB", "Checkout from the DB"}, 54)
    assert _titles_and_total() == ({"Cart from the DB", "Checkout from the DB"}, 54)  # and kept now


def test_every_read_after_a_failure_says_it_again_in_passing(isolated_home: Path) -> None:
    """The DB failed once (at discovery); a row built after it, from the memoised empty
    answers, must still see a ``passing`` warning, or it would be cached."""
    write_transcript(isolated_home, SLUG, A, [user("hi")])
    path = state_db_path(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database" * 10)
    ctx = ScanContext.create(home=isolated_home)
    db = state_db(ctx)
    with ctx.warnings.capture() as first:
        db.composers()
    for read in (db.composers, db.headers, lambda: db.bubble_stats(A), lambda: db.conversation_order(A),
                 lambda: list(db.iter_bubbles(A)), lambda: db.bubble(A, "x")):
        with ctx.warnings.capture() as later:
            read()
        assert later.passing and {w.message for w in later} == {w.message for w in first}, read
    # Said once all the same: the sink folds the repeats.
    assert [w.message for w in ctx.warnings.items] == [
        # (pass 55: no "but for sessions unchanged since its last read": a broken DB keeps none's figures)
        "Cursor state DB not used (not a SQLite database); chats are listed without it, those only it holds left out, "
        "the tokens it holds not known"]


def test_a_db_that_is_read_says_nothing_in_passing(isolated_home: Path) -> None:
    _two_sessions(isolated_home)
    ctx = ScanContext.create(home=isolated_home)
    db = state_db(ctx)
    with ctx.warnings.capture() as captured:
        db.composers(), db.bubble_stats(A)
    assert not captured.passing and list(captured) == []


# -- F3: a reply's model ----------------------------------------------------------


def _switched(home: Path, *, user_bubbles: int = 2) -> None:
    """Turn 1 ran on sonnet, turn 2 on gpt-5, chosen after it (``modelConfig``)."""
    write_transcript(home, SLUG, A, [
        user("write the cart"), assistant("cart written"), turn_ended(),
        user("now the checkout"), assistant("checkout written"), turn_ended(),
    ])
    bubbles = [bubble("u1", 1, "write the cart"),
               bubble("a1", 2, "cart written", tokens=(1000, 100), model="claude-4.5-sonnet"),
               bubble("u2", 1, "now the checkout"),
               bubble("a2", 2, "checkout written", tokens=(2000, 200), model="gpt-5")]
    if user_bubbles == 1:
        bubbles = [b for b in bubbles if b["bubbleId"] != "u2"]
    make_state_db(state_db_path(home), composers=[
        composer_data(A, name="Cart and checkout", model="gpt-5", bubbles=[b["bubbleId"] for b in bubbles])],
        bubbles={A: bubbles})


def _responses(session: str) -> list[tuple[str, str | None]]:
    return [(r["text"], r["model"]) for r in cli_json("show", session)["session"]["responses"]]


def test_a_transcript_reply_has_its_turns_model_not_the_one_chosen_since(isolated_home: Path) -> None:
    _switched(isolated_home)
    assert _responses(A) == [("cart written", "claude-4.5-sonnet"), ("checkout written", "gpt-5")]
    by_model = {row["key"]: row["tokens"]["total"] for row in cli_json("tokens", "--by", "model")["rows"]}
    assert by_model == {"claude-4.5-sonnet": 1100, "gpt-5": 2200}  # as tokens splits them
    text = CliRunner().invoke(app, ["show", A, "--full", "--no-pager"]).stdout
    assert "response (claude-4.5-sonnet)" in text and "response (gpt-5)" in text


def test_turns_that_do_not_match_the_prompts_label_nothing(isolated_home: Path) -> None:
    _switched(isolated_home, user_bubbles=1)  # one user bubble for two prompts: no turn is known
    assert _responses(A) == [("cart written", None), ("checkout written", None)]


def test_a_transcript_with_no_composer_labels_nothing(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, A, [user("hi"), assistant("hello")])
    assert _responses(A) == [("hello", None)]


def test_an_ide_reply_without_its_own_model_is_unlabelled(isolated_home: Path) -> None:
    make_state_db(state_db_path(isolated_home), composers=[
        composer_data(B, name="IDE only", model="gpt-5", fs_path="/home/me/shop", bubbles=["u1", "a1", "u2", "a2", "a3"])],
        bubbles={B: [bubble("u1", 1, "q1"), bubble("a1", 2, "on sonnet", model="claude-4.5-sonnet"),
                     bubble("u2", 1, "q2"), bubble("a2", 2, "no model said"), bubble("a3", 2, "auto", model="default")]})
    assert _responses(B) == [("on sonnet", "claude-4.5-sonnet"), ("no model said", None), ("auto", None)]


# -- F4: a missing CURSOR_STATE_DB (as docs/providers/cursor.md now says) ----------


def test_a_missing_cursor_state_db_fails_after_listing_what_it_read(isolated_home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    write_transcript(isolated_home, SLUG, A, [user("still listed")])
    missing = isolated_home / "gone" / "state.vscdb"
    monkeypatch.setenv("CURSOR_STATE_DB", str(missing))
    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 1
    assert "still listed" in result.stdout
    assert (f"error: Cursor: no readable root among {missing} (CURSOR_STATE_DB); fix or unset CURSOR_STATE_DB"
            in result.stderr)


# -- F7: doctor's kinds of warnings -----------------------------------------------


@pytest.mark.parametrize(("message", "head"), [
    ("invalid JSON skipped: line 3", "invalid JSON skipped"),
    ("cannot read: Permission denied", "cannot read"),
    ("Cursor state DB not used (/gone/state.vscdb: not found); chats are listed without it, the tokens it holds not known",
     "Cursor state DB not used (/gone/state.vscdb: not found); chats are listed without it, the tokens it holds not known"),
    ("thread index unreadable [x: y]: database is locked", "thread index unreadable [x: y]"),
    ("/mnt/c:/x/session.jsonl is a link outside the root: skipped", "/mnt/c:/x/session.jsonl is a link outside the root"),
    (r"C:\Users\me\x.jsonl skipped", r"C:\Users\me\x.jsonl skipped"),
    ("ends with a colon:", "ends with a colon"),
    ("a stray ) closes nothing: detail", "a stray ) closes nothing"),
])
def test_a_warnings_kind_is_cut_only_at_a_colon_that_ends_a_clause(message: str, head: str) -> None:
    assert _head(message) == head


# -- F9: --home and XDG_CONFIG_HOME ------------------------------------------------


def test_under_home_an_xdg_config_home_in_the_login_home_is_taken_inside_dir(tmp_path: Path) -> None:
    login, copied = tmp_path / "me", tmp_path / "copied"
    ctx = ScanContext.create(home=copied, env={"HOME": str(login), "XDG_CONFIG_HOME": str(login / ".config")})
    root = state_db_root(ctx, platform="linux")
    assert root.path == copied / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    assert root.source == "--home"
    assert root.note == f"XDG_CONFIG_HOME={login / '.config'} is under $HOME, so read under --home as {copied / '.config'}"


def test_under_home_an_xdg_config_home_elsewhere_or_the_same_home_is_taken_as_it_is(tmp_path: Path) -> None:
    login = tmp_path / "me"
    elsewhere = ScanContext.create(home=tmp_path / "copied", env={"HOME": str(login), "XDG_CONFIG_HOME": "/etc/xdg"})
    assert state_db_root(elsewhere, platform="linux").path == Path("/etc/xdg/Cursor/User/globalStorage/state.vscdb")
    same = ScanContext.create(home=login, env={"HOME": str(login), "XDG_CONFIG_HOME": str(login / ".config")})
    root = state_db_root(same, platform="linux")
    assert (root.path.parent.parent.parent.parent, root.source, root.note) == (login / ".config", "XDG_CONFIG_HOME", None)


def test_home_on_a_copied_mac_home_reads_its_own_db_not_this_machines(isolated_home: Path, tmp_path: Path) -> None:
    """``isolated_home`` sets ``XDG_CONFIG_HOME=$HOME/.config``, as a desktop session does."""
    write_transcript(isolated_home, SLUG, A, [user("write the cart")])
    make_state_db(state_db_path(isolated_home), composers=[composer_data(A, name="this machine's title")])
    mac = tmp_path / "mac"
    write_transcript(mac, SLUG, A, [user("write the cart")])
    make_state_db(mac / "Library" / "Application Support" / "Cursor" / "User" / "globalStorage" / "state.vscdb",
                  composers=[composer_data(A, name="the mac's title")])
    listed = cli_json("--home", str(mac), "list")
    assert [row["title"] for row in listed["sessions"]] == ["the mac's title"]
    assert [row["title"] for row in cli_json("list")["sessions"]] == ["this machine's title"]


# -- F11: doctor on the workspace DBs ----------------------------------------------


def _workspace_home(home: Path) -> None:
    write_transcript(home, SLUG, A, [user("hi")])
    make_state_db(state_db_path(home), composers=[composer_data(A, name="n")])
    make_workspace_db(home, "file:///home/me/shop", [{"composerId": A, "name": "n"}, {"composerId": B, "name": "m"}])
    bad = state_db_path(home).parent.parent / "workspaceStorage" / hashlib.md5(b"other").hexdigest() / "state.vscdb"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"garbage" * 100)


def test_doctor_says_how_many_workspace_dbs_it_read(isolated_home: Path) -> None:
    _workspace_home(isolated_home)
    (cursor,) = cli_json("doctor")["providers"]
    storage = state_db_path(isolated_home).parent.parent / "workspaceStorage"
    assert (f"workspace DBs: 1 of 2 read in {storage} (2 composers listed; 1 could not be read, see the warnings)"
            in cursor["findings"])


def test_doctor_says_when_there_is_no_workspace_storage(isolated_home: Path) -> None:
    write_transcript(isolated_home, SLUG, A, [user("hi")])
    (cursor,) = cli_json("doctor")["providers"]
    storage = state_db_path(isolated_home).parent.parent / "workspaceStorage"
    assert f"workspace DBs: none ({storage} does not exist or cannot be listed)" in cursor["findings"]


def test_a_scanner_reads_the_workspace_dbs_once_for_rows_and_doctor(isolated_home: Path) -> None:
    _workspace_home(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["cursor"])
    scanner.list_sessions()
    opened = len(sqlite_ro.OPENED_URIS)
    findings = scanner.providers[0].diagnostics(scanner.ctx)
    assert any(f.startswith("workspace DBs: 1 of 2 read") for f in findings)
    assert len(sqlite_ro.OPENED_URIS) == opened  # memoised: doctor opened none again



def test_a_user_bubble_with_no_text_opens_no_turn(isolated_home: Path) -> None:
    # A user bubble with no text (an image alone) is no prompt, in the transcript or in the
    # bubbles' counts (``composer.user_prompt``): as a turn it left the turns one more than
    # the prompts, and no reply had its model.
    _switched(isolated_home)
    path = state_db_path(isolated_home)
    bubbles = [bubble("u0", 1, ""), bubble("u1", 1, "write the cart"),
               bubble("a1", 2, "cart written", tokens=(1000, 100), model="claude-4.5-sonnet"),
               bubble("u2", 1, "now the checkout"),
               bubble("a2", 2, "checkout written", tokens=(2000, 200), model="gpt-5")]
    path.unlink()
    make_state_db(path, composers=[
        composer_data(A, name="Cart and checkout", model="gpt-5", bubbles=[b["bubbleId"] for b in bubbles])],
        bubbles={A: bubbles})
    assert _responses(A) == [("cart written", "claude-4.5-sonnet"), ("checkout written", "gpt-5")]
