"""A ``list`` row from bounded reads: header, head, last 1 MiB, and the index.
Each thread's tokens and counts come from ``threadfacts``; this module merges
them into the session's row.

When the index row is newer than the rollout (by ``updated_at`` against the
rollout's last record and mtime), it wins for ordering and its values win
over the rollout's; otherwise the rollout's values win and the index only
fills gaps, except for a name the user gave the thread: the newest of the
rollout's, ``session_index.jsonl``'s and the index's is the title whatever
else is newer (``names``).  Token breakdowns always come from the rollout: the index's
``tokens_used`` has none.  Nor does the index's ``model`` ever replace the
rollout's: Codex sets it from each ``turn_context``, so it is the latest
turn's model, not the most used one (``modeluse``); it only fills a gap.
"""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from agentscan.context import ScanContext
from agentscan.model import Counts, SessionRow, TokenUsage, sum_usage
from agentscan.providers.codex.discovery import CodexSession, Thread
from agentscan.providers.codex.header import RolloutHeader, thread_header
from agentscan.providers.codex.forkpart import fork_part, is_fork
from agentscan.providers.codex.headtail import HeadSummary, head_summary
from agentscan.providers.codex.index import names_file
from agentscan.providers.codex.modeluse import most_used
from agentscan.providers.codex.names import chosen_name
from agentscan.providers.codex.threadfacts import ThreadFacts, file_tail, sum_counts, thread_facts
from agentscan.timeutil import from_epoch, newest, oldest

PROVIDER = "codex"
V = TypeVar("V")


def session_counts(session: CodexSession, ctx: ScanContext) -> Counts | None:
    """A row's counts, exact (``None`` while a large file has no kept tally):
    the main rollout's, or with no main rollout its subagents' summed."""
    threads = (session.main,) if session.main else session.children
    found = []
    for thread in threads:
        for path in thread.files():
            tail = file_tail(path, ctx, thread.thread_id)
            if not tail.whole_file:
                return None
            found.append(tail.counts)
    return sum_counts(found)


def index_is_newer(thread: Thread, last_timestamp: datetime | None) -> bool:
    """Whether the thread index's row is newer than the rollout (by its last record's time and
    its mtime): its values then win over the rollout's (``pick``)."""
    row = thread.indexed
    rollout_fresh = newest(last_timestamp, from_epoch(thread.rollout.mtime))
    return bool(row and row.updated_at and (rollout_fresh is None or row.updated_at > rollout_fresh))


def pick(index_wins: bool, rollout_value: V | None, index_value: V | None) -> V | None:
    if index_wins:
        return index_value if index_value is not None else rollout_value
    return rollout_value if rollout_value is not None else index_value


def session_head(session: CodexSession, ctx: ScanContext, header: RolloutHeader | None = None) -> HeadSummary:
    """The head that titles the session: its main rollout's, else its first subagent's.
    ``header``: the main thread's, when the caller has it (else read: ``thread_header``)."""
    first = session.main or (session.children[0] if session.children else None)
    if first is None:
        return HeadSummary()
    head = head_summary(first.first.path, ctx)
    if first is not session.main or first.segments:
        return head
    header = header or thread_header(first, ctx)
    if is_fork(header.link) and header.history_base is None:
        # A fork's own first prompt, once it has one (else the prompt its copy starts with).
        part = fork_part(first.first.path, ctx, header.link, header.started_at, first.thread_id)
        if part is not None and part.start and part.counts.prompts:
            own = head_summary(first.first.path, ctx, part.start)
            if own.title:
                return own._replace(cwd=head.cwd or own.cwd)
    return head


def build_row(session: CodexSession, ctx: ScanContext) -> SessionRow:
    main = thread_facts(session.main, ctx) if session.main else None
    children = [thread_facts(child, ctx) for child in session.children]
    return assemble_row(session, main, children, session_head(session, ctx, main.header if main else None))


def marked_title(title: str | None, header: RolloutHeader) -> str | None:
    """``title``, saying what the thread is when it is a subagent that names no parent: Codex's
    ``/review`` thread (``source: {"subagent": "review"}``), its compact and memory consolidation
    threads.  No build records their parent (not in their meta, not in the thread index, not
    in the parent's rollout), and one is never guessed from times: such a thread is listed on
    its own, as "Review the current code changes (review subagent)"."""
    link = header.link
    if not link.subagent or link.spawn_parent is not None:
        return title
    what = f"{link.agent_type} subagent" if link.agent_type else "subagent"
    return f"{title} ({what})" if title else f"({what})"



def archived(thread: Thread) -> bool:
    """Whether Codex archived the thread: its rollout is in ``archived_sessions/`` (where
    archiving moves it), or the thread index says so of the file found (a row naming
    another file, ``archived_sessions/``'s while the file is back in ``sessions/``, is
    stale: the file's place wins)."""
    if thread.rollout.archived:
        return True
    row = thread.indexed
    return bool(row and row.archived and names_file(row, (thread.rollout.path,)))


def session_archived(session: CodexSession) -> bool:
    """Whether the session's row is ``archived`` (``assemble_row``), from discovery alone: its
    main thread is, or with no main thread each of its subagents is (``tablefacts`` alike)."""
    if session.main is not None:
        return archived(session.main)
    return bool(session.children) and all(map(archived, session.children))


def assemble_row(
    session: CodexSession,
    main: ThreadFacts | None,
    children: list[ThreadFacts],
    head: HeadSummary,
    *,
    tokens: TokenUsage | None = None,
    exact_tokens: bool = False,
) -> SessionRow:
    everyone = ([main] if main else []) + children
    # The newest time the rollouts recorded; their mtime only when they recorded none
    # (a copied home has every mtime at the copy time).
    recorded = newest(*(facts.tail.last_timestamp for facts in everyone))
    mtime = newest(*(from_epoch(facts.thread.rollout.mtime) for facts in everyone))
    updated = recorded or mtime
    if not exact_tokens:
        tokens = sum_usage(facts.tokens for facts in everyone)
    if main is None:
        # The parent rollout is gone: the subagents' own content is all there
        # is.  The first one (by mtime) names the session; counts add up.
        first = children[0] if children else None
        named = chosen_name(first.thread, first.tail.names) if first else None
        return SessionRow(
            provider=PROVIDER,
            native_id=session.native_id,
            path=None,
            title=named.name if named else head.title,
            cwd=(first.header.cwd or head.cwd) if first else None,
            model=most_used(first.tail.models) if first else None,
            git_branch=first.header.git_branch if first else None,
            started_at=oldest(*(facts.header.started_at for facts in children)),
            updated_at=updated,
            tokens=tokens,
            counts=sum_counts(facts.tail.counts for facts in children),
            subagents=len(children),
            counts_partial=not all(facts.tail.whole_file for facts in children),
            # (its parent's rollout gone, the subagents are all there is: archived when each is)
            archived=bool(children) and all(archived(facts.thread) for facts in children),
        )
    row = main.thread.indexed
    index_wins = index_is_newer(main.thread, main.tail.last_timestamp)
    named = chosen_name(main.thread, main.tail.names)
    return SessionRow(
        provider=PROVIDER,
        native_id=session.native_id,
        path=str(main.thread.rollout.path),
        # A name the user gave the thread, else Codex's title or the first prompt (the file's
        # first, even when a rollback took it back, as a Claude session keeps an edited first prompt).
        title=marked_title(named.name if named else pick(index_wins, head.title, row.title if row else None),
                           main.header),
        # A pre-envelope rollout's header names no cwd: its environment context does.
        cwd=pick(index_wins, main.header.cwd or head.cwd, row.cwd if row else None),
        # The index's model is the latest turn's (see the module's doc): a gap filler only.
        model=most_used(main.tail.models) or (row.model if row else None),
        git_branch=pick(index_wins, main.header.git_branch, row.git_branch if row else None),
        # The index's creation time only when its row names this thread's file: a row naming
        # another copy (or a stale one) made the start earlier than this file's own.
        started_at=oldest(main.header.started_at,
                          row.created_at if row and names_file(row, main.thread.files()) else None),
        updated_at=newest(recorded, row.updated_at if row else None) or mtime,
        tokens=tokens,
        counts=main.tail.counts,
        subagents=len(children),
        counts_partial=not main.tail.whole_file,
        archived=archived(main.thread),
    )
