"""A subagent's short id opens that run with ``show``, whatever other session shares its
first digits (review s48).

Codex's ids are UUIDv7s, whose first 8 digits are a minute: a session started in the minute
a run was spawned shares them.  ``tokens``' ``↳`` line and ``show``'s ``subagents`` list and
``[id]`` tags cut a run's id to a prefix unique only among its session's runs and its
parent's id: ``019ac2d6`` opened the other session; a run whose parent's rollout is missing
was cut to ``019b0000-0000-7000-8000-000000000``, which ``show`` called ambiguous.  And
``show`` of that parentless session did not say its tokens were all its subagents'.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from agentscan.scan.short_ids import child_prefixes
from builders import invoke
from codex_builders import (
    agent_message,
    at,
    function_call,
    function_output,
    meta,
    rollout_path,
    task_started,
    token_count,
    turn_context,
    usage,
    user_message,
    write_rollout,
)

PARENT = "019ac2d4-7b18-7c62-8e05-4f1a9b3c6d28"
CHILD = "019ac2d6-0c9e-7f41-a2b7-8d3e5f6a7b90"
#: a session started the minute ``CHILD`` was spawned
NEIGHBOUR = "019ac2d6-9999-7000-8000-000000000777"
#: a session with a run, and a run whose parent (``MISSING``) left no rollout
FIRST, FIRST_RUN = "019b0000-0000-7000-8000-0000000000a1", "019b0000-0000-7000-8000-0000000000a2"
MISSING, ORPHAN = "019b0000-0000-7000-8000-00000000dead", "019b0000-0000-7000-8000-0000000000a5"


def _session(codex: Path, thread: str, start: float, ask: str, *, parent: str | None = None,
             spawns: str | None = None, call: str | None = None) -> None:
    records = [meta(thread, at(start), spawn_parent=parent, agent_role="worker" if parent else None),
               task_started(at(start + 1)), turn_context(at(start + 1)), user_message(at(start + 1), ask)]
    if spawns is not None:
        records += [function_call(at(start + 2), "spawn_agent", {"message": f"help with {ask}"}, "sp1"),
                    function_output(at(start + 50), "sp1", "done")]
    if call is not None:
        records += [function_call(at(start + 3), "shell", {"command": ["sed", "-n", "1,9p", call]}, "c1"),
                    function_output(at(start + 4), "c1", "ok")]
    records += [token_count(at(start + 5), usage(1000, 0, 20), usage(1000, 0, 20)),
                agent_message(at(start + 6), "done")]
    write_rollout(rollout_path(codex, thread, at(start)), records)


def _home(home: Path) -> None:
    codex = home / ".codex"
    _session(codex, PARENT, 0, "review the refunds", spawns=CHILD)
    _session(codex, CHILD, 10, "help with review the refunds", parent=PARENT, call="app/refunds.py")
    _session(codex, NEIGHBOUR, 20, "another session the same minute")
    _session(codex, FIRST, 100, "split the handler", spawns=FIRST_RUN)
    _session(codex, FIRST_RUN, 110, "help with split the handler", parent=FIRST)
    _session(codex, ORPHAN, 200, "orphan work", parent=MISSING)


def _runs(out: str) -> dict[str, str]:
    """Session's short id -> the label of the one run its ``↳`` line names (``tokens`` by session)."""
    runs, session = {}, ""
    for line in out.splitlines():
        if line.startswith("  ↳ "):
            runs[session] = line.split()[1]
        elif line and not line.startswith(" ") and ":" in line.split()[0]:
            session = line.split()[0]
    return runs


def _opens(label: str, session: str, run: str) -> None:
    result = invoke("show", "--json", label)
    assert result.exit_code == 0, (label, result.output)
    shown = orjson.loads(result.stdout)["session"]
    assert (shown["id"], shown.get("focus", {}).get("subagent")) == (f"codex:{session}", run), label


def test_a_run_s_label_begins_no_other_session_s_id() -> None:
    known = sorted([PARENT, CHILD, NEIGHBOUR])
    assert child_prefixes([CHILD], PARENT, known=known) == {CHILD: "019ac2d6-0"}
    # Nor another session's run: the orphan's label is its whole id, as the runs beside it share 35 digits.
    known = sorted([FIRST, FIRST_RUN, MISSING, ORPHAN])
    assert child_prefixes([ORPHAN], MISSING, known=known) == {ORPHAN: ORPHAN}


def test_every_run_label_tokens_prints_opens_that_run(isolated_home: Path, tty) -> None:
    _home(isolated_home)
    tty(200)
    result = invoke("tokens")
    assert result.exit_code == 0, result.output
    runs = _runs(result.stdout)
    assert len(runs) == 3, result.stdout
    assert runs["codex:019ac2d4"] == "019ac2d6-0"
    for label, session, run in ((runs["codex:019ac2d4"], PARENT, CHILD), (runs[f"codex:{MISSING[:-3]}"], MISSING, ORPHAN)):
        _opens(label, session, run)


def test_show_names_a_run_as_it_opens(isolated_home: Path, tty) -> None:
    _home(isolated_home)
    tty(120)
    result = invoke("show", PARENT)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    listed = lines[lines.index("subagents (1)") + 1].split()[0]
    tagged = next(line for line in lines if "shell [" in line).split("[", 1)[1].split("]", 1)[0]
    assert listed == tagged == "019ac2d6-0"
    _opens(listed, PARENT, CHILD)
    result = invoke("show", MISSING)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    listed = lines[lines.index("subagents (1)") + 1].split()[0]
    _opens(listed, MISSING, ORPHAN)


def test_show_says_a_parentless_session_s_tokens_are_its_subagents(isolated_home: Path, tty) -> None:
    _home(isolated_home)
    tty(120)
    result = invoke("show", MISSING)
    assert result.exit_code == 0, result.output
    assert "tokens   1,020 total (1,020 by subagents) = " in result.stdout, result.stdout
