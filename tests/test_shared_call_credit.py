"""A call two sessions' files hold (a resumed or forked session copies its parent's) counts
once in ``tokens``: in the session its record names (Claude Code copies a resumed session's
records with their first session's ``sessionId``), else in the session whose first call came
first, then whose id sorts first, whatever sessions were asked for and in whatever order, and
wherever the sessions grow to; the other's row is 0, not "no usage recorded" (``null``)."""

from __future__ import annotations

import os
from itertools import permutations
from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, forget_remembered_answers

PARENT = "aaaa0000-0000-4000-8000-000000000001"
LATER = "0fff0000-0000-4000-8000-000000000002"  # sorts first by id: where it wins, the times decided
OTHER = "5555ffff-0000-4000-8000-000000000003"


def turn(session: str, ts: str, msg: str, tokens: int) -> list[dict]:
    return [claude_user(session, ts, f"ask {msg}"),
            claude_assistant(session, ts, msg_id=msg, request_id=f"req-{msg}", usage=claude_usage(input=tokens, output=1))]


def lay_out(home: Path) -> Path:
    parent = claude_session_file(home, PARENT, [*turn(PARENT, "2026-11-01T10:00:00.000Z", "m1", 100),
                                                *turn(PARENT, "2026-11-01T10:05:00.000Z", "m2", 200)])
    # Began later: a copy of the parent's second call (its time kept), then one of its own.
    claude_session_file(home, LATER, [*turn(LATER, "2026-11-01T10:05:00.000Z", "m2", 200),
                                      *turn(LATER, "2026-11-02T09:00:00.000Z", "m3", 400)])
    claude_session_file(home, OTHER, turn(OTHER, "2026-11-03T08:00:00.000Z", "m9", 50))
    return parent


def totals(*ids: str) -> dict[str, int | None]:
    rows = cli_json("tokens", *ids)["rows"]
    forget_remembered_answers()  # the next run works it out again
    return {row["key"].split(":")[1]: (row["tokens"] or {}).get("total") for row in rows}


def test_a_copied_call_counts_in_the_session_whose_first_call_came_first(isolated_home: Path) -> None:
    lay_out(isolated_home)
    everything = totals()
    assert everything[PARENT] == 302  # m1 and m2
    assert everything[LATER] == 401  # m3 alone: its copy of m2 counts in the parent
    assert everything[OTHER] == 51


def test_the_credit_does_not_depend_on_the_sessions_asked_for_or_their_order(isolated_home: Path) -> None:
    lay_out(isolated_home)
    whole = totals()
    for ids in permutations((PARENT, LATER, OTHER)):
        assert totals(*ids) == whole, ids
    for ids in permutations((PARENT, LATER)):
        assert totals(*ids) == {PARENT: 302, LATER: 401}, ids
    # Asked alone, a session counts every call its files hold.
    assert totals(LATER) == {LATER: 602}
    assert totals(PARENT) == {PARENT: 302}


def test_the_credit_stays_as_the_sessions_grow(isolated_home: Path) -> None:
    # A fork copies the parent's two calls (their times kept), then makes one of its own.
    parent = claude_session_file(isolated_home, PARENT, [*turn(PARENT, "2026-11-01T10:00:00.000Z", "m1", 100),
                                                         *turn(PARENT, "2026-11-01T10:05:00.000Z", "m2", 200)])
    claude_session_file(isolated_home, LATER, [*turn(LATER, "2026-11-01T10:00:00.000Z", "m1", 100),
                                               *turn(LATER, "2026-11-01T10:05:00.000Z", "m2", 200),
                                               *turn(LATER, "2026-11-01T10:30:00.000Z", "f1", 400)])
    before = totals()
    # The parent goes on after the fork's last call: no credit moves, it only adds its own.
    with parent.open("ab") as handle:
        for record in turn(PARENT, "2026-11-05T11:00:00.000Z", "m4", 1000):
            handle.write(orjson.dumps(record) + b"\n")
    os.utime(parent, (1_800_000_000, 1_800_000_000))
    grown = totals()
    assert grown == {PARENT: before[PARENT] + 1001, LATER: before[LATER]}
    assert totals(LATER, PARENT) == grown


def test_copies_that_begin_together_go_to_the_id_that_sorts_first(isolated_home: Path) -> None:
    # A resumed session's copies keep their times: both begin at the parent's first call.
    claude_session_file(isolated_home, PARENT, turn(PARENT, "2026-11-01T10:00:00.000Z", "m1", 100))
    claude_session_file(isolated_home, LATER, [*turn(LATER, "2026-11-01T10:00:00.000Z", "m1", 100),
                                               *turn(LATER, "2026-11-02T09:00:00.000Z", "m3", 400)])
    for ids in ((), (PARENT, LATER), (LATER, PARENT)):
        assert totals(*ids) == {PARENT: 0, LATER: 502}, ids


def test_a_resumed_session_s_copies_count_in_the_session_their_records_name(isolated_home: Path) -> None:
    # As Claude Code resumes: the new file begins with the parent's records, their
    # sessionId (and times) kept; only then its own.  LATER sorts first by id, so
    # copies that begin together went to it, and the parent's row said 0.
    parent_turns = [*turn(PARENT, "2026-11-01T10:00:00.000Z", "m1", 100), *turn(PARENT, "2026-11-01T10:05:00.000Z", "m2", 200)]
    claude_session_file(isolated_home, PARENT, parent_turns)
    claude_session_file(isolated_home, LATER, [*parent_turns, *turn(LATER, "2026-11-02T09:00:00.000Z", "m3", 400)])
    for ids in ((), (PARENT, LATER), (LATER, PARENT)):
        assert totals(*ids) == {PARENT: 302, LATER: 401}, ids
    # With the parent's file gone, the copies are all there is: they count in the resumed session.
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{PARENT}.jsonl").unlink()
    assert totals() == {LATER: 703}


def test_a_real_resumed_transcript_and_its_first_session(isolated_home: Path) -> None:
    """``vibecodingtracker-v1.0.95``: a resumed file whose first 48 lines are session
    e9f146fa's (their ``sessionId``), the rest b162b1ae's own."""
    from builders import REAL

    lines = (REAL / "claude" / "vibecodingtracker-v1.0.95.trimmed.jsonl").read_bytes().splitlines(keepends=True)
    first, resumed = "e9f146fa-3b20-48d0-9be4-d99ca901cae4", "b162b1ae-97bc-475f-9b5f-ffbf55ca5b3f"
    assert all(orjson.loads(line)["sessionId"] == first for line in lines[:48])
    project = isolated_home / ".claude" / "projects" / "-home-wei-repo-claude-code"
    project.mkdir(parents=True)
    (project / f"{first}.jsonl").write_bytes(b"".join(lines[:48]))
    (project / f"{resumed}.jsonl").write_bytes(b"".join(lines))
    alone = {session: totals(session)[session] for session in (first, resumed)}
    everything = totals()
    assert everything[first] == alone[first] > 0  # its own calls, asked for alone or with the rest
    # The copies are its first session's, asked for alone too (pass 46: its head names that session)
    assert everything[resumed] == alone[resumed] < alone[first]
    # ``show`` gives each its row in ``tokens`` (pass 47: the copies count in the first session)
    shown = {session: cli_json("show", session)["session"]["tokens"]["total"] for session in (first, resumed)}
    assert shown == everything


def test_a_session_whose_every_call_counts_elsewhere_spent_0_not_null(isolated_home: Path) -> None:
    claude_session_file(isolated_home, PARENT, turn(PARENT, "2026-11-01T10:00:00.000Z", "m1", 100))
    copy = "bbbb0000-0000-4000-8000-000000000004"
    claude_session_file(isolated_home, copy, turn(copy, "2026-11-01T10:00:00.000Z", "m1", 100))
    # A session with no usage recorded at all is still null.
    claude_session_file(isolated_home, OTHER, [claude_user(OTHER, "2026-11-03T08:00:00.000Z", "hello")])
    for ids in ((), (copy, PARENT), (PARENT, copy)):
        document_totals = totals(*ids)
        # Same times: the id decides, and the copy sorts after the parent.
        assert document_totals[PARENT] == 101 and document_totals[copy] == 0, ids
        if not ids:
            assert document_totals[OTHER] is None
    rows = {row["key"].split(":")[1]: row for row in cli_json("tokens")["rows"]}
    assert rows[copy]["cost_usd"] == 0 and rows[copy]["tokens"]["input"] == 0


def test_an_export_of_some_sessions_credits_shared_calls_as_a_whole_export_does(isolated_home: Path, tmp_path: Path) -> None:
    import sqlite3

    from typer.testing import CliRunner

    from agentscan.cli import app

    first, fork = "0aaa0000-0000-4000-8000-000000000001", "ffff0000-0000-4000-8000-000000000002"
    claude_session_file(isolated_home, first, [*turn(first, "2026-11-01T10:00:00.000Z", "m1", 100),
                                               *turn(first, "2026-11-01T10:05:00.000Z", "m2", 200)], mtime=1_790_000_000)
    # A fork: the two calls copied (their times kept), then one of its own days later.
    claude_session_file(isolated_home, fork, [*turn(fork, "2026-11-01T10:00:00.000Z", "m1", 100),
                                              *turn(fork, "2026-11-01T10:05:00.000Z", "m2", 200),
                                              *turn(fork, "2026-11-04T09:00:00.000Z", "f1", 400)], mtime=1_800_000_000)
    out = tmp_path / "index.sqlite"
    runner = CliRunner()
    assert runner.invoke(app, ["export", "-f", "sqlite", "-o", str(out)]).exit_code == 0
    # The cron pattern: the sessions updated lately, into the file a whole export wrote.
    since = runner.invoke(app, ["export", "-f", "sqlite", "-o", str(out), "--since", "2026-11-04"])
    assert since.exit_code == 0, since.output
    with sqlite3.connect(out) as connection:
        days = dict(connection.execute("SELECT session_id, sum(tokens_total) FROM token_days GROUP BY 1").fetchall())
    assert days == {f"claude:{first}": 302, f"claude:{fork}": 401}
    assert sum(days.values()) == cli_json("tokens")["total"]["total"]


def test_a_chosen_session_whose_key_hashes_are_unknown_meets_every_other() -> None:
    from agentscan.scan.sharing import sharers
    from agentscan.sealing import seal

    sealed = {"a": b"damaged", "b": seal(b"\x01" * 8), "c": seal(b"\x02" * 8)}
    assert sharers(sealed, {"a"}) == {"b", "c"}
    assert sharers({"a": seal(b"\x01" * 8), **{k: v for k, v in sealed.items() if k != "a"}}, {"a"}) == {"b"}


def test_a_part_s_export_that_moves_a_call_rewrites_the_other_session_s_days(isolated_home: Path, tmp_path: Path) -> None:
    import sqlite3

    from typer.testing import CliRunner

    from agentscan.cli import app

    parent, resumed = "bbbb0000-0000-4000-8000-000000000001", "0aaa0000-0000-4000-8000-000000000002"
    claude_session_file(isolated_home, parent, [*turn(parent, "2026-11-01T10:00:00.000Z", "m1", 100),
                                                *turn(parent, "2026-11-01T10:05:00.000Z", "m2", 200)], mtime=1_790_000_000)
    out = tmp_path / "index.sqlite"
    runner = CliRunner()
    assert runner.invoke(app, ["export", "-f", "sqlite", "-o", str(out)]).exit_code == 0
    # Resumed later under an id that sorts first: its copies (their times kept) win the calls.
    claude_session_file(isolated_home, resumed, [*turn(resumed, "2026-11-01T10:00:00.000Z", "m1", 100),
                                                 *turn(resumed, "2026-11-01T10:05:00.000Z", "m2", 200),
                                                 *turn(resumed, "2026-11-05T09:00:00.000Z", "m3", 400)], mtime=1_800_000_000)
    assert runner.invoke(app, ["export", "-f", "sqlite", "-o", str(out), "--since", "2026-11-04"]).exit_code == 0
    with sqlite3.connect(out) as connection:
        days = dict(connection.execute("SELECT session_id, sum(tokens_total) FROM token_days GROUP BY 1").fetchall())
    assert sum(days.values()) == cli_json("tokens")["total"]["total"] == 703
    assert days.get(f"claude:{parent}", 0) == 0


def test_a_damaged_key_blob_in_the_index_still_counts_each_shared_call_once(isolated_home: Path) -> None:
    # The index keeps each session's calls' key hashes; with one session's blob
    # damaged, its partner (whose keys then meet no intact blob) was summed whole
    # and the shared call counted in both, until the index was rebuilt.
    import sqlite3

    from agentscan.scan.cache import FILE_NAME

    lay_out(isolated_home)
    whole = totals()
    assert whole == {PARENT: 302, LATER: 401, OTHER: 51}
    for damaged in (LATER, PARENT):
        with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME) as conn:
            hit = conn.execute("UPDATE usage SET keys = ? WHERE session_id LIKE ?", (b"garbage", f"%{damaged}"))
            assert hit.rowcount == 1
            # what would answer without the key hashes: the remembered sharing and the basis
            conn.execute("DELETE FROM meta WHERE key LIKE 'shared:%'")
            conn.execute("DELETE FROM snapshots WHERE key LIKE 'basis:%'")
        got = totals()
        assert got == whole, damaged


def test_the_provider_s_usage_credits_copies_as_tokens_does(isolated_home: Path) -> None:
    # The library's ``Provider.usage`` deduplicated every session's calls in one pass, breaking
    # ties by the order of the refs given: a copy went to whichever session came first.
    from agentscan.scan.scanner import Scanner

    parent_turns = [*turn(PARENT, "2026-11-01T10:00:00.000Z", "m1", 100), *turn(PARENT, "2026-11-01T10:05:00.000Z", "m2", 200)]
    claude_session_file(isolated_home, PARENT, parent_turns)
    claude_session_file(isolated_home, LATER, [*parent_turns, *turn(LATER, "2026-11-02T09:00:00.000Z", "m3", 400)])
    with Scanner(provider_names=["claude"]) as scanner:
        refs = scanner.refs(["claude"])
        for ordered in (refs, refs[::-1]):
            entries = scanner.provider("claude").usage(ordered, scanner.ctx)
            by_session: dict[str, int] = {}
            for entry in entries:
                by_session[entry.session] = by_session.get(entry.session, 0) + entry.tokens.total
            assert by_session == {PARENT: 302, LATER: 401}, [ref.native_id for ref in ordered]
