"""Every id a table prints opens with ``show`` as printed (review s43).

A Claude inline run's ``↳`` line read ``sidechai``, which ``show`` did not know (it tells
an inline run by its whole ``sidechain-`` stem); every compaction run read ``acompact``,
which names one in every session that had one; and ``list`` cut ``example-session-…``
to ``claude:example-``, which reads as cut off.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from agentscan.scan.short_ids import child_prefixes, short_ids, unique_prefixes
from builders import (
    REAL,
    _first_session_id,
    claude_assistant,
    claude_session_file,
    claude_subagent_file,
    claude_usage,
    claude_user,
    invoke,
    lay_out_real_claude,
)

#: a second session that compacted, as the real one (``258c7280``, ``acompact-fffbd0``) did
OTHER = "7e1f0c2a-5b6d-4e8f-9a0b-1c2d3e4f5a6b"
OTHER_RUN = "acompact-abc123"


def _home(home: Path) -> None:
    lay_out_real_claude(home)
    inline = REAL / "claude" / "agentlogs-inline-sidechain-v2.0.13.jsonl"
    target = home / ".claude" / "projects" / "-fixtures" / f"{_first_session_id(inline)}.jsonl"
    shutil.copyfile(inline, target)
    ts = "2026-03-01T10:00:00Z"
    claude_session_file(home, OTHER, [
        claude_user(OTHER, ts, "tidy the notes"),
        claude_assistant(OTHER, ts, msg_id="msg_o1", request_id="req_o1", usage=claude_usage(10, 5)),
    ])
    claude_subagent_file(home, OTHER, OTHER_RUN, [
        claude_user(OTHER, ts, "Your task is to create a detailed summary", sidechain=True, agentId=OTHER_RUN),
        claude_assistant(OTHER, ts, msg_id="msg_c1", request_id="req_c1", usage=claude_usage(20, 7),
                         sidechain=True, agentId=OTHER_RUN),
    ])


def _printed_runs(out: str) -> list[tuple[str, str]]:
    """``(session's short id, run label)`` of each ``↳`` line of a ``tokens`` table by session."""
    runs, session = [], ""
    for line in out.splitlines():
        if line.startswith("  ↳ "):
            runs.append((session, line.split()[1]))
        elif line and not line.startswith(" ") and ":" in line.split()[0]:
            session = line.split()[0]
    return runs


def test_every_run_label_tokens_prints_opens_that_run(isolated_home: Path, tty) -> None:
    _home(isolated_home)
    tty(200)
    result = invoke("tokens")
    assert result.exit_code == 0, result.output
    runs = _printed_runs(result.stdout)
    labels = [label for _, label in runs]
    # The inline run and both compaction runs are among them, none cut inside its stem.
    assert "sidechain-cd49a45d" in labels and "acompact-fffbd0" in labels and OTHER_RUN in labels
    assert len(runs) >= 5
    for session, label in runs:
        result = invoke("show", "--json", label)
        assert result.exit_code == 0, (label, result.output)
        shown = orjson.loads(result.stdout)["session"]
        assert shown["id"].startswith(session), (label, shown["id"])
        assert shown["focus"]["subagent"].startswith(label), (label, shown["focus"])


def test_the_kind_word_alone_is_ambiguous_and_says_which_runs(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("show", "acompact")
    assert result.exit_code == 1
    assert f"claude:{OTHER} (subagent {OTHER_RUN})" in result.stderr
    assert "claude:258c7280-ae70-4798-800f-63464d01a85d (subagent acompact-fffbd0)" in result.stderr


def test_a_run_label_keeps_its_stem_and_eight_characters_past_it() -> None:
    parent = "609efeca-2f51-4118-b077-e91c9fe63f73"
    runs = ["sidechain-cd49a45d", "acompact-0123456789ab", "a881341", "ae286913c0f1e919c"]
    assert child_prefixes(runs, parent) == {
        "sidechain-cd49a45d": "sidechain-cd49a45d", "acompact-0123456789ab": "acompact-01234567",
        "a881341": "a881341", "ae286913c0f1e919c": "ae286913"}
    # A UUID's first group of hex letters is no stem, nor is a word of hex letters only.
    uuid = "deadbeef-8f00-7000-8000-000000000002"
    assert child_prefixes([uuid, "facade-0123456789"], None) == {uuid: "deadbeef", "facade-0123456789": "facade-0"}


@pytest.mark.parametrize(("ids", "shown"), [
    (["example-session-claude-01"], "example-s"),
    (["example-session-claude-01", "example-session-claude-02"], "example-session-claude-01"),
    (["abcdefg-_.xyz", "zzzzzzzz"], "abcdefg-_.x"),  # past every separator in a row
    (["abcdefg-"], "abcdefg-"),  # an id that ends in one stays whole
    (["abcd_efgh1"], "abcd_efg"),
])
def test_a_short_id_never_ends_in_a_separator(ids: list[str], shown: str) -> None:
    assert unique_prefixes(ids)[ids[0]] == shown
    assert short_ids(("claude", native) for native in ids)[f"claude:{ids[0]}"] == f"claude:{shown}"


def test_list_shows_a_separated_id_whole_enough_to_open(isolated_home: Path, tty) -> None:
    _home(isolated_home)
    tty(200)
    out = invoke("list", "--all").stdout
    assert "claude:example-s " in out and "claude:example- " not in out
    result = invoke("show", "--json", "claude:example-s")
    assert orjson.loads(result.stdout)["session"]["id"] == "claude:example-session-claude-01"
