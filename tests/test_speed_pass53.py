"""Pass 53 (issue 16, a heavy user's warm runs): what each speed change keeps the same, and
the work it no longer does."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_sessions, claude_usage, claude_user, invoke


def one_line(text: str) -> str:
    return " ".join(text.split())


# --- 1. an empty window's "last active" from the kept facts, no Path made ----------------------

def test_an_empty_window_names_the_newest_session_without_making_paths(isolated_home: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm ``tokens --since`` that no call falls in says when the sessions were last active
    (``tokens_table._last_active``) from their facts kept in the index, asked for under the
    sessions' stored paths as text: a stored ref makes no ``Path`` (13,000 of them were a third
    of the run at scale 10)."""
    from agentscan.scan.memorefs import MemoRef

    claude_sessions(isolated_home, 5)
    assert invoke("tokens").exit_code == 0  # the index keeps the refs and the facts
    first = invoke("tokens", "--since", "2031-01-01")
    made: list[str] = []
    real = MemoRef._paths

    def counting(self: MemoRef) -> object:
        made.append(self.id)
        return real(self)

    monkeypatch.setattr(MemoRef, "_paths", counting)
    again = invoke("tokens", "--since", "2031-01-01")
    assert one_line(again.stderr) == one_line(first.stderr)
    assert "none of the 5 sessions made a call in that range; the newest session before that range was last " \
           "active on 2026-11-02" in one_line(again.stderr)
    assert made == []


# --- 2. a window while an agent is at work: the spans of the sessions that did not change ------

def _call(native: str, ts: str, key: str, used: int) -> dict:
    return claude_assistant(native, ts, msg_id=f"msg-{key}", request_id=f"req-{key}", usage=claude_usage(used, 1))


PARENT, RESUMED, OTHER, IDLE = (f"{n:08x}-5555-4000-8000-000000000000" for n in (1, 2, 3, 4))  # days 1 to 4


def _agent_home(home: Path) -> Path:
    """A parent session (1 November), the session resumed from it (its copy of the parent's
    call, then calls of its own on the 5th), another on the 2nd and one on the 3rd; the
    resumed one is the session an agent is at work in: the path it appends to."""
    claude_session_file(home, PARENT, [claude_user(PARENT, "2026-11-01T09:00:00.000Z", "task"),
                                       _call(PARENT, "2026-11-01T09:01:00.000Z", "p1", 100)])
    claude_session_file(home, OTHER, [claude_user(OTHER, "2026-11-02T09:00:00.000Z", "task"),
                                      _call(OTHER, "2026-11-02T09:01:00.000Z", "o1", 300)])
    claude_session_file(home, IDLE, [claude_user(IDLE, "2026-11-03T09:00:00.000Z", "task"),
                                     _call(IDLE, "2026-11-03T09:01:00.000Z", "i1", 400)])
    return claude_session_file(home, RESUMED, [claude_user(RESUMED, "2026-11-05T09:00:00.000Z", "go on"),
                                               _call(RESUMED, "2026-11-01T09:01:00.000Z", "p1", 100),
                                               _call(RESUMED, "2026-11-05T09:01:00.000Z", "r1", 200)])


def _append(path: Path, *records: dict) -> None:
    import orjson

    with path.open("ab") as handle:
        for record in records:
            handle.write(orjson.dumps(record) + b"\n")


def _every_session(since: str, by: str) -> tuple:
    """The report a read of every session's sums gives (no spans taken), and its warnings."""
    from agentscan.scan import windowspans
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokens import token_report

    every = pytest.MonkeyPatch()
    every.setattr(windowspans, "pick", lambda *args: None)
    try:
        with Scanner(use_cache=True) as scanner:
            report = token_report(scanner, since=since, by=by)
            return report.to_json(), report.unrecorded, [(w.path, w.message) for w in scanner.ctx.warnings.items]
    finally:
        every.undo()


@pytest.mark.parametrize("by", ("session", "day", "model"))
@pytest.mark.parametrize("grown", ("its own call", "a copy of another session's call"))
def test_a_window_after_a_session_grew_reads_the_changed_and_those_sharing_with_it(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch, by: str, grown: str) -> None:
    """The census moved (the resumed session grew): the window reads the grown session, and
    every session whose calls meet its calls (its parent, and the other session once the
    grown one copies its call), not the session that shares nothing and has no call in the
    window; its report is the one every session's sums give, warm and after it again."""
    from agentscan.scan.cache import Cache
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokens import token_report
    from spies import record_calls

    path = _agent_home(isolated_home)
    since = "2026-11-04"
    for _ in range(2):  # the second run keeps the spans (the census held still)
        with Scanner(use_cache=True) as scanner:
            token_report(scanner, since=since, by=by)
    more = [_call(RESUMED, "2026-11-05T10:01:00.000Z", "r2", 250)]
    if grown != "its own call":
        more.append(_call(RESUMED, "2026-11-02T09:01:00.000Z", "o1", 300))
    _append(path, *more)
    read: list[list[str]] = []
    for _ in range(2):  # after the growth, then with the same census
        with monkeypatch.context() as spy:
            read = record_calls(spy, Cache, "get_usage", lambda self, ids: list(ids))
            with Scanner(use_cache=True) as scanner:
                report = token_report(scanner, since=since, by=by)
                picked = report.to_json(), report.unrecorded, [(w.path, w.message) for w in scanner.ctx.warnings.items]
        assert picked == _every_session(since, by)
        days = {int(ref_id.split(":")[1][:8], 16) for ids in read for ref_id in ids}
        # The grown one, its parent (they share a call) and, once the grown one copies its
        # call, the other; not the one with no call in the window that shares none.
        assert days == ({1, 2} if grown == "its own call" else {1, 2, 3})
    total = report.total
    assert total is not None and total.input == 450


# --- 3. an export decodes the index's calls with the same checks, a field at a time ------------

def _entries_from_each(data: bytes) -> list | None:
    """``sharing.entries_from`` as it was, an entry at a time: the oracle."""
    from agentscan.model import CACHE_WRITE_1H, KEY, RANK, WEB_SEARCHES
    from agentscan.scan.sessionsums import SUMMED
    from agentscan.sealing import unseal_json

    entries = unseal_json(data)
    if not isinstance(entries, list):
        return None
    for entry in entries:
        if not (isinstance(entry, list) and len(entry) > WEB_SEARCHES
                and all(type(entry[i]) is int for i in (*SUMMED, RANK, CACHE_WRITE_1H, WEB_SEARCHES))
                and isinstance(entry[KEY], (str, type(None)))):
            return None
    return entries


def test_cached_calls_are_taken_or_refused_as_each_entry_s_check_did() -> None:
    import random

    import orjson

    from agentscan.model import WEB_SEARCHES
    from agentscan.scan.sharing import entries_from
    from agentscan.sealing import seal

    rng = random.Random(53)
    width = WEB_SEARCHES + 1
    good = [1, 2, 3, 4, 5, "k", 1.5, "m", None, 7, 8, 9, 10][:width]
    while len(good) < width:
        good.append(0)

    def entry() -> object:
        row: list = [rng.randrange(5) if isinstance(value, int) else value for value in good]
        if rng.random() < 0.08:
            index = rng.randrange(width)
            row[index] = rng.choice([None, "x", 1.0, True, [], 3])
        if rng.random() < 0.03:
            row = row[: rng.randrange(width)]
        if rng.random() < 0.02:
            row.append("origin")
        return row if rng.random() > 0.01 else rng.choice([None, "entry", 5])

    taken = refused = 0
    for _ in range(600):
        entries = [entry() for _ in range(rng.randrange(4))]
        data = seal(orjson.dumps(entries))
        want = _entries_from_each(data)
        assert entries_from(data) == want, entries
        taken, refused = taken + (want is not None), refused + (want is None)
    assert taken > 50 and refused > 50  # both answers were met
    assert entries_from(seal(b"{}")) is None and entries_from(seal(b"[]")) == []

