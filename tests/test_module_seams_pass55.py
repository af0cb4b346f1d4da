"""Six modules stood at the ~400-line limit (pass 55) and were split along a seam, moving
whole functions and classes; each now has room to grow:

* ``providers.base``: the questions only ``doctor`` asks went to ``providers.doctorquestions``,
  those of what a scan could not read to ``providers.unreadquestions`` (``Provider`` inherits
  both), and the default of ``own_folders`` to ``providers.agentfolders``;
* ``providers.codex.callscan``: the call and copy-end tuples to ``codex.callevent``, the two
  odd-count warnings to ``codex.countwarnings``;
* ``scan.cache``: the tables kept by a file's path (``files``, ``facts``) to ``scan.filekeyed``;
* ``providers.claude.records``: the queued prompts to ``claude.queuedprompts``, the no-reply
  records to ``claude.errorrecords``;
* ``cli.state``: the checks of an option's value to ``cli.optionvalues``;
* ``providers.claude.discovery``: the reading of a transcript's head to ``claude.headfields``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import agentscan

ROOM = 360
SPLIT = ("providers/base.py", "providers/codex/callscan.py", "scan/cache.py", "providers/claude/records.py",
         "cli/state.py", "providers/claude/discovery.py")


@pytest.mark.parametrize("module", SPLIT)
def test_the_modules_at_the_limit_have_room(module: str) -> None:
    lines = len((Path(agentscan.__file__).parent / module).read_text(encoding="utf-8").splitlines())
    assert lines <= ROOM, (module, lines)


def test_the_questions_moved_out_are_every_providers(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers import iter_providers
    from agentscan.providers.base import Provider
    from agentscan.providers.doctorquestions import DoctorQuestions
    from agentscan.providers.unreadquestions import UnreadQuestions

    assert issubclass(Provider, DoctorQuestions) and issubclass(Provider, UnreadQuestions)
    ctx = ScanContext.create(home=tmp_path, env={})
    gemini = next(provider for provider in iter_providers() if provider.name == "gemini")
    assert gemini.database_problem(tmp_path, ctx) is None and gemini.database_caveat(tmp_path, ctx) is None
    assert gemini.unread_stores(ctx) == []


def test_own_folders_default_is_the_one_rule(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers import iter_providers
    from agentscan.providers.base import Provider

    ctx = ScanContext.create(home=tmp_path, env={})
    for provider in iter_providers():
        # (``own_folders`` is ``default_own_folders``: comparing the two could not fail.)  No
        # provider has its own, and the rule holds: each root, and the folder holding it.
        assert type(provider).own_folders is Provider.own_folders, provider.name
        folders = provider.own_folders(ctx)
        roots = [root.path for root in provider.roots(ctx)]
        assert roots and all(root in folders and root.parent in folders for root in roots), (provider.name, folders)
        assert tmp_path not in folders
    codex = next(provider for provider in iter_providers() if provider.name == "codex")
    assert [path.relative_to(tmp_path).as_posix() for path in codex.own_folders(ctx)] == [
        ".codex/sessions", ".codex", ".codex/archived_sessions", ".codex/state_*.sqlite"]
    # never the home, nor above what an env var names
    assert tmp_path not in codex.own_folders(ScanContext.create(home=tmp_path, env={"CODEX_HOME": str(tmp_path)}))
    gemini = next(provider for provider in iter_providers() if provider.name == "gemini")
    named = gemini.own_folders(ScanContext.create(home=tmp_path, env={"GEMINI_DATA_DIR": str(tmp_path / "d" / "tmp")}))
    assert tmp_path / "d" / "tmp" in named and tmp_path / "d" not in named


def test_the_count_warnings_read_the_scanners_tallies() -> None:
    from agentscan.providers.codex.callevent import CopyEnd, UsageEvent
    from agentscan.providers.codex.callscan import FileUsageScanner
    from agentscan.providers.codex.countwarnings import split_warning, total_warning

    scanner = FileUsageScanner()
    assert split_warning(scanner) is None and total_warning(scanner) is None
    scanner.overspent, scanner.jumps = 2, 1
    assert "in 2 calls" in (split_warning(scanner) or "") and "at 1 call" in (total_warning(scanner) or "")
    assert UsageEvent._fields[:4] == ("timestamp_raw", "timestamp", "model", "counters")
    assert CopyEnd._fields == ("baseline", "calls")


def test_file_keyed_tables_are_the_caches(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.scan.cache import Cache
    from agentscan.scan.filekeyed import FileKeyedTables

    assert issubclass(Cache, FileKeyedTables)
    cache = Cache.open(ScanContext.create(home=tmp_path, env={"AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}))
    assert cache is not None
    cache.put_file("/x", "k", 1, 2, "v", "h", 3, b"s")
    cache.put_facts("k", [("/y", "stamp", b"value")])
    assert cache.get_files("k", ["/x"]) == {"/x": (1, 2, "v", "h", 3, b"s")}
    assert sorted(cache.file_keyed()) == [("facts", "/y"), ("files", "/x")]
    cache.forget_files(cache.file_keyed())
    assert cache.file_keyed() == [] and cache.get_facts("k") == {}
    cache.close()


def test_a_queued_prompt_and_the_no_reply_records_are_read_where_they_moved() -> None:
    from agentscan.providers.claude.errorrecords import is_api_error, is_local_reply
    from agentscan.providers.claude.queuedprompts import queued_prompt_text

    queued = {"type": "attachment", "attachment": {"type": "queued_command", "prompt": " also the tests "}}
    assert queued_prompt_text(queued) == "also the tests"
    assert is_local_reply({"type": "assistant", "message": {"model": "<synthetic>"}})
    assert is_api_error({"isApiErrorMessage": True})


def test_option_values_are_checked_where_every_command_asks() -> None:
    from agentscan.cli.optionvalues import provider_names, reject_blank, wanted
    from agentscan.errors import UsageProblem

    assert provider_names(["Claude,codex", "claude"]) == ["claude", "codex"]
    assert wanted("--cwd") == "give a directory, or leave it out" and "2026" in (wanted("--since") or "")
    with pytest.raises(UsageProblem, match="--grep is empty"):
        reject_blank(grep=" ")


def test_a_transcripts_head_field_is_read_where_discovery_asks(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers.claude import discovery
    from agentscan.providers.claude.headfields import header_cwd, header_field

    assert discovery.header_field is header_field
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"summary"}\n{"sessionId":"abc","cwd":"/work"}\n')
    ctx = ScanContext.create(home=tmp_path, env={})
    assert header_field(path, ctx, "sessionId") == "abc" and header_cwd(path, ctx) == "/work"
