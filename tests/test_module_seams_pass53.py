"""Modules stay readable (pass 53): each under ~400 lines, the project's rule.

Three modules stood at the limit and were split along a seam, moving whole functions:
``providers.base`` (the contract) gave its cache keys' makers to ``providers.fileidentity``,
``toolkit.detail`` (the collector) its subagent pool to ``toolkit.subagenttalk``, and
``hooks.status`` (the whole report) the judging of one config file to ``hooks.configreport``.
The old import paths the providers use still work.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import agentscan

LIMIT = 400


def test_no_module_passes_400_lines() -> None:
    package = Path(agentscan.__file__).parent
    long = {str(path.relative_to(package)): n for path in package.rglob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT}
    assert not long, long


def test_the_cache_keys_are_made_where_they_were_imported_from(tmp_path: Path) -> None:
    from agentscan.context import ScanContext
    from agentscan.providers import base, fileidentity

    assert base.file_identity is fileidentity.file_identity and base.files_identity is fileidentity.files_identity
    path = tmp_path / "a.jsonl"
    path.write_text("{}\n")
    ctx = ScanContext.create(home=tmp_path, env={})
    key = base.files_identity(ctx, [str(path)], ["claude", "2"])
    assert key is not None and len(key) == 32
    assert base.files_identity(ctx, [str(tmp_path / "gone")]) is None
    assert base.file_identity(path, os.stat(path)).startswith(f"{path}\0")


def test_the_subagent_pool_is_handed_out_as_before() -> None:
    from agentscan.bounds import Bounds
    from agentscan.detailmodel import SubagentInfo
    from agentscan.model import SessionRow
    from agentscan.toolkit.detail import DetailCollector
    from agentscan.toolkit.subagenttalk import SubagentTalk

    collector = DetailCollector(Bounds())
    assert isinstance(collector._talk, SubagentTalk)
    when = datetime(2026, 12, 1, tzinfo=timezone.utc)
    collector.child().add_subagent_prompt("run-1", "explore the repo", when)
    collector.add_subagent_response("run-1", "found it", when)
    collector.add_subagent_prompt("run-9", "no subagent listed for this one", when)
    row = SessionRow(provider="fake", native_id="s1", path="/x")
    detail = collector.build(row, subagents=(SubagentInfo(id="run-1", agent_type=None, path=None, tokens=None),))
    (sub,) = detail.subagents
    assert [p.text for p in sub.prompts] == ["explore the repo"] and [r.text for r in sub.responses] == ["found it"]
    assert detail.truncated["subagent_prompts"] == 1 and detail.truncated["subagent_responses"] == 0


def test_one_config_is_judged_where_the_status_reads_it(tmp_path: Path) -> None:
    from agentscan.hooks import configreport, status

    assert status.config_report is configreport.config_report
    missing = configreport.config_report("claude", "user", tmp_path / "settings.json")
    assert missing == configreport.empty_report("claude", "user", str(tmp_path / "settings.json"))
    (tmp_path / "settings.json").write_text('{"disableAllHooks": true}')
    judged = configreport.config_report("claude", "user", tmp_path / "settings.json", home=tmp_path, env={})
    assert judged["exists"] and judged["events"] == 0 and configreport.DISABLE_ALL in judged["problem"]
