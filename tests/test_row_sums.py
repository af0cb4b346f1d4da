"""A row's cost from its own pass's sums (``providers/claude/rowsums.py``): a cold ``list``
reads each shown session once, and every cost it prints is the one ``tokens`` prints for
the session, cached or not, also when the pass's window overflowed (then the sums are
read again, as before) or the kept sums are damaged."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.claude import windowed
from agentscan.providers.claude.provider import ClaudeProvider
from builders import (
    claude_parses,
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    forget_remembered_answers,
)

runner = CliRunner()
MODELS = ["claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001"]


def run(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def _session(home: Path, number: int, calls: list[tuple[int, int, int, bool]]) -> str:
    """Calls as (message number, tokens, model, a subagent's); a message number used twice
    is a streamed copy of one call."""
    native = f"{number:08x}-0000-4000-8000-000000000000"
    records: list[dict] = [claude_user(native, "2026-11-01T09:00:00Z", f"task {number}")]
    sub: list[dict] = []
    for index, (message, tokens, model, in_subagent) in enumerate(calls):
        record = claude_assistant(native, f"2026-11-01T{9 + index // 60:02d}:{index % 60:02d}:30Z",
                                  msg_id=f"msg-{number}-{message}", request_id=f"req-{number}-{message}",
                                  usage=claude_usage(tokens, tokens // 3 + 1, cache_read=tokens * 2), model=MODELS[model],
                                  sidechain=in_subagent)
        (sub if in_subagent else records).append(record)
    claude_session_file(home, native, records, mtime=1_790_000_000 + number)
    if sub:
        claude_subagent_file(home, native, "a1b2c3", sub)
    return f"claude:{native}"


def _costs(document: dict, key: str) -> dict:
    return {row[key]: row["cost_usd"] for row in document["sessions" if key == "id" else "rows"]}


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sessions read for their sums (``session_usage``), in order."""
    return claude_parses(monkeypatch)


CALLS = st.lists(st.tuples(st.integers(0, 6), st.integers(1, 90_000), st.integers(0, 2), st.booleans()),
                 min_size=1, max_size=14)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sessions=st.lists(CALLS, min_size=1, max_size=4))
def test_a_lists_costs_are_tokens_costs(isolated_home: Path, parses: list[str], sessions: list) -> None:
    cache = Path(os.environ["AGENTSCAN_CACHE_DIR"])
    for path in [*cache.glob("*"), *(isolated_home / ".claude").rglob("*.jsonl")]:
        path.unlink()
    ids = [_session(isolated_home, number, calls) for number, calls in enumerate(sessions)]
    parses.clear()
    cold = _costs(run("list"), "id")
    assert parses == []  # each shown session read once, for its row
    assert _costs(run("list"), "id") == cold and parses == []
    tokens = _costs(run("tokens"), "key")
    assert set(cold) == set(ids) and cold == {key: tokens[key] for key in cold}
    assert cold == _costs(run("list", "--no-cache"), "id")


def test_a_window_that_overflowed_reads_the_sums_again(isolated_home: Path, parses: list[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windowed, "WINDOW", 3)
    calls = [(message % 5, 1000 * (message + 1), message % 3, False) for message in range(12)]
    key = _session(isolated_home, 1, calls)
    cold = _costs(run("list"), "id")
    assert parses == [key.partition(":")[2]]  # not exact: its sums come from a pass of their own
    assert cold == {key: _costs(run("tokens", "--no-cache"), "key")[key]}


def test_damaged_kept_sums_are_read_again(isolated_home: Path, parses: list[str]) -> None:
    key = _session(isolated_home, 2, [(0, 5000, 0, False), (1, 7000, 1, True), (1, 7000, 1, True)])
    cold = _costs(run("list"), "id")
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        changed = connection.execute("UPDATE files SET state = substr(state, 1, 8) || x'00' || substr(state, 10) "
                                     "WHERE kind = 'claude-row-sums'").rowcount
    assert changed == 1 and parses == []
    forget_remembered_answers()  # the page itself is unchanged: it would be printed again
    # (Pass 51: the row's pass kept the session's usage row too, the sums ``tokens`` reads:
    # priced from those, the session is not read again.)
    assert _costs(run("list"), "id") == cold
    assert parses == []
    with sqlite3.connect(database) as connection:
        connection.execute("DELETE FROM usage")  # the damaged kept sums alone: read again
        connection.execute("DELETE FROM snapshots")  # (and the sums remembered from that row)
    forget_remembered_answers()
    assert _costs(run("list"), "id") == cold
    assert parses == [key.partition(":")[2]]


@pytest.mark.parametrize("whole_table", [False, True], ids=["chunked", "whole table"])
@pytest.mark.parametrize("damaged", [False, True])
def test_rows_read_their_kept_sums_together(isolated_home: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch,
                                            damaged: bool, whole_table: bool) -> None:
    """A list's rows read their kept sums together (``Provider.prefetch_row_sums``, through
    ``Cache.get_files``: 500 a query, or one pass past ``WHOLE_TABLE_ABOVE``), not one query a
    session: the costs of reading them one at a time, a damaged one still read again."""
    from agentscan.providers.base import Provider
    from agentscan.scan import filekeyed
    from agentscan.scan.cache import Cache

    ids = [_session(isolated_home, number, [(0, 4000 + number, number % 3, False), (1, 900, 0, number % 2 == 1)])
           for number in range(1, 6)]
    with monkeypatch.context() as one_at_a_time:
        one_at_a_time.setattr(ClaudeProvider, "prefetch_row_sums", Provider.prefetch_row_sums)
        alone = _costs(run("list", "--all"), "id")
    assert set(alone) == set(ids) and parses == []
    if damaged:
        database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
        with sqlite3.connect(database) as connection:
            connection.execute("UPDATE files SET state = substr(state, 1, 8) || x'00' || substr(state, 10) "
                               "WHERE kind = 'claude-row-sums' AND path LIKE '%00000003-%'")
            # (Pass 51: and the usage row its pass kept, else its cost is priced from that.)
            connection.execute("DELETE FROM usage WHERE session_id LIKE '%00000003-%'")
    asked: list[str] = []
    real = Cache.get_file

    def get_file(self: Cache, path: str, kind: str):  # noqa: ANN202
        asked.append(kind)
        return real(self, path, kind)

    monkeypatch.setattr(Cache, "get_file", get_file)
    forget_remembered_answers()  # the page is made again: its rows read their kept sums
    if whole_table:
        monkeypatch.setattr(filekeyed, "WHOLE_TABLE_ABOVE", 0)  # (``get_files`` is kept by path)
    assert _costs(run("list", "--all"), "id") == alone
    assert asked.count("claude-row-sums") == (1 if damaged else 0)  # the damaged one asked again, alone
    assert parses == ([ids[2].partition(":")[2]] if damaged else [])
