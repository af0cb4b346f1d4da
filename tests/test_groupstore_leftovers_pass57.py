"""Grouped store leftovers (pass 57): an entry of no sums is replaced once the session has sums
at the same fingerprint; a patch that gave up and the whole report's ``keep`` decode the store
once; a basis is kept in one transaction; the taken-out ``OPAQUE`` check is ``changes``' alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.scan import answerpatch, groupbasis, groupstore
from agentscan.scan.cache import Cache
from patch_builders import BASE, IDS, append, session, sessions, turn
from spies import record_calls, record_results
from test_groupstore_pass56 import DAY, assert_as_whole, tokens


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from agentscan.scan import grouppatch

    return record_results(monkeypatch, grouppatch, "patched_report",
                          lambda report: "whole" if report is None else "patched")


def _sharing_pair(home: Path) -> tuple[Path, Path]:
    """``IDS[0]`` and a copier ``IDS[1]`` whose reply is ``IDS[0]``'s (both read call by call), and ``IDS[2]``."""
    first = session(home, IDS[0], 1, 100)
    copier = session(home, IDS[1], 2, 200)
    append(copier, turn(IDS[1], 0, 100, copied_from=IDS[0])[1:], BASE + 300)
    session(home, IDS[2], 3, 300)
    return first, copier


def test_an_entry_of_no_sums_is_replaced_when_the_session_has_sums(isolated_home: Path, ways: list[str]) -> None:
    """The copier gone, ``IDS[0]`` (same fingerprint) is added up from its sums: the store holds
    them now, so a patch that takes it out when it grows is made, not given up every time."""
    first, copier = _sharing_pair(isolated_home)
    tokens(*DAY)
    copier.unlink()
    assert_as_whole(ways, DAY, "whole")  # the copier taken out was read call by call
    append(first, turn(IDS[0], 4, 70), BASE + 3600)
    assert_as_whole(ways, DAY)  # was "whole": the store kept IDS[0]'s entry of no sums


def test_a_patch_given_up_and_the_whole_report_decode_the_store_once(isolated_home: Path, ways: list[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A new session that copies another's call: the patch loads the store, finds the shared
    call (``groupstore.clear``) and gives up; the whole report keeps its basis from the same load."""
    sessions(isolated_home, 3)
    tokens(*DAY)
    copier = session(isolated_home, IDS[3], 9, 400)
    append(copier, turn(IDS[3], 0, 100, copied_from=IDS[0])[1:], BASE + 900)
    decoded = record_calls(monkeypatch, groupstore, "_part", lambda scanner, slot: slot)
    assert_as_whole(ways, DAY, "whole")
    assert decoded.count(groupstore.SLOT) == 1  # was 2: the patch's load, then ``keep``'s (--no-cache: no index)


def test_a_grouped_basis_is_kept_in_one_transaction(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions(isolated_home, 3)
    inside: list[bool] = []
    commits: list[bool] = []
    real = groupbasis.keep

    def keep(*args: object, **kwargs: object) -> None:
        inside.append(True)
        try:
            real(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            inside.pop()

    monkeypatch.setattr(groupbasis, "keep", keep)
    record_calls(monkeypatch, Cache, "commit", lambda cache: commits.append(bool(inside)))
    tokens(*DAY)
    assert commits.count(True) == 1  # was 2: the basis, then the pruning of older ones


def test_a_taken_out_session_read_call_by_call_is_changes_to_refuse(isolated_home: Path, ways: list[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """One place for both patches: ``changes`` gives ``None`` when a session it takes out is ``OPAQUE``."""
    _, copier = _sharing_pair(isolated_home)
    tokens(*DAY)
    copier.unlink()
    found = record_results(monkeypatch, answerpatch, "changes")
    from agentscan.scan import grouppatch

    monkeypatch.setattr(grouppatch, "changes", answerpatch.changes)
    assert_as_whole(ways, DAY, "whole")
    assert found and found[0] is None
