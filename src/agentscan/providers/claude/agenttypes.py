"""What kind of agent each of a Claude session's delegated runs was, for ``tokens --by agent``.

As ``show`` says it (``subagentlist.subagent_infos``), found with as little reading as can be:
a run's ``agent-<id>.meta.json`` sidecar names its ``agentType`` (2.1.x writes one beside
every transcript it puts under ``subagents/``); an auto-compaction worker (``acompact-…``)
is ``compaction``, a suggestion of what to type next (``aprompt_suggestion-…``)
``prompt-suggestion``, a side question's (``aside_question``, ``/btw``) ``side-question``.
Only a run neither says (an older build's, one whose calls only the
parent's progress records hold, one written inline) needs the parent's transcript, whose
``Task``/``Agent`` call that started it names its ``subagent_type``: that is a row's pass
of the parent (``row.summarize``), made once for all of them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Collection, Iterable, Mapping

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.providers.claude.discovery import SessionFiles

#: the kind ``show`` gives an auto-compaction worker's run
COMPACTION = "compaction"
#: the kind ``show`` gives a run that suggested what to type next
PROMPT_SUGGESTION = "prompt-suggestion"
#: the kind ``show`` gives a side question's run (``/btw``: ``agent-aside_question.jsonl``),
#: which no sidecar or ``Task`` call names: the card showed no kind and ``tokens --by agent``
#: counted it ``unknown``, two words for one run
SIDE_QUESTION = "side-question"
_SIDE_QUESTION = "aside_question"


def subagent_types(files: SessionFiles, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
    """The kind of each of ``runs`` (run ids) that one was recorded for, by run id."""
    sidecars = {run: sidecar_kind(files, run, ctx) for run in runs}
    task_types: dict[str, str] = {}
    # Claude Code's own workers (and a side question's run) are started by no Task call: they
    # alone are no reason to read the parent.
    untold = {run for run, kind in sidecars.items() if run_kind(run, kind, {}) is None}
    if files.main is not None and untold:
        from agentscan.providers.claude.row import summarize

        task_types = summarize(files.main, ctx).task_types
    elif untold:
        task_types = copied_task_types(files, ctx, untold)
    return {run: kind for run in runs if (kind := run_kind(run, sidecars[run], task_types))}


def copied_task_types(files: SessionFiles, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
    """With the session's transcript gone (Claude Code deletes old ones) and its subagents'
    folder left, the ``Task`` calls that started its runs survive only in the copies of its
    records a later session of its chain of resumes begins with: their kinds
    (``FileSummary.task_types``, which notes the copies' too), from the smallest such
    transcript first (the nearest resume: a later one copies the same records and more),
    until each of ``runs`` is named.  ``{}``: no such transcript.  (``show`` of the session
    names its runs' kinds by the same copies: ``tokens --by agent`` counted them ``unknown``.)
    A chain's middle session is copied by transcripts whose heads name the chain's first: every
    resumed transcript of the folder is a candidate, kept when its copies name the session
    (``copyholders.resumed_into``), and read up to its own first record alone (the copies end there:
    the rest of a 1 GB transcript was read for them)."""
    from agentscan.providers.claude.copyholders import remembered_head, resumed_into
    from agentscan.providers.claude.gonesession import gone_main
    from agentscan.providers.claude.row import summarize

    main = gone_main(files)
    if main is None:
        return {}  # (only legacy ``agent-*.jsonl`` files: no ``<id>/`` folder to find the project by)
    copies = []
    for name in resumed_into(files.native_id, main, ctx, gone=True):
        path = main.with_name(f"{name}.jsonl")
        stat = ctx.stat(path)
        if stat is not None:
            copies.append((stat.st_size, name, path))
    found: dict[str, str] = {}
    for _, name, path in sorted(copies):
        head = remembered_head(path, name, ctx)
        end = None if head is None else head[1]
        types = summarize(path, ctx, end=end).task_types if end != 0 else {}
        found.update({run: types[run] for run in runs if run in types and run not in found})
        if len(found) == len(runs):
            break
    return found


def sidecar_kind(files: SessionFiles, run: str, ctx: ScanContext) -> str | None:
    """The ``agentType`` of ``run``'s ``.meta.json`` sidecar, if it has one that names it."""
    from agentscan.bounds import MAX_SIDE_FILE_BYTES
    from agentscan.providers.claude.usage import meta_agent_type
    from agentscan.toolkit.jsondoc import load_json_file

    sub = files.subagents.get(run)
    if sub is None or sub.meta_path is None:
        return None
    return meta_agent_type(load_json_file(sub.meta_path, ctx, max_bytes=MAX_SIDE_FILE_BYTES))


def sidecar_paths(files: Iterable[os.PathLike[str] | str]) -> list[str]:
    """Where each subagent transcript among ``files`` (``agent-<id>.jsonl``) has its
    ``.meta.json`` sidecar, written yet or not: what ``sidecar_kind`` reads, which the
    session's fingerprint does not cover (a sidecar may come after its transcript)."""
    sidecars = []
    for file in files:
        text = os.fspath(file)
        if os.path.basename(text).startswith("agent-") and text.endswith(".jsonl"):
            sidecars.append(text[:-len(".jsonl")] + ".meta.json")
    return sidecars


def run_kind(run: str, sidecar: str | None, task_types: Mapping[str, str]) -> str | None:
    """A run's kind, as ``show`` and ``tokens --by agent`` both name it: its sidecar's, else
    the one the ``Task`` call that started it asked for (``FileSummary.task_types``), else
    ``compaction`` for an auto-compaction worker, ``prompt-suggestion`` for a suggestion's,
    ``side-question`` for a ``/btw`` side question's."""
    return sidecar or task_types.get(run) or (COMPACTION if is_compaction_run(run) else
                                              PROMPT_SUGGESTION if run.startswith(_SUGGESTION) else
                                              SIDE_QUESTION if run.startswith(_SIDE_QUESTION) else None)


def is_compaction_run(run: str) -> bool:
    """Whether ``run`` (a run id) is an auto-compaction worker's (``acompact-…``)."""
    return run.startswith("acompact")


#: the run ids of Claude Code's own workers, started by no prompt of the user's: an
#: auto-compaction (``acompact-…``) and a suggestion of what to type next
#: (``aprompt_suggestion-…``)
_SUGGESTION = "aprompt_suggestion"
_INTERNAL_RUNS = ("acompact", _SUGGESTION)


def is_internal_run(run: str) -> bool:
    """Whether ``run`` is one of Claude Code's own workers (``_INTERNAL_RUNS``): its prompt is
    Claude Code's instruction, not the user's words, so it names no session
    (``sessionrow.session_row``).  (An ``aside_question`` run's prompt is the user's own ``/btw``.)"""
    return run.startswith(_INTERNAL_RUNS)
