"""The one store of every session's sums and key hashes that all grouped bases share
(``scan.groupstore``): written once, rewritten by another grouping's whole report while an
older basis still names the entries it kept, damaged, or pruned, a patched answer is the
whole report's byte for byte, or the report is made whole."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import groupstore, grouppatch
from builders import claude_assistant, claude_session_file, claude_usage
from patch_builders import BASE, IDS, append, session, sessions, turn
from spies import record_results

runner = CliRunner()


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return record_results(monkeypatch, grouppatch, "patched_report",
                          lambda report: "whole" if report is None else "patched")


def tokens(*args: str) -> bytes:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout_bytes + b"\n--stderr--\n" + result.stderr_bytes


def assert_as_whole(ways: list[str], args: list[str], expected: str = "patched") -> None:
    answer = tokens(*args)
    assert ways[-1] == expected, (args, ways)
    assert answer == tokens(*args, "--no-cache"), args


def snapshots() -> dict[str, int]:
    """The index's grouped bases and store, by key: their sizes."""
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        found = dict(connection.execute("SELECT key, length(value) FROM snapshots "
                                        "WHERE key LIKE 'groupbasis:%' OR key LIKE 'groupstore%'"))
    connection.close()
    return found


DAY = ["--by", "day", "--json", "--tz", "UTC"]
MODEL = ["--by", "model", "--json", "--tz", "UTC"]


def test_every_grouped_basis_shares_one_store(isolated_home: Path, ways: list[str]) -> None:
    """Each basis names its sessions; their sums and key hashes are kept once, for all."""
    sessions(isolated_home, 3)
    tokens(*DAY)
    first = snapshots()
    tokens(*MODEL)
    tokens("--by", "week", "--tz", "UTC")
    kept = snapshots()
    assert set(kept) - {"groupstore:delta"} == {"groupstore", "groupbasis:tokens:day", "groupbasis:tokens:model", "groupbasis:tokens-text:week"}
    assert kept["groupstore"] == first["groupstore"]  # nothing changed: not written again


def test_a_store_rewritten_by_another_grouping_still_patches_an_older_basis(isolated_home: Path,
                                                                            ways: list[str]) -> None:
    """``--by model`` made whole after a session grew holds the session's new sums; the basis
    ``--by day`` kept before names its former ones, kept beside them."""
    paths = sessions(isolated_home, 3)
    tokens(*DAY)
    append(paths[0], turn(IDS[0], 4, 70), BASE + 3600)
    assert_as_whole(ways, MODEL, "whole")  # no basis of it yet: the store is rewritten
    assert_as_whole(ways, DAY)
    append(paths[1], turn(IDS[1], 5, 90), BASE + 3700)
    session(isolated_home, IDS[3], 9, 400)
    assert_as_whole(ways, MODEL)
    assert_as_whole(ways, DAY)


def test_entries_no_longer_kept_make_the_report_whole(isolated_home: Path, ways: list[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A store written whole again (no delta: ``MAX_DELTA`` 0) that kept no former entry
    (``KEPT_BEFORE`` 0): the older basis cannot take the session's former part out, and the
    report is made whole, never patched from the new sums."""
    monkeypatch.setattr(groupstore, "KEPT_BEFORE", 0)
    monkeypatch.setattr(groupstore, "MAX_DELTA", 0)
    paths = sessions(isolated_home, 3)
    tokens(*DAY)
    append(paths[0], turn(IDS[0], 4, 70), BASE + 3600)
    assert_as_whole(ways, MODEL, "whole")
    assert_as_whole(ways, DAY, "whole")
    append(paths[2], turn(IDS[2], 6, 50), BASE + 3800)
    assert_as_whole(ways, DAY)  # the whole report's basis patches again


@pytest.mark.parametrize("max_delta", [0, 1, 1024])
def test_a_delta_holds_what_changed_until_the_store_is_written_whole(isolated_home: Path, ways: list[str],
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     max_delta: int) -> None:
    """Another grouping made whole after a change writes the changed sessions' entries alone (the
    base as it was); a delta grown past ``MAX_DELTA`` is folded into a base written whole."""
    monkeypatch.setattr(groupstore, "MAX_DELTA", max_delta)
    paths = sessions(isolated_home, 3)
    tokens(*DAY)
    base = snapshots()["groupstore"]
    append(paths[0], turn(IDS[0], 4, 70), BASE + 3600)
    assert_as_whole(ways, MODEL, "whole")
    assert (snapshots()["groupstore"] == base) == (max_delta > 0)
    assert (snapshots().get("groupstore:delta", 0) > 0) == (max_delta > 0)
    session(isolated_home, IDS[3], 9, 400)
    assert_as_whole(ways, ["--by", "week", "--tz", "UTC"], "whole")  # 2 entries more: past a delta of 1
    assert (snapshots().get("groupstore:delta", 0) > 0) == (max_delta > 1)
    for args in (DAY, MODEL):
        assert_as_whole(ways, args)
    append(paths[1], turn(IDS[1], 5, 90), BASE + 3700)
    for args in (DAY, MODEL, ["--by", "week", "--tz", "UTC"]):
        assert_as_whole(ways, args)
    append(paths[0], turn(IDS[0], 7, 30), BASE + 3800)
    assert_as_whole(ways, MODEL)  # its basis names the entry the first delta held


def test_a_damaged_or_missing_store_makes_the_report_whole(isolated_home: Path, ways: list[str]) -> None:
    paths = sessions(isolated_home, 2)
    tokens(*DAY)
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE snapshots SET value = substr(value, 1, 40) || x'00' || substr(value, 42) "
                           "WHERE key = 'groupstore'")
    connection.close()
    append(paths[0], turn(IDS[0], 4, 70), BASE + 3600)
    assert_as_whole(ways, DAY, "whole")
    append(paths[1], turn(IDS[1], 4, 70), BASE + 3700)
    assert_as_whole(ways, DAY)  # rewritten whole by the whole report
    with sqlite3.connect(database) as connection:
        connection.execute("DELETE FROM snapshots WHERE key LIKE 'groupstore%'")
    connection.close()
    append(paths[0], turn(IDS[0], 5, 70), BASE + 3800)
    assert_as_whole(ways, DAY, "whole")


def test_sessions_read_call_by_call_beside_a_change_are_patched(isolated_home: Path, ways: list[str]) -> None:
    """Two sessions sharing calls (read call by call: their rows are counted from their calls,
    one of them alone) and a third that grows, on another day, of another model: patched."""
    session(isolated_home, IDS[0], 1, 100)
    copier = session(isolated_home, IDS[1], 2, 200)
    append(copier, turn(IDS[1], 0, 100, copied_from=IDS[0])[1:], BASE + 300)
    third = claude_session_file(isolated_home, IDS[2], elsewhere(0), mtime=BASE + 400)
    for args in (DAY, MODEL, ["--by", "provider", "--tz", "UTC"]):
        tokens(*args)
    append(third, elsewhere(1), BASE + 3600)
    for args in (DAY, MODEL, ["--by", "provider", "--tz", "UTC"]):
        assert_as_whole(ways, args)


def elsewhere(n: int) -> list[dict]:
    """A priced reply of ``IDS[2]`` on 5 November 2026, of another model than ``turn``'s."""
    return [claude_assistant(IDS[2], f"2026-11-05T12:0{n}:01Z", msg_id=f"m-e-{n}", request_id=f"r-e-{n}",
                             usage=claude_usage(300 + n, 3), model="claude-opus-4-1-20250805")]


def test_the_last_superseded_entries_are_kept_first(isolated_home: Path, ways: list[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Written whole, the store keeps the newest entries a newer fingerprint superseded before
    older ones (``KEPT_BEFORE``): a session that came and went stood in the delta before the
    entry a kept basis names (review E, pass 56: oldest first, it pushed that entry out)."""
    monkeypatch.setattr(groupstore, "KEPT_BEFORE", 1)
    monkeypatch.setattr(groupstore, "MAX_DELTA", 2)
    paths = sessions(isolated_home, 3)
    tokens(*DAY)  # the base: the three sessions
    gone = session(isolated_home, IDS[3], 9, 400)
    assert_as_whole(ways, MODEL, "whole")  # the delta: the new session
    gone.unlink()
    append(paths[0], turn(IDS[0], 4, 70), BASE + 3600)
    week = ["--by", "week", "--json", "--tz", "UTC"]
    assert_as_whole(ways, week, "whole")  # the delta: the new session, then the grown one
    append(paths[0], turn(IDS[0], 5, 80), BASE + 3700)
    assert_as_whole(ways, ["--by", "provider", "--json"], "whole")  # past the delta: written whole
    assert_as_whole(ways, week)  # its basis names the grown session's entry the delta held last
