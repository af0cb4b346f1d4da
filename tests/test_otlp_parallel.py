"""`otlp` of many sessions makes their traces in worker processes: the same bytes, the same warnings."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from gemini_builders import lay_out_real_gemini
from otlp_builders import claude_delegating_session, otlp, ts
from agentscan.otlp import parallel
from agentscan.toolkit import cores, workers

SESSIONS = [f"{n:08x}-1111-4222-8333-444444444444" for n in range(parallel.MIN_SESSIONS + 6)]


def many_sessions(home: Path) -> None:
    for session in SESSIONS:
        claude_delegating_session(home, session)
        _own_calls(home, session)
    # One with a bad line, one whose model has no price: what they say comes back from the workers.
    odd = "feedface-1111-4222-8333-444444444444"
    path = claude_session_file(home, odd, [
        claude_user(odd, ts(0), "an odd one", uuid="o1"),
        claude_assistant(odd, ts(1), msg_id="om1", request_id="or1", usage=claude_usage(input=3, output=4),
                         model="claude-made-up-9", uuid="o2"),
    ])
    with path.open("ab") as handle:
        handle.write(b"not json\n")
    lay_out_real_gemini(home)  # read here, in its turn, between the workers' sessions


def _own_calls(home: Path, session: str) -> None:
    """The builder's message and request ids made the session's own: the same ids in two
    sessions are the same API calls, counted once (``reference/formats.md``)."""
    for path in home.glob(f".claude/projects/*/{session}*"):
        for file in [path] if path.is_file() else path.rglob("*.jsonl"):
            records = [orjson.loads(line) for line in file.read_bytes().splitlines()]
            for record in records:
                if "requestId" in record:
                    record["requestId"] += session[:8]
                    record["message"]["id"] += session[:8]
            file.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))


def export(tmp_path: Path, name: str) -> tuple[bytes, dict]:
    out = tmp_path / name
    result = otlp("--output", str(out), "--json")
    assert result.exit_code == 0, result.output
    document = orjson.loads(result.stdout)
    document.pop("path")
    return out.read_bytes(), document


def test_workers_write_what_one_process_writes(isolated_home: Path, tmp_path: Path, pools: list[int],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    many_sessions(isolated_home)
    together, said = export(tmp_path, "together.jsonl")
    assert pools and max(pools) == len(SESSIONS) + 1  # every Claude session travelled
    assert said["sessions"] > len(SESSIONS) + 1 and said["spans"] > 13 * len(SESSIONS)  # Gemini's too
    messages = [w["message"] for w in said["warnings"]]
    assert any("invalid JSON" in m for m in messages) and any("no price" in m for m in messages)
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "another-cache"))  # cold again
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 0)
    del pools[:]
    alone, said_alone = export(tmp_path, "alone.jsonl")
    assert not pools
    assert together == alone
    assert said == said_alone  # the warnings too, in the same order


def test_a_session_whose_worker_fails_is_made_here(isolated_home: Path, tmp_path: Path, pools: list[int],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    many_sessions(isolated_home)
    expected, _ = export(tmp_path, "expected.jsonl")
    import os

    parent = os.getpid()
    from agentscan.otlp import sources

    real = sources._transcript_session

    def flaky(*args, **kw):  # type: ignore[no-untyped-def]
        if os.getpid() != parent and args[2].native_id == SESSIONS[3]:
            raise RuntimeError("a worker's own trouble")
        return real(*args, **kw)

    monkeypatch.setattr(sources, "_transcript_session", flaky)
    again, _ = export(tmp_path, "again.jsonl")
    assert again == expected


def test_results_waiting_for_their_turn_stay_few() -> None:
    # One slow session must not let the other workers run through the whole export, each
    # result held in memory until its turn.
    import time

    def job(index: int) -> int:
        if index == 0:
            time.sleep(0.5)
        return index

    waiting: dict[int, int] = {}
    results = workers.run_parallel(job, [[i] for i in range(200)], 2, hold=lambda: len(waiting) >= 4)
    most = 0
    try:
        for want in range(200):
            while want not in waiting:
                index, ok, value = next(results)
                assert ok
                waiting[index] = value
                most = max(most, len(waiting))
            assert waiting.pop(want) == want
    finally:
        results.close()
    assert most <= 4 + 2  # the limit, and what the workers had in hand when it was reached


def test_a_worker_s_price_book_knows_the_models_the_index_holds(isolated_home: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.pricing import PriceBook

    class Index:  # the parent's cache: read before the fork, never from a worker
        reads = 0

        def get_prices(self, key: str) -> dict:
            Index.reads += 1
            return {("claude", "claude-x"): {"unpriced": "a test's answer"}}

    parent = PriceBook(ScanContext(home=isolated_home, env={}), Index())  # type: ignore[arg-type]
    make = parent.for_workers()
    assert Index.reads == 1
    book = make(ScanContext(home=isolated_home, env={}))
    assert book.cache is None and book.data == parent.data
    assert book._cached_docs() == {("claude", "claude-x"): {"unpriced": "a test's answer"}}
    assert Index.reads == 1  # the worker read nothing of the index
