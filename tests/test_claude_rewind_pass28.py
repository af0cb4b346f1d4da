"""``show`` of a Claude session whose prompt was edited lists only the live branch.

Claude Code's "edit previous prompt" (a rewind) writes a new prompt joining the tree
where the replaced one did (its ``parentUuid``) and leaves the replaced prompt, its
replies and calls in the file (formats 1.8).  ``show`` lists the live branch and says
how many messages were rewound; ``list``'s counts and every token sum still include
them (those calls were billed).  A huge transcript holding an edit is read forward
(``hugeshow.may_hold_edits``), so every path gives the same detail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.bounds import Bounds
from agentscan.cli import app
from agentscan.context import ScanContext
from agentscan.providers.claude import provider as claude_provider
from agentscan.providers.claude import hugeshow
from agentscan.providers.claude.hugeshow import may_hold_edits
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_base, claude_session_file, claude_usage, claude_user, cli_json, lay_out_real_claude
from claude_events import taken_back_unknown

S = "cccccccc-1111-4222-8333-444444444444"
LEAF = {"type": "last-prompt", "lastPrompt": "…", "leafUuid": "x", "sessionId": S}


def _ts(n: int) -> str:
    return f"2026-11-01T10:{n // 60:02d}:{n % 60:02d}Z"


def _prompt(n: int, text: str, uuid: str, parent: str | None) -> dict:
    return claude_user(S, _ts(n), text, uuid=uuid, parentUuid=parent)


def _reply(n: int, text: str, uuid: str, parent: str, tools: tuple[str, ...] = ()) -> dict:
    blocks = [{"type": "text", "text": text}]
    blocks += [{"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": f"run {tool}"}} for tool in tools]
    return claude_assistant(S, _ts(n), msg_id=f"m-{uuid}", request_id=f"r-{uuid}", usage=claude_usage(10, 1),
                            blocks=blocks, uuid=uuid, parentUuid=parent)


def _result(n: int, tool: str, uuid: str, parent: str) -> dict:
    return claude_user(S, _ts(n), [{"type": "tool_result", "tool_use_id": tool, "content": "ok"}], uuid=uuid,
                       parentUuid=parent)


def _show(home: Path):
    return Scanner(home=home, provider_names=["claude"]).show(S)


def test_an_edited_prompt_shows_the_live_branch_and_says_what_was_rewound(isolated_home: Path) -> None:
    # u1 -> a1 -> u2 -> a2; u2 edited: u3 joins at a1.  u2 and a2 are rewound (2 messages);
    # list still counts 3 prompts and every call's tokens (3 calls: in 30, out 3).
    claude_session_file(isolated_home, S, [
        _prompt(0, "first", "u1", None), _reply(1, "one", "a1", "u1"),
        _prompt(2, "second", "u2", "a1"), _reply(3, "two", "a2", "u2"),
        _prompt(4, "second, edited", "u3", "a1"), _reply(5, "three", "a3", "u3"),
    ])
    detail = _show(isolated_home)
    assert [p.text for p in detail.prompts] == ["first", "second, edited"]
    assert [r.text for r in detail.responses] == ["one", "three"]
    assert detail.extra["rewound_messages"] == 2 and detail.truncated["prompts"] == 0
    doc = cli_json("show", S)["session"]
    assert doc["rewound_messages"] == 2 and [p["text"] for p in doc["prompts"]] == ["first", "second, edited"]
    (row,) = cli_json("list", "--provider", "claude")["sessions"]
    assert row["counts"]["prompts"] == 3 and row["tokens"]["total"] == 33
    card = CliRunner().invoke(app, ["show", S])
    assert card.exit_code == 0 and "2 messages (their tokens still count)" in card.output
    assert "second\n" not in card.output.replace("second, edited", "")


def test_an_edit_of_the_first_prompt_in_a_transcript_that_records_its_leaf(isolated_home: Path) -> None:
    # Both prompts have no parent; a last-prompt record came before the second: an edit.
    claude_session_file(isolated_home, S, [
        _prompt(0, "first", "u1", None), _reply(1, "one", "a1", "u1"), {**LEAF, "leafUuid": "a1"},
        _prompt(2, "first, edited", "u2", None), _reply(3, "two", "a2", "u2"),
    ])
    detail = _show(isolated_home)
    assert [p.text for p in detail.prompts] == ["first, edited"]
    assert [r.text for r in detail.responses] == ["two"] and detail.extra["rewound_messages"] == 2


def test_chains_restarting_at_no_parent_without_a_recorded_leaf_are_no_edit(isolated_home: Path) -> None:
    # Two chains each starting at null (as a concatenated or synthetic transcript has them), and
    # no last-prompt record: nothing says which is live, so nothing is hidden.
    claude_session_file(isolated_home, S, [
        _prompt(0, "first", "u1", None), _reply(1, "one", "a1", "u1"),
        _prompt(2, "another start", "u2", None), _reply(3, "two", "a2", "u2"),
    ])
    detail = _show(isolated_home)
    assert [p.text for p in detail.prompts] == ["first", "another start"] and detail.extra["rewound_messages"] == 0


def test_two_successive_edits(isolated_home: Path) -> None:
    # u2 edited into u3, then u3 edited into u4 (all join at a1): u2, a2, u3, a3 rewound.
    claude_session_file(isolated_home, S, [
        _prompt(0, "first", "u1", None), _reply(1, "one", "a1", "u1"),
        _prompt(2, "v1", "u2", "a1"), _reply(3, "two", "a2", "u2"),
        _prompt(4, "v2", "u3", "a1"), _reply(5, "three", "a3", "u3"),
        _prompt(6, "v3", "u4", "a1"), _reply(7, "four", "a4", "u4"),
        _prompt(8, "go on", "u5", "a4"), _reply(9, "five", "a5", "u5"),
    ])
    detail = _show(isolated_home)
    assert [p.text for p in detail.prompts] == ["first", "v3", "go on"]
    assert [r.text for r in detail.responses] == ["one", "four", "five"] and detail.extra["rewound_messages"] == 4


def test_an_edit_back_past_a_turn_with_calls_drops_its_calls_and_plan(isolated_home: Path) -> None:
    # u2's turn made calls t1, t2 and a plan; u3 goes back to a1, so they are off the live branch.
    todo = claude_assistant(S, _ts(5), msg_id="m-todo", request_id="r-todo", usage=claude_usage(1, 1), uuid="a2c",
                            parentUuid="r2", blocks=[{"type": "tool_use", "id": "t3", "name": "TodoWrite",
                                                      "input": {"todos": [{"content": "abandoned", "status": "pending"}]}}])
    claude_session_file(isolated_home, S, [
        _prompt(0, "first", "u1", None), _reply(1, "one", "a1", "u1", tools=("t0",)), _result(2, "t0", "r0", "a1"),
        _prompt(3, "second", "u2", "r0"), _reply(4, "two", "a2", "u2", tools=("t1", "t2")), _result(5, "t1", "r1", "a2"),
        _result(5, "t2", "r2", "a2"), todo,
        _prompt(6, "second, edited", "u3", "r0"), _reply(7, "three", "a3", "u3", tools=("t4",)),
    ])
    detail = _show(isolated_home)
    assert [t.call_id for t in detail.tools] == ["t0", "t4"]
    assert [t.status for t in detail.tools] == ["ok", "unknown"]
    assert detail.plan == () and detail.truncated["tools"] == 0
    assert detail.extra["rewound_messages"] == 2
    (row,) = cli_json("list", "--provider", "claude")["sessions"]
    assert row["counts"]["tool_calls"] == 5  # list counts every call made


def test_a_copy_of_a_prompt_and_sidechain_prompts_are_no_edit(isolated_home: Path) -> None:
    # The same uuid twice (a copied record) and a sidechain prompt joining at the same place.
    claude_session_file(isolated_home, S, [
        _prompt(0, "first", "u1", None), _reply(1, "one", "a1", "u1"),
        _prompt(2, "second", "u2", "a1"), _prompt(2, "second", "u2", "a1"),
        {**_prompt(3, "aside", "s1", "a1"), "isSidechain": True}, _reply(4, "two", "a2", "u2"),
    ])
    assert _show(isolated_home).extra["rewound_messages"] == 0


def test_a_compact_boundary_restarting_at_no_parent_is_no_edit(isolated_home: Path) -> None:
    # formats 1.3: compact_boundary has parentUuid null; a prompt of no parent after it is
    # not an edit of the first one, even in a transcript that records its leaf.
    claude_session_file(isolated_home, S, [
        _prompt(0, "before compaction", "u1", None), _reply(1, "one", "a1", "u1"), {**LEAF, "leafUuid": "a1"},
        {**claude_base(S, _ts(2), uuid="b1"), "type": "system", "subtype": "compact_boundary", "parentUuid": None,
         "content": "Conversation compacted", "logicalParentUuid": "a1"},
        claude_user(S, _ts(3), "This session is being continued from a previous conversation.", uuid="c1",
                    parentUuid="b1", isCompactSummary=True),
        _prompt(4, "after compaction", "u2", None), _reply(5, "two", "a2", "u2"),
    ])
    detail = _show(isolated_home)
    assert [p.text for p in detail.prompts] == ["before compaction", "after compaction"]
    assert detail.extra["rewound_messages"] == 0


def test_the_real_samples_show_every_prompt(isolated_home: Path) -> None:
    # No real sample holds an edit: show lists as many prompts as list counts (none hidden).
    lay_out_real_claude(isolated_home)
    scanner = Scanner(home=isolated_home, provider_names=["claude"])
    rows = scanner.list_sessions()
    assert rows
    for row in rows:
        detail = scanner.show(row.native_id)
        assert detail.extra["rewound_messages"] == 0
        if not detail.extra.get("parent_missing"):
            assert len(detail.prompts) + detail.truncated["prompts"] == row.counts.prompts, row.native_id


def _edited_records() -> list[dict]:
    records = [_prompt(0, "first", "u1", None), _reply(1, "one", "a1", "u1", tools=("t0",)), _result(2, "t0", "r0", "a1")]
    records += [_prompt(3, "second", "u2", "r0"), _reply(4, "two", "a2", "u2", tools=("t1",)), _result(5, "t1", "r1", "a2")]
    records += [_prompt(6, "second, edited", "u3", "r0"), _reply(7, "three", "a3", "u3", tools=("t2",))]
    return records


@pytest.mark.parametrize("edited", [True, False])
def test_a_huge_transcript_agrees_with_the_forward_reader(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          edited: bool) -> None:
    # Every transcript is "huge" here: shown from its end unless it holds an edit.
    records = _edited_records() if edited else _edited_records()[:6]
    path = claude_session_file(isolated_home, S, records)
    assert may_hold_edits(path, path.stat().st_size) is edited
    provider = ClaudeProvider()
    bounds = Bounds()
    forward_ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(forward_ctx)
    forward = provider.detail(ref, forward_ctx, bounds)
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    tail_ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(tail_ctx)
    assert provider.shows_from_row(ref, tail_ctx)
    tail = provider.detail_with_row(ref, tail_ctx, bounds, provider.row(ref, tail_ctx))
    assert (tail is None) is edited  # an edit: read forward
    shown = Scanner(home=isolated_home, provider_names=["claude"]).show(S)
    assert shown.to_json()["prompts"] == forward.to_json()["prompts"]
    assert shown.extra["rewound_messages"] == forward.extra["rewound_messages"] == (2 if edited else 0)
    if tail is not None:
        taken_back_unknown(tail, forward)
        assert tail.to_json() == forward.to_json()


def test_the_scan_finds_an_edit_past_its_step_and_ignores_no_parent_chains_without_a_leaf(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orjson

    monkeypatch.setattr(hugeshow, "SCAN_BYTES", 64)  # lines cross every step
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(orjson.dumps(r) + b"\n" for r in _edited_records()))
    assert may_hold_edits(path, path.stat().st_size)
    restarts = [_prompt(0, "a", "u1", None), _reply(1, "one", "a1", "u1"), _prompt(2, "b", "u2", None)]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in restarts))
    assert not may_hold_edits(path, path.stat().st_size)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [*restarts[:2], LEAF, restarts[2]]))
    assert may_hold_edits(path, path.stat().st_size)


def test_a_transcript_past_the_scan_limit_is_shown_from_its_end(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``EDITS_SCAN_MAX_BYTES`` the scan is not paid (a first ``show`` of a GB would
    more than double): the tail reader answers, abandoned branch included, as before."""
    path = claude_session_file(isolated_home, S, _edited_records())
    monkeypatch.setattr(claude_provider, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(hugeshow, "EDITS_SCAN_MAX_BYTES", path.stat().st_size - 1)
    provider = ClaudeProvider()
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(ctx)
    tail = provider.detail_with_row(ref, ctx, Bounds(), provider.row(ref, ctx))
    assert tail is not None and tail.extra["rewound_messages"] == 0
    monkeypatch.setattr(hugeshow, "EDITS_SCAN_MAX_BYTES", path.stat().st_size)
    ctx = ScanContext.create(home=isolated_home, env={})
    [ref] = provider.discover(ctx)
    assert provider.detail_with_row(ref, ctx, Bounds(), provider.row(ref, ctx)) is None  # scanned: read forward
