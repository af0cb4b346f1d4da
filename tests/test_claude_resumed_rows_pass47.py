"""A resumed Claude session's row counts its own calls, as ``tokens`` does (pass 47).

``claude --resume`` copies the first session's records, with their ``sessionId``, to the
start of the new transcript.  ``tokens`` counts each copied call once, in the first
session; ``list``, ``show`` and ``export`` counted it in both rows, so the resumed row
said it spent what the first one did as well, and a sum over rows (a SQLite export's
``sessions``) counted it twice and disagreed with the same file's ``token_days``.  With the
first session gone, the copies are counted in the resumed row: nothing is lost.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

A, B, C = (f"{n * 8}-0000-4000-8000-000000000047" for n in "abc")


def _own(session: str, day: int, n: int, used: int, model: str = "claude-sonnet-4-5-20250929") -> list[dict]:
    return [claude_user(session, f"2026-05-0{day}T10:00:00.000Z", f"step {day}", uuid=f"u{n}"),
            claude_assistant(session, f"2026-05-0{day}T10:00:05.000Z", msg_id=f"m{n}", request_id=f"r{n}",
                             usage=claude_usage(used, 10), parentUuid=f"u{n}", uuid=f"a{n}", model=model)]


def _resumed_pair(home: Path) -> None:
    first = _own(A, 1, 1, 1000)
    claude_session_file(home, A, first)
    claude_session_file(home, B, [*first, *_own(B, 2, 2, 2000)])


def _rows(*args: str) -> dict[str, tuple[int, float]]:
    listed = orjson.loads(invoke(*args, "list", "--json").stdout)["sessions"]
    return {row["id"]: (row["tokens"]["total"], row["cost_usd"]) for row in listed}


def _tokens() -> dict[str, tuple[int, float]]:
    rows = orjson.loads(invoke("tokens", "--json").stdout)["rows"]
    return {row["key"]: (row["tokens"]["total"], row["cost_usd"]) for row in rows}


@pytest.mark.parametrize("cache", [(), ("--no-cache",)])
def test_list_and_show_of_a_resumed_session_give_its_row_in_tokens(isolated_home: Path, cache: tuple[str, ...]) -> None:
    _resumed_pair(isolated_home)
    every = _tokens()
    assert every[f"claude:{A}"][0] == 1010 and every[f"claude:{B}"][0] == 2010
    for _ in range(2):  # cold, then warm (a remembered page)
        assert _rows(*cache) == every
        shown = orjson.loads(invoke(*cache, "show", B, "--json").stdout)["session"]
        assert (shown["tokens"]["total"], shown["cost_usd"]) == every[f"claude:{B}"]
        assert shown["resumed_from"] == f"claude:{A}" and shown["resumed_counted_there"] is True
    text = " ".join(invoke(*cache, "show", B).stdout.split())
    assert "tokens 2010 total" in text and "not listed here; their calls count in the sessions that made them" in text


def test_a_resumed_session_whose_first_is_gone_keeps_its_copies_in_its_row(isolated_home: Path) -> None:
    _resumed_pair(isolated_home)
    assert _rows()[f"claude:{B}"][0] == 2010
    next((isolated_home / ".claude" / "projects").rglob(f"{A}.jsonl")).unlink()
    assert _rows() == _tokens() and _rows()[f"claude:{B}"][0] == 3020
    shown = orjson.loads(invoke("show", B, "--json").stdout)["session"]
    assert shown["tokens"]["total"] == 3020 and shown["resumed_counted_there"] is False
    # (its copies are listed now: the only copy of that conversation left, ``resumedshow``)
    assert "whose transcript is not found: its records, copied at the start of this transcript, are listed below" in " ".join(
        invoke("show", B).stdout.split())


def test_a_chain_of_resumes_lists_each_copy_once(isolated_home: Path) -> None:
    # C resumed from B resumed from A: C holds A's and B's records, each with its own id
    first, second, third = _own(A, 1, 1, 100), _own(B, 2, 2, 200), _own(C, 3, 3, 400)
    claude_session_file(isolated_home, A, first)
    claude_session_file(isolated_home, B, [*first, *second])
    claude_session_file(isolated_home, C, [*first, *second, *third])
    every = _tokens()
    assert {key: total for key, (total, _) in every.items()} == {f"claude:{A}": 110, f"claude:{B}": 210, f"claude:{C}": 410}
    assert _rows() == every
    next((isolated_home / ".claude" / "projects").rglob(f"{A}.jsonl")).unlink()
    assert _rows() == _tokens()
    assert sum(total for total, _ in _rows().values()) == 110 + 210 + 410


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "sqlite"])
def test_an_export_counts_a_copied_call_once_over_its_sessions(isolated_home: Path, tmp_path: Path, fmt: str) -> None:
    _resumed_pair(isolated_home)
    every = _tokens()
    if fmt == "sqlite":
        out = tmp_path / "index.db"
        invoke("export", "--format", fmt, "-o", str(out))
        with sqlite3.connect(out) as db:
            sessions = dict(db.execute("select id, tokens_total from sessions"))
            days = dict(db.execute("select session_id, sum(tokens_total) from token_days group by session_id"))
        assert sessions == days == {key: total for key, (total, _) in every.items()}
        return
    written = invoke("export", "--format", fmt).stdout
    if fmt == "jsonl":
        rows = [orjson.loads(line) for line in written.splitlines()]
        assert {row["id"]: (row["tokens"]["total"], row["cost_usd"]) for row in rows} == every
    else:
        import csv
        import io

        rows = list(csv.DictReader(io.StringIO(written)))
        assert {row["id"]: int(row["tokens_total"]) for row in rows} == {key: total for key, (total, _) in every.items()}


def test_a_chain_whose_first_is_gone_says_its_calls_count_in_the_session_resumed(isolated_home: Path) -> None:
    # (review of pass 47: C was credited through B, and said the calls counted in A, not found;
    # pass 48: C names B, the session it was resumed from, which holds A's copies too)
    first, second, third = _own(A, 1, 1, 100), _own(B, 2, 2, 200), _own(C, 3, 3, 400)
    claude_session_file(isolated_home, B, [*first, *second])
    claude_session_file(isolated_home, C, [*first, *second, *third])
    shown = orjson.loads(invoke("show", C, "--json").stdout)["session"]
    assert shown["resumed_from"] == f"claude:{B}" and shown["resumed_counted_there"] is True
    assert (shown["tokens"]["total"], shown["cost_usd"]) == _tokens()[f"claude:{C}"] and shown["tokens"]["total"] == 410
    assert _tokens()[f"claude:{B}"][0] == 110 + 210
    assert "not listed here; their calls count in the sessions that made them" in " ".join(invoke("show", C).stdout.split())


def test_a_resumed_session_whose_first_line_is_longer_than_the_head_is_credited(isolated_home: Path) -> None:
    # (review of pass 47: a first prompt of 100 KB hid the first session's id from the 64 KiB
    # head, so ``list`` counted the copies again where ``tokens`` did not)
    first = _own(A, 1, 1, 1000)
    first[0]["message"]["content"] = "paste: " + "x" * 100_000
    claude_session_file(isolated_home, A, first)
    claude_session_file(isolated_home, B, [*first, *_own(B, 2, 2, 2000)])
    every = _tokens()
    assert every[f"claude:{B}"][0] == 2010
    assert _rows() == every
    shown = orjson.loads(invoke("show", B, "--json").stdout)["session"]
    assert shown["resumed_from"] == f"claude:{A}" and shown["counts"]["prompts"] == 1


def test_a_summary_line_before_a_long_copied_prompt_still_makes_a_resumed_session(isolated_home: Path) -> None:
    # (review of pass 47: a head of a whole summary line and a cut copied prompt named no session)
    copied = [claude_user(A, "2026-05-01T10:00:00.000Z", "A's first prompt " + "x" * 70_000, uuid="ua1", cwd="/a"),
              claude_assistant(A, "2026-05-01T10:00:05.000Z", msg_id="ma1", request_id="ra1",
                               usage=claude_usage(1000, 5), uuid="aa1", cwd="/a")]
    claude_session_file(isolated_home, A, copied)
    claude_session_file(isolated_home, B, [{"type": "summary", "summary": "Earlier work", "leafUuid": "aa1"}, *copied,
                                           claude_user(B, "2026-05-02T10:00:00.000Z", "B's own", uuid="ub1", cwd="/b"),
                                           claude_assistant(B, "2026-05-02T10:00:05.000Z", msg_id="mb1", request_id="rb1",
                                                            usage=claude_usage(10, 5), uuid="ab1", cwd="/b")])
    table = next(line for line in invoke("tokens", "--since", "2026-01-01").stdout.splitlines() if B in line)
    row = next(r for r in orjson.loads(invoke("list", "--json").stdout)["sessions"] if r["id"] == f"claude:{B}")
    assert orjson.loads(invoke("show", B, "--json").stdout)["session"].get("resumed_from") == f"claude:{A}"
    assert row["tokens"]["total"] == 15  # was 1020: the copied call counted again
    assert row["cwd"] == "/b" and " /b " in table  # the table said /b, the row /a


def test_a_resumed_row_names_its_first_session_and_no_head_is_read_again_to_credit_it(
        isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (review of pass 47: ``with_costs`` read every Claude head again to find the resumed rows,
    # 10,000 reads for a cold ``export`` at scale 10; the row's pass names the session now)
    from agentscan.providers.claude import discovery, headfields, resumedfiles
    from spies import record_calls

    _resumed_pair(isolated_home)
    other = "dddddddd-0000-4000-8000-000000000047"
    claude_session_file(isolated_home, other, _own(other, 3, 9, 500), project="-home-dev-other")
    invoke("list", "--json")  # the rows and their heads, kept
    rows = {row["id"]: row for row in orjson.loads(invoke("list", "--all", "--json").stdout)["sessions"]}
    assert rows[f"claude:{B}"]["resumed_from"] == f"claude:{A}" and "resumed_from" not in rows[f"claude:{A}"]
    # (the name discovery reads heads by, and the one ``header_cwd`` calls in its own module)
    heads = record_calls(monkeypatch, discovery, "header_field", lambda *args, **kwargs: args[0])
    heads_in_place = record_calls(monkeypatch, headfields, "header_field", lambda *args, **kwargs: args[0])
    heads_resumed = record_calls(monkeypatch, resumedfiles, "header_field", lambda *args, **kwargs: args[0])
    exported = [orjson.loads(line) for line in invoke("export", "--format", "jsonl").stdout.splitlines()]
    assert {row["id"]: row.get("resumed_from") for row in exported} == {
        f"claude:{A}": None, f"claude:{B}": f"claude:{A}", f"claude:{other}": None}
    assert not [path for path in heads + heads_in_place + heads_resumed if other in str(path)]  # a session no resume names: its head not asked
