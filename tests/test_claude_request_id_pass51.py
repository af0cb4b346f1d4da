"""A Claude call whose copies only partly carry ``requestId`` counts once (pass 51).

A gateway (ccusage #976) strips ``requestId`` from some records: the copies of one call
were keyed ``(message.id, req)`` and ``(message.id, None)`` and counted twice.  Rule 3 of
docs/providers/claude.md: a copy without ``requestId`` is the call its message was made
in when that message has exactly one ``requestId`` among the copies; in every view
(``tokens``, ``list``, ``show``), across a resumed session's copies, warm or cold, and
whatever the order of the records or files.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke

S = "bbbbbbbb-1111-4000-8000-0000000005a1"
FIRST = "e9f146fa-0000-4000-8000-00000000a051"
RESUMED = "b162b1ae-0000-4000-8000-00000000a051"


def _mixed(first_has_request: bool) -> list[dict]:
    one, two = ("req_M", None) if first_has_request else (None, "req_M")
    return [
        claude_user(S, "2026-11-02T10:00:00Z", "mixed request ids"),
        claude_assistant(S, "2026-11-02T10:00:01Z", msg_id="msg_M", request_id=one, usage=claude_usage(10, 5, 100, 1000)),
        claude_assistant(S, "2026-11-02T10:00:02Z", msg_id="msg_M", request_id=two, usage=claude_usage(10, 90, 100, 1000)),
    ]


@pytest.mark.parametrize("first_has_request", [True, False])
def test_every_view_counts_a_partly_requested_call_once(isolated_home: Path, first_has_request: bool) -> None:
    claude_session_file(isolated_home, S, _mixed(first_has_request))
    for _ in range(2):  # cold, then warm
        (row,) = cli_json("tokens", "--all")["rows"]
        assert row["tokens"]["total"] == 1200
        (listed,) = cli_json("list", "--all")["sessions"]
        assert listed["tokens"]["total"] == 1200 and listed["cost_usd"] == row["cost_usd"]
        assert cli_json("show", S)["session"]["tokens"]["total"] == 1200


def test_two_requests_keep_a_copy_without_one_apart(isolated_home: Path) -> None:
    # Which of two calls a copy without ``requestId`` is a copy of is not known: it counts once apart.
    claude_session_file(isolated_home, S, [
        claude_user(S, "2026-11-02T10:00:00Z", "two requests"),
        claude_assistant(S, "2026-11-02T10:00:01Z", msg_id="msg_M", request_id="r1", usage=claude_usage(1, 1)),
        claude_assistant(S, "2026-11-02T10:00:02Z", msg_id="msg_M", request_id="r2", usage=claude_usage(2, 2)),
        claude_assistant(S, "2026-11-02T10:00:03Z", msg_id="msg_M", request_id=None, usage=claude_usage(4, 4)),
        claude_assistant(S, "2026-11-02T10:00:04Z", msg_id="msg_M", request_id=None, usage=claude_usage(4, 4)),
    ])
    assert cli_json("tokens", "--all")["total"]["total"] == 2 + 4 + 8
    assert cli_json("list", "--all")["sessions"][0]["tokens"]["total"] == 2 + 4 + 8


def _copied(session: str, request_id: str | None, output: int) -> list[dict]:
    return [claude_user(session, "2026-05-01T10:00:00.000Z", "fix the build", uuid="u1"),
            claude_assistant(session, "2026-05-01T10:00:05.000Z", msg_id="m1", request_id=request_id,
                             usage=claude_usage(100, output), parentUuid="u1", uuid="a1")]


@pytest.mark.parametrize("own_request, copy_request", [("r1", None), (None, "r1"), ("r1", "r1")])
def test_a_resumed_copy_without_request_id_is_the_first_sessions_call(isolated_home: Path, own_request: str | None,
                                                                       copy_request: str | None) -> None:
    claude_session_file(isolated_home, FIRST, _copied(FIRST, own_request, 10))
    claude_session_file(isolated_home, RESUMED, [
        *_copied(FIRST, copy_request, 10),
        claude_user(RESUMED, "2026-05-02T09:00:00.000Z", "and now the tests", uuid="u2", parentUuid="a1"),
        claude_assistant(RESUMED, "2026-05-02T09:00:05.000Z", msg_id="m2", request_id="r2",
                         usage=claude_usage(200, 20), parentUuid="u2", uuid="a2")])
    for _ in range(2):  # cold, then warm: the index's key hashes say the two share the call
        report = cli_json("tokens", "--all")
        assert {row["key"]: row["tokens"]["total"] for row in report["rows"]} == {
            f"claude:{FIRST}": 110, f"claude:{RESUMED}": 220}
        assert report["total"]["total"] == 330
        assert cli_json("tokens", RESUMED, FIRST)["total"]["total"] == 330
        assert cli_json("tokens", "--by", "day", "--since", "2026-01-01")["total"]["total"] == 330
        assert [cli_json("show", sid)["session"]["tokens"]["total"] for sid in (FIRST, RESUMED)] == [110, 220]
    for args in ((), ("--days",)):
        exported = invoke("export", "--format", "jsonl", *args)
        assert exported.exit_code == 0, exported.output
        assert sum(orjson.loads(line)["tokens"]["total"] for line in exported.stdout.splitlines()) == 330, args


def test_a_pair_leaving_the_window_settles_once() -> None:
    """``WindowedTotals`` (a huge transcript's row): a pair of copies with and without
    ``requestId`` pushed out of the window counts its better copy, and a later copy under
    either key counts nothing."""
    from agentscan.providers.claude.dedupe import CallDeduper
    from agentscan.providers.claude.usage import C_CACHE_READ, C_CACHE_WRITE, C_INPUT, C_OUTPUT, call_of
    from agentscan.providers.claude.windowed import WindowedTotals

    records = []
    for i in range(6):
        records.append(claude_assistant(S, f"2026-11-01T10:00:{i:02d}Z", msg_id=f"m{i}", request_id=f"r{i}", usage=claude_usage(1, i)))
        records.append(claude_assistant(S, f"2026-11-01T10:01:{i:02d}Z", msg_id=f"m{i}", request_id=None, usage=claude_usage(1, 10 * i)))
    records.append(claude_assistant(S, "2026-11-01T11:00:00Z", msg_id="m0", request_id=None, usage=claude_usage(1, 0)))
    records.append(claude_assistant(S, "2026-11-01T11:00:01Z", msg_id="m1", request_id="r1", usage=claude_usage(1, 0)))
    calls = [call_of(r, None, i) for i, r in enumerate(records)]
    windowed, exact = WindowedTotals(window=3), CallDeduper()
    for call in calls:
        windowed.add(call)
    exact.add_all(calls)
    exact_total = sum(c[C_INPUT] + c[C_CACHE_READ] + c[C_CACHE_WRITE] + c[C_OUTPUT] for c in exact.winners())
    assert windowed.total().total == exact_total == 6 + 10 * sum(range(6))
