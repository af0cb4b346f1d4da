"""``tokens --by agent``: a recorded kind named as one of its own rows (``main``, ``unknown``)
is a row of its own; the kinds kept in the index hold only while a Claude run's ``.meta.json``
sidecar is as it was; a Cursor composer only the IDE's database holds has its kinds kept too."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan import Scanner, token_report
from agentscan.providers.cursor.provider import CursorProvider
from agentscan.scan import tokenagents
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke
from cursor_builders import bubble, composer_data, cursor_only, make_state_db, state_db_path

S1 = "a9e00000-0000-4000-8000-000000000001"


def _call(second: int, tokens: int, agent: str | None = None) -> dict:
    extra = {"agentId": agent} if agent else {}
    return claude_assistant(S1, f"2026-08-01T10:00:{second:02d}.000Z", msg_id=f"m-{second}", request_id=f"r-{second}",
                            usage=claude_usage(input=tokens, output=0), uuid=f"u-{second}", sidechain=agent is not None,
                            **extra)


def _totals(home: Path) -> dict[str, int]:
    with Scanner(home=str(home), use_cache=True) as scanner:
        return {row.key: row.tokens.total for row in token_report(scanner, by="agent").rows}


def test_a_kind_recorded_as_main_or_unknown_is_a_row_of_its_own(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S1, [claude_user(S1, "2026-08-01T10:00:00.000Z", "go"), _call(1, 1)])
    claude_subagent_file(isolated_home, S1, "amain", [_call(2, 20, "amain")], meta={"agentType": "main"})
    claude_subagent_file(isolated_home, S1, "aunknown", [_call(3, 300, "aunknown")], meta={"agentType": "unknown"})
    claude_subagent_file(isolated_home, S1, "aquoted", [_call(4, 4_000, "aquoted")], meta={"agentType": '"main"'})
    claude_subagent_file(isolated_home, S1, "anone", [_call(5, 50_000, "anone")])
    assert _totals(isolated_home) == {"main": 1, '"main"': 20, '"unknown"': 300, '"\\"main\\""': 4_000,
                                      "unknown": 50_000}
    table = invoke("tokens", "--by", "agent")
    assert table.exit_code == 0
    assert [line.split()[0] for line in table.stdout.splitlines()[1:] if not line.startswith(" ")][:2] == [
        "unknown", '"\\"main\\""']


def test_a_row_key_is_quoted_only_when_it_must_be() -> None:
    kinds = {"s": {"a": "Explore", "b": "main", "c": "Main", "d": ""}}
    # (``Main`` too, pass 56: one kind a row whatever its case, so never beside ``main`` unquoted)
    assert [tokenagents.row_of(kinds, "s", run) for run in (None, "a", "b", "c", "d", "e")] == [
        "main", "Explore", '"main"', '"Main"', "unknown", "unknown"]
    assert tokenagents.row_of({"s": {"a": 'say "hi"'}}, "s", "a") == 'say "hi"'  # no quote first: as recorded
    assert tokenagents.row_of({"s": {"a": '"x'}}, "s", "a") == '"\\"x"'


def test_a_sidecar_written_after_its_transcript_is_read(isolated_home: Path) -> None:
    claude_session_file(isolated_home, S1, [claude_user(S1, "2026-08-01T10:00:00.000Z", "go"), _call(1, 1)])
    transcript = claude_subagent_file(isolated_home, S1, "alate", [_call(2, 20, "alate")])
    assert _totals(isolated_home) == {"main": 1, "unknown": 20}  # kept: the run is of no known kind
    sidecar = transcript.with_name("agent-alate.meta.json")
    sidecar.write_bytes(orjson.dumps({"agentType": "Explore"}))
    assert _totals(isolated_home) == {"main": 1, "Explore": 20}
    sidecar.write_bytes(orjson.dumps({"agentType": "Plan"}))  # changed in place, its directory as it was
    os.utime(sidecar, ns=(1_790_000_000_000_000_000, 1_790_000_000_000_000_000))
    assert _totals(isolated_home) == {"main": 1, "Plan": 20}


def test_kinds_kept_stay_kept_while_the_sidecars_are_as_they_were(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    claude_session_file(isolated_home, S1, [claude_user(S1, "2026-08-01T10:00:00.000Z", "go"), _call(1, 1)])
    claude_subagent_file(isolated_home, S1, "aexp", [_call(2, 20, "aexp")], meta={"agentType": "Explore"})
    assert _totals(isolated_home) == {"main": 1, "Explore": 20}
    from agentscan.providers.claude.provider import ClaudeProvider

    def unread(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("the kinds were read again for files that did not change")

    monkeypatch.setattr(ClaudeProvider, "subagent_types", unread)
    assert _totals(isolated_home) == {"main": 1, "Explore": 20}


P, C = "ffff0000-0000-4000-8000-000000000001", "ffff0000-0000-4000-8000-000000000002"
T0 = 1_790_000_000_000


def test_a_composer_only_the_ide_holds_has_its_kinds_kept(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cursor_only(monkeypatch)
    composers = [composer_data(cid, name=cid[-2:], created=T0, updated=T0 + 10, fs_path="/home/me/app",
                               bubbles=["u", "a"], **links)
                 for cid, links in ((P, {}), (C, {"subagentInfo": {"parentComposerId": P}}))]
    spent = {P: 1, C: 20}
    make_state_db(state_db_path(isolated_home), composers=composers, bubbles={
        cid: [bubble("u", 1, "task", created="2026-09-21T12:00:00Z"),
              bubble("a", 2, "done", created="2026-09-21T12:00:01Z", tokens=(tokens, 0), model="claude-4.5-sonnet")]
        for cid, tokens in spent.items()})
    with Scanner(home=str(isolated_home)) as scanner:
        assert scanner.resolve(P).path is None  # no file of its own
    assert _totals(isolated_home) == {"main": 1, "unknown": 20}
    asked: list[str] = []
    read = CursorProvider.subagent_types

    def counted(self, ref, ctx, runs):  # noqa: ANN001, ANN202
        asked.append(ref.id)
        return read(self, ref, ctx, runs)

    monkeypatch.setattr(CursorProvider, "subagent_types", counted)
    assert _totals(isolated_home) == {"main": 1, "unknown": 20}
    assert asked == []
