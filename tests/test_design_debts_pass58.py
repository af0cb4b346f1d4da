"""Pass 58's design debts: code written again where a helper was, and knowledge at the wrong depth.

* A Cursor session's fingerprint is made by ``providers.fileidentity`` (it hand-rolled each
  file's part and the digest), its value unchanged (no parser version bump).
* ``Cache.row_fields`` answers one JSON array a path, whatever the number of paths: one path
  gave the bare value (a ``true`` as 1), so Cursor's ``keptrow`` asked a dummy second path.
* Codex's thread index is asked through ``index.thread_index`` (``archived_at`` read
  ``load_index``'s memo key itself).
* "Is a key hash met twice" is one rule (``changedkeys.repeated_at`` / ``repeated_in_order``),
  written four ways before (``sharing.meeting``, ``groupstore.clear``, ``basiskeys``' two).
* The older-parser search is one a provider a scan, the answer for a session given once
  (``lockedusage`` made its own, and a row asked again what the parse had searched).
* ``scan`` asks the providers through their interface (``Provider.running_registry``,
  ``Provider.dates_session``), never a provider's own modules.
"""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path
from typing import Any

import pytest

import agentscan

from cursor_builders import assistant, composer_data, make_state_db, state_db_path, user, write_transcript
from spies import record_calls

SRC = Path(agentscan.__file__).resolve().parent


def test_a_cursor_fingerprint_is_made_by_the_shared_file_identity(isolated_home: Path, only_cursor: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.providers import fileidentity
    from agentscan.scan.scanner import Scanner

    chat = "c5800000-0000-4000-8000-000000000001"
    transcript = write_transcript(isolated_home, "home-dev-app", chat, [user("fix it"), assistant("Fixed.")])
    db = make_state_db(state_db_path(isolated_home), composers=[composer_data(chat, name="fix", created=1)])
    with Scanner() as scanner:
        provider = scanner.provider("cursor")
        (ref,) = provider.discover(scanner.ctx)
        before = provider.fingerprint(ref, scanner.ctx)
        seen = record_calls(monkeypatch, fileidentity, "file_identity", lambda path, stat: str(path))
        monkeypatch.setattr(fileidentity, "file_identity",
                            lambda path, stat, made=fileidentity.file_identity: made(path, stat) + "\0changed")
        after = provider.fingerprint(ref, scanner.ctx)
    assert before is not None and after is not None and after != before  # (the shared rule is the key's)
    assert {str(transcript), str(db)} <= set(seen), seen
    assert Path(transcript).exists()


def test_row_fields_answers_an_array_for_one_path_too(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.scan.cache import Cache

    cache = Cache.open(ScanContext.create(home=tmp_path, env={"AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}))
    assert cache is not None
    try:
        cache.put_row("cursor:a", "cursor", "f1", {"archived": True, "title": "t", "tokens": {"input": 1}})
        cache.put_row("cursor:b", "cursor", "f2", {"title": "only"})
        assert cache.row_fields(["cursor:a", "cursor:b"], ("$.archived",)) == {
            "cursor:a": ("f1", "[true]"), "cursor:b": ("f2", "[null]")}
        assert cache.row_fields(["cursor:a"], ("$.tokens",)) == {"cursor:a": ("f1", '[{"input":1}]')}
        assert cache.row_fields(["cursor:b"], ("$.title",)) == {"cursor:b": ("f2", '["only"]')}
        assert cache.row_fields(["cursor:a"], ("$.archived", "$.title")) == {"cursor:a": ("f1", '[true,"t"]')}
    finally:
        cache.close()
    from agentscan.providers.cursor import keptrow

    assert "$.native_id" not in inspect.getsource(keptrow)  # (no dummy path asked beside the mark)


def test_the_codex_thread_index_is_asked_through_one_accessor(isolated_home: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.codex import diagnose, index
    from test_archived_marks_mendL1_pass53 import ACTIVE, _codex_home

    codex = _codex_home(isolated_home)
    asked = record_calls(monkeypatch, index, "thread_index", lambda ctx: "asked")
    loaded = record_calls(monkeypatch, index, "load_index", lambda ctx, roots, **kw: "loaded")
    ctx = ScanContext(home=isolated_home, env={})
    active = next(path for path in codex.rglob("rollout-*.jsonl") if ACTIVE in path.name)
    assert [index.archived_at(active, ACTIVE, ctx) for _ in range(2)] == [False, False]
    assert diagnose.known_gone("zzzz", ctx) == []
    assert len(asked) == 3 and len(loaded) == 1, (asked, loaded)  # (read once, asked three times)
    assert "_MEMO_KEY" not in inspect.getsource(index.archived_at)


def _packed(*hashes: int) -> bytes:
    from array import array

    return array("Q", hashes).tobytes()


def test_one_rule_tells_a_key_hash_met_twice() -> None:
    from agentscan.scan.changedkeys import repeated_at, repeated_in_order
    from agentscan.scan.sharing import meeting

    assert repeated_at([]) == (None, set())
    assert repeated_at([_packed(1, 2), _packed(3)]) == (None, {1, 2, 3})
    assert repeated_at([_packed(1, 2), _packed(3, 2), _packed(9)])[0] == 1  # (another's)
    assert repeated_at([_packed(1), _packed(4, 4)])[0] == 1  # (twice in one)
    assert repeated_at([_packed(1) + b"\1\2"])[0] is None  # (a cut word is no hash)
    assert repeated_in_order([1, 2, 2, 5]) and not repeated_in_order([1, 2, 5]) and not repeated_in_order([])
    assert meeting({"a": _packed(1, 2), "b": _packed(3), "c": _packed(2)}) == {"a", "c"}
    assert meeting({"a": _packed(1, 2), "b": _packed(3)}) == set()


def test_the_four_askers_use_that_rule() -> None:
    from agentscan.scan import basiskeys, groupstore, sharing

    for function, helper in ((sharing.meeting, "repeated_at("), (groupstore.clear, "repeated_at("),
                             (basiskeys.nothing_shared, "repeated_at("), (basiskeys.key_sections, "repeated_in_order(")):
        source = inspect.getsource(function)
        assert helper in source, function.__qualname__
        assert "len(set(" not in source and "map(eq" not in source, function.__qualname__


class _Versions:
    """A provider whose parser is at version 5, the index's sums kept by version 2 (a fake)."""

    name = "older58"
    parser_version = "5"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def fingerprint(self, ref: Any, ctx: Any, *, version: str | None = None) -> str:
        self.asked.append(version or self.parser_version)
        return f"{ref.id}@{version or self.parser_version}"

    def locked_usage(self, ref: Any, ctx: Any) -> tuple[str, str]:
        return ("/db", "locked")


def test_the_older_parser_search_is_one_a_scan(isolated_home: Path) -> None:
    from agentscan import providers
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef
    from agentscan.scan.lockedusage import kept_under_a_lock, sums_stand_under_a_lock

    provider = _Versions()
    ctx = ScanContext(home=isolated_home, env={})
    ref = SessionRef("older58", "s1", None, 0.0)

    class Scanner:
        def __init__(self) -> None:
            self.ctx = ctx

        def provider(self, name: str) -> Any:
            return provider

    class Cache:
        def get_usage(self, ids: list[str]) -> dict[str, tuple[str, bytes, bytes]]:
            return {ref.id: (f"{ref.id}@2", b"not sums", b"")}

    providers.register(provider)  # type: ignore[arg-type]
    try:
        assert kept_under_a_lock(Scanner(), Cache(), [ref], {ref.id}, False, {}, {}) == set()  # type: ignore[arg-type]
        searched = list(provider.asked)
        assert searched == ["4", "3", "2"], searched
        assert sums_stand_under_a_lock(Scanner(), ref, f"{ref.id}@2")  # type: ignore[arg-type]
    finally:
        providers.unregister("older58")
    assert provider.asked == searched  # (the row's question answered by the parse's search)


def test_scan_asks_no_provider_module_of_its_own() -> None:
    """``scan.liveness`` read Claude Code's registry and ``scan.ambiguity`` Claude's recaps by
    importing them: ``scan`` sits above the providers and asks them through their interface."""
    named = re.compile(r"agentscan\.providers\.(claude|codex|gemini|cursor)\b")
    leaks = [str(path.relative_to(SRC)) for layer in ("scan", "export", "cli") for path in sorted((SRC / layer).rglob("*.py"))
             if named.search(path.read_text(encoding="utf-8"))]
    assert leaks == []


def test_the_running_registries_mirror_each_provider_class() -> None:
    from agentscan.providers import BUILTIN_PROVIDERS, RUNNING_REGISTRIES, get_provider, running_registry

    for name in BUILTIN_PROVIDERS:
        assert running_registry(name) is get_provider(name).running_registry, name
        assert (name in RUNNING_REGISTRIES) is (get_provider(name).running_registry is not None), name
    assert get_provider("claude").dates_session({"type": "system", "subtype": "away_summary"}) is False
    assert get_provider("codex").dates_session({"type": "system", "subtype": "away_summary"}) is True


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="liveness is read from /proc")
def test_liveness_asks_a_registered_providers_registry(tmp_path: Path) -> None:
    from agentscan import providers
    from agentscan.providers.fake import FakeProvider
    from agentscan.scan.liveness import Liveness

    class Registry:
        missing = "its home keeps no fake registry"

        def running(self, transcript: str, pid: int | None, read: dict[str, Any]) -> bool | None:
            read[transcript] = read.get(transcript, 0) + 1
            return {"run.log": True, "gone.log": None}.get(os.path.basename(transcript), False)

    fake = FakeProvider([], name="reg58")
    fake.running_registry = Registry()  # type: ignore[misc]
    providers.register(fake)
    try:
        liveness = Liveness()
        assert liveness.of_files([str(tmp_path / "run.log")]) is True
        assert liveness.of_files([str(tmp_path / "gone.log")]) is None
        assert liveness.of_files([str(tmp_path / "other.log")]) is False
        liveness.unknown = {"reg58": {"reg58:x"}}
        assert liveness.unknown_counts()[0]["reason"] == "its home keeps no fake registry"
    finally:
        providers.unregister("reg58")
