"""A warm ``list`` reads only each provider's most recent stored rows (``memo.TOP``, ``TopRefs``).

Whatever reads more (``--all``, ``tokens``, ``show`` of an old session, a
table's short ids beyond them) reads the rest first: every answer is a
fresh run's, which the tests compare.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.model import SessionRef
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan import memo
from agentscan.scan.mergedrefs import MergedRefs
from agentscan.scan.memorefs import MemoRefs, TopRefs
from agentscan.scan.listing import ListFilter
from agentscan.timeutil import from_epoch
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()


def native(number: int) -> str:
    # Ids that share a long prefix in pairs, one recent, one old (of 12: n and n + 6): a recent
    # one's shown id must look past what it shares with an old one.
    return f"{number % 6:08x}-{number // 6}111-4222-8333-444444444444"


def session(home: Path, number: int) -> Path:
    session_id = native(number)
    records = [
        claude_user(session_id, f"2026-10-{1 + number % 28:02d}T10:00:00Z", f"prompt {number}"),
        claude_assistant(session_id, f"2026-10-{1 + number % 28:02d}T10:00:05Z", msg_id=f"m{number}",
                         request_id=f"r{number}", usage=claude_usage(10 + number, 3)),
    ]
    return claude_session_file(home, session_id, records, mtime=1_790_000_000 + number * 3_600)


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Providers whose stored rows were read beyond the top ones."""
    read: list[str] = []
    original = memo.DiscoveryMemo._whole

    def spying(self: memo.DiscoveryMemo, *args, **kwargs) -> MemoRefs:  # noqa: ANN002, ANN003
        read.append(self._provider.name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(memo.DiscoveryMemo, "_whole", spying)
    monkeypatch.setattr(memo, "TOP", 4)
    return read


def test_a_warm_list_reads_the_top_rows_alone(isolated_home: Path, whole_reads: list[str]) -> None:
    for number in range(12):
        session(isolated_home, number)
    fresh = run("list", "-n", "3", "--no-cache")
    assert run("list", "-n", "3") == fresh  # the first run stores the discovery
    whole_reads.clear()
    assert run("list", "-n", "3") == fresh
    assert run("list", "-n", "3", "--json") == run("list", "-n", "3", "--json", "--no-cache")
    assert whole_reads == []
    # More than the top rows: read whole, and the same answers as a fresh run.
    assert run("list", "--all") == run("list", "--all", "--no-cache")
    assert whole_reads == ["claude"]
    assert run("tokens", "--json") == run("tokens", "--json", "--no-cache")
    assert run("show", native(0)[:10]) == run("show", native(0)[:10], "--no-cache")


def test_short_ids_of_the_top_rows_are_those_of_every_id(isolated_home: Path, whole_reads: list[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli.state import State

    for number in range(12):
        session(isolated_home, number)
    run("list")
    with State().scanner(memo=True) as scanner:
        refs = scanner.refs()
        top_ids = [refs[index].id for index in range(4)]
        shown = scanner.short_ids(top_ids)
        assert whole_reads == []
        assert shown == {session_id: scanner.short_ids()[session_id] for session_id in top_ids}
    assert whole_reads == ["claude"]  # every id: read whole
    # Each pair shares its first 9 characters: a shown id takes one more.
    assert sorted(len(value.partition(":")[2]) for value in shown.values()) == [10] * 4


def test_a_damaged_whole_discovery_is_discovered_again(isolated_home: Path, whole_reads: list[str]) -> None:
    for number in range(10):
        session(isolated_home, number)
    run("list")
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        changed = connection.execute("UPDATE snapshots SET value = substr(value, 1, 40) || x'00' || substr(value, 42) "
                                     "WHERE key = 'discovery:claude'").rowcount
    assert changed == 1
    assert run("list", "-n", "2") == run("list", "-n", "2", "--no-cache")
    assert run("list", "--all") == run("list", "--all", "--no-cache")
    assert whole_reads == ["claude"]
    # Discovered again, and stored again: the next run reads it whole from the index.
    discoveries: list[str] = []
    real_discover = ClaudeProvider.discover

    def counting(self: ClaudeProvider, ctx: ScanContext) -> list:
        discoveries.append(self.name)
        return real_discover(self, ctx)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ClaudeProvider, "discover", counting)
        assert run("list", "--all") == run("list", "--all", "--no-cache")
    assert discoveries == ["claude"]  # the --no-cache run's alone


def _top_of(provider: str, rows: list[list], top: int) -> TopRefs:
    entries = [list(row) for row in rows]
    original = memo.TOP
    memo.TOP = top
    try:
        tops = [tuple(item) for item in memo._top_of(entries)]
    finally:
        memo.TOP = original
    whole = MemoRefs.checked(provider, entries)
    assert whole is not None
    return TopRefs(provider, tops, len(entries), False, lambda: whole)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 12), min_size=1, max_size=3), top=st.integers(0, 5),
       recencies=st.lists(st.integers(0, 4), min_size=40, max_size=40), real=st.integers(0, 4), wanted=st.integers(0, 40))
def test_the_head_decided_by_top_rows_is_the_stable_sort(sizes: list[int], top: int, recencies: list[int],
                                                       real: int, wanted: int) -> None:
    parts_rows = []
    taken = 0
    for number, size in enumerate(sizes):
        rows = [[f"p{number}-{index}", None, float(recencies[(taken + index) % 40]), [], [], f"f{index}"]
                for index in range(size)]
        taken += size
        parts_rows.append((f"provider{number}", rows))
    plain: list = [MemoRefs.checked(name, [list(row) for row in rows]) for name, rows in parts_rows]
    lazy: list = [_top_of(name, rows, top) for name, rows in parts_rows]
    extra = [SessionRef("codex", f"r{index}", None, float(recencies[index])) for index in range(real)]
    expected = [ref.id for ref in MergedRefs([*plain, extra])]
    merged = MergedRefs([*lazy, extra])
    assert len(merged) == len(expected)
    head = min(wanted, len(expected))
    assert [merged[index].id for index in range(head)] == expected[:head]
    assert [ref.id for ref in merged] == expected  # past the head: read whole, the same order


@pytest.mark.parametrize("change", ["a session added", "a session removed", "a session touched"])
def test_the_whole_stored_meanwhile_by_another_run(isolated_home: Path, whole_reads: list[str], change: str) -> None:
    """Another run (a hook, a second terminal) may store a newer discovery between this one's
    top rows and its reading the rest: the stored rows of this census are gone, and the
    provider is discovered again. The rows already decided stay; the rest follow, each once."""
    from agentscan.cli.state import State

    paths = [session(isolated_home, number) for number in range(12)]
    run("list")
    with State().scanner(memo=True) as scanner:
        head = [row.id for row in scanner.list_page(limit=3).rows]
        assert whole_reads == []
        if change == "a session added":
            session(isolated_home, 40)
        elif change == "a session removed":
            paths[1].unlink()  # not one of the 4 top rows
        else:
            os.utime(paths[0], (1_790_000_000 + 100 * 3_600,) * 2)  # the oldest now the newest
        run("list")  # stores the discovery of the new census
        # Told apart by ``--since`` within the rows decided: the rest is read as it is counted.
        since = scanner.list_page(limit=None, filters=ListFilter(since=from_epoch(1_790_000_000 + 9 * 3_600 + 1_000)))
        page = scanner.list_page(limit=None)
    assert whole_reads == ["claude"]
    assert since.discovered == page.discovered and len(since.rows) == 2
    ids = [row.id for row in page.rows]
    fresh = [row["id"] for row in orjson.loads(run("list", "--all", "--json", "--no-cache"))["sessions"]]
    assert sorted(ids) == sorted(fresh)  # each session once: none lost, none twice
    assert page.discovered == len(fresh)
    assert set(head) <= set(ids)


def test_every_answer_past_the_top_rows_is_a_fresh_runs(isolated_home: Path, whole_reads: list[str],
                                                        tty, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """On a terminal (shown ids), with recencies tied within and across providers: what reads
    past the top rows (more rows, one provider, filters, an old session) answers as a fresh run."""
    from codex_builders import lay_out_real_codex
    from gemini_builders import lay_out_real_gemini

    tty(200)
    for number in range(14):
        moment = 1_790_000_000 + (number // 3) * 3_600  # ties in threes
        os.utime(session(isolated_home, number), (moment, moment))
    for path in lay_out_real_codex(isolated_home).values():
        os.utime(path, (1_790_000_000 + 2 * 3_600,) * 2)
    for path in lay_out_real_gemini(isolated_home).rglob("*.json"):
        os.utime(path, (1_790_000_000 + 4 * 3_600,) * 2)
    commands = [["list"], ["list", "-n", "3"], ["list", "-n", "7"], ["list", "-n", "200"], ["list", "--all"],
                ["list", "--provider", "claude", "-n", "2"], ["list", "--provider", "codex"],
                ["list", "--since", "2026-10-20"], ["list", "--grep", "prompt 1"], ["list", "--cwd", "/home/dev"],
                ["show", native(0)[:10]], ["show", "claude:" + native(7)[:10]], ["tokens"],
                ["export", "--format", "jsonl", "--output", "-"]]
    fresh = [run(*argv, "--no-cache") for argv in commands]
    run("list")  # stores the discovery
    whole_reads.clear()
    assert run("list", "-n", "3") == fresh[1]
    assert whole_reads == []  # the shown ids came with the top rows
    assert [run(*argv) for argv in commands] == fresh
    assert "claude" in whole_reads


def test_sessions_in_order_are_the_sequences_or_none_once_reordered() -> None:
    rows = [[f"s{index}", None, float(index), [], [], f"f{index}"] for index in range(10)]
    merged = MergedRefs([_top_of("claude", rows, 3)])
    assert merged.sessions(lambda ref: None) == [(ref.id, ref.fingerprint) for ref in merged]  # type: ignore[attr-defined]
    # The rest discovered again meanwhile (another run stored a newer discovery), with a newer session:
    newer = [*rows, ["s-new", None, 99.0, [], [], "f-new"]]
    top = _top_of("claude", rows, 3)
    top._load_whole = lambda: MemoRefs.checked("claude", newer)  # type: ignore[assignment,method-assign,return-value]
    reordered = MergedRefs([top])
    assert [reordered[index].id for index in range(3)] == ["claude:s9", "claude:s8", "claude:s7"]
    assert reordered.sessions(lambda ref: None) is None
    assert reordered.reordered and sorted(ref.id for ref in reordered) == sorted(f"claude:{row[0]}" for row in newer)
