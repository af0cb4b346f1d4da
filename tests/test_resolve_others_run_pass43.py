"""A prefix that begins one session and another session's subagent is ambiguous: the
subagent's label ``tokens`` prints is unique among its session's runs only, and a UUIDv7's
first digits are its minute, so another session started then may begin the same (pass 43)."""

from __future__ import annotations

from pathlib import Path

from builders import invoke
from codex_builders import at, meta, rollout_path, task_started, token_count, turn_context, usage, user_message
from codex_builders import write_rollout

PARENT = "019c7777-0000-7000-8000-00000000000a"
CHILD = "019c7777-8f00-7000-8000-0000000000c1"
OTHER = "019c7777-8f00-7000-8000-0000000000b2"  # another session, begun in the run's minute


def _rollout(codex: Path, thread: str, start: float, *, parent: str | None = None) -> None:
    write_rollout(rollout_path(codex, thread, at(start)), [
        meta(thread, at(start), spawn_parent=parent, agent_role="explorer" if parent else None),
        task_started(at(start + 1)), turn_context(at(start + 1)), user_message(at(start + 1), f"task of {thread}"),
        token_count(at(start + 2), usage(100, 0, 10), usage(100, 0, 10))])


def test_a_prefix_of_a_session_and_of_another_session_s_run_is_ambiguous(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _rollout(codex, PARENT, 0)
    _rollout(codex, CHILD, 20, parent=PARENT)
    _rollout(codex, OTHER, 30)
    result = invoke("show", "019c7777-8f00")
    assert result.exit_code == 1, result.output
    assert f"codex:{OTHER}" in result.stderr and f"codex:{PARENT} (subagent {CHILD})" in result.stderr
    # Each whole id still opens its own.
    assert invoke("show", OTHER).exit_code == 0 and invoke("show", CHILD).exit_code == 0


def test_a_session_s_own_run_does_not_make_its_short_id_ambiguous(isolated_home: Path) -> None:
    codex = isolated_home / ".codex"
    _rollout(codex, PARENT, 0)
    _rollout(codex, CHILD, 20, parent=PARENT)  # begins with the parent's short id, 019c7777
    opened = invoke("show", "019c7777", "--json")
    assert opened.exit_code == 0, opened.output
    assert f'"id": "codex:{PARENT}"' in opened.stdout or f'"id":"codex:{PARENT}"' in opened.stdout


def test_a_session_s_short_id_opens_it_though_another_session_s_run_begins_so(isolated_home: Path) -> None:
    # Review s43: ``list`` prints ``codex:019c8888`` for A, and a run of B, spawned in A's
    # minute, begins with it too: the id ``list`` shows must still open A.
    a, b, b_run = ("019c8888-0000-7000-8000-00000000000a", "019c7000-0000-7000-8000-00000000000b",
                   "019c8888-5f00-7000-8000-0000000000c1")
    codex = isolated_home / ".codex"
    _rollout(codex, a, 0)
    _rollout(codex, b, 0)
    _rollout(codex, b_run, 20, parent=b)
    listed = invoke("list", "--json")
    assert listed.exit_code == 0
    opened = invoke("show", "codex:019c8888", "--json")
    assert opened.exit_code == 0, opened.output
    assert f"codex:{a}" in opened.stdout.split('"subagents"')[0]
    # Past the short id, a prefix of both is the run's as much as the session's: told.
    assert invoke("show", "019c8888-").exit_code == 1
