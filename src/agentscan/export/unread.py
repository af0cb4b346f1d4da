"""The sessions an export leaves as they were: their files could not be read this run, or
they were not found where their provider could not be read whole (``say_left_as_they_were``).

A file that cannot be read (mode 000, an I/O error, a database locked) is a warning, not a
failure: the session's row would come out blank (no tokens, no title, no days).  Written, it
would replace the last good row an SQLite index holds, and its ``token_days``; so it is not
written: the index keeps what it had (a first export has no row for it), a JSON Lines or CSV
file, replaced whole, leaves it out.  Each is said, once per provider.

A provider's shared database that could not be read (Codex's thread index, Cursor's
``state.vscdb``) holds no session out of a file export: their rows are read without it (a
thread's name, a composer's tokens missing) and written so, for a run.  Held out, a database
broken for good (the corpus test's, not SQLite) would keep that provider out of every export.
A database locked by another program (Cursor writing its ``state.vscdb``) is not broken: the
lock passes, and the sessions whose usage is kept there (``Provider.locked_usage``) are left
as they were, as a file that could not be read (their ``tokens_total`` would be written
``NULL`` and their ``token_days`` deleted), but those of which the index keeps, from a run
that read the database, the chat and the database unchanged since, all the export writes
(``unreadrows.kept_whole``): a chat of no usage whose row or sums say so, or one with usage
whose row and sums are kept, and for an SQLite index or ``--days`` its calls too, all at its
fingerprint as it is: written, as that run found them.  One held for the lock alone is said
naming the database (``locked_usages``, ``say_unread``).  An SQLite index keeps history, so a corrupt one
(``Provider.unknown_usage``) leaves the rows it has of such sessions as they were too
(``usage_unknown``, ``say_held``: a cron job lost a week's spend to one bad copy of the
database), as it does a legacy Gemini chat cut before any usage it kept; a session it has no
row of is written, so a database broken for good keeps none out, and the next run that reads
the database writes the rows whole again.  A row with usage (a chat cut after some) is
written as ``list`` and ``tokens`` count it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Literal, Mapping, NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.export.children import Shrank
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.scanner import Scanner

#: why an export left a provider's sessions as they were, not marked gone
Reason = Literal["no root", "elsewhere", "unlisted"]
#: none of the provider's roots exists (a home not mounted, a disk unplugged)
NO_ROOT: Reason = "no root"
#: their files are still there, outside the provider's roots this run read (``gonesessions.mark_gone``)
ELSEWHERE: Reason = "elsewhere"
#: not found by a discovery that could not read everything this run (``gonesessions.mark_gone``)
UNLISTED: Reason = "unlisted"


class LeftAsTheyWere(NamedTuple):
    """What a count of an export's sessions left as they were is of: ``provider``'s sessions,
    left for ``reason`` (``ExportResult.unseen``, said by ``say_left_as_they_were``)."""

    provider: str
    reason: Reason = NO_ROOT

    def said_order(self) -> tuple[str, str]:
        """The order the counts are said in, as it always was: a missing root's by its
        provider's name, the others by their reason's word, then by provider."""
        return (self.provider if self.reason == NO_ROOT else self.reason, self.provider)


def unread_sessions(refs: Iterable[SessionRef], failed: set[str],
                    locked: Callable[[], Collection[str]] | None = None) -> dict[str, str]:
    """The sessions of ``refs`` one of whose files is among the paths that could not be read
    (``failed``: I/O errors, a locked database), or whose usage is kept in a database found
    locked (``locked``: their ids, ``scan.unreadrows.locked_ids``, asked only then), id to provider."""
    if not failed:
        return {}
    from agentscan.fsview import legible

    held = locked() if locked is not None else ()
    return {ref.id: ref.provider for ref in refs
            if any(legible(str(path)) in failed for path in ref.read_files) or ref.id in held}


def locked_usages(scanner: Scanner, refs: Iterable[SessionRef], locked: Collection[str],
                  failed: set[str]) -> dict[str, tuple[str, str, str]]:
    """Those of ``refs`` among ``locked`` (``unread_sessions``' ``locked``) held out for the lock
    alone, none of their own files among ``failed``: id to ``(provider, the database's path, why)``,
    for ``say_unread`` to name the database rather than "the warnings naming their files"."""
    if not locked:
        return {}
    from agentscan.fsview import legible
    from agentscan.scan.unreadrows import locked_usage

    found = {}
    for ref in refs:
        if ref.id in locked and not any(legible(str(path)) in failed for path in ref.read_files):
            where = locked_usage(scanner, ref)
            if where is not None:
                found[ref.id] = (ref.provider, *where)
    return found


def say_unread(ctx: ScanContext, output: Path, fmt: str, unread: Mapping[str, str],
               by_lock: Mapping[str, tuple[str, str, str]] | None = None, days: bool = False) -> None:
    """One warning per provider for the sessions ``unread_sessions`` kept out of this export;
    those of ``by_lock`` (``locked_usages``) one per provider and database, saying it was
    locked and what is written instead ("could not be read" sent the user to warnings that
    name no file of theirs, and said nothing of why a chat ``tokens`` showed was missing)."""
    from agentscan.providers import label_of
    from agentscan.toolkit.words import agreeing, plural

    by_lock = by_lock or {}
    counts: dict[str, int] = {}
    locked: dict[tuple[str, str, str], int] = {}
    for session_id, provider in unread.items():
        if session_id in by_lock:
            locked[by_lock[session_id]] = locked.get(by_lock[session_id], 0) + 1
        else:
            counts[provider] = counts.get(provider, 0) + 1
    for name, count in sorted(counts.items()):
        they = agreeing(count)
        if fmt == "sqlite":
            done = f"{they.its} row{they.s} in the index (and token_days) {they.is_} left as {they.it_was}"
        else:
            done = f"{they.it_is} not in this export"
        ctx.warn(str(output), f"{plural(count, label_of(name) + ' session')} could not be read this run (see the "
                 f"warnings naming {they.its} file{they.s}): {done}")
    for (name, path, why), count in sorted(locked.items()):
        they = agreeing(count)
        if fmt == "sqlite":
            done = f"{they.its} row{they.s} in the index (and token_days) {they.is_} left as {they.it_was}"
        else:
            done = f"{they.it_is} not in this export"
        kept = f"row{they.s}, sums and calls (for the days)" if fmt == "sqlite" or days else f"row{they.s} and sums"
        ctx.warn(str(output), f"{plural(count, label_of(name) + ' session')} held out: {they.its} usage is kept in {path}, which could "
                 f"not be read this run ({why}), and no run that read it since {they.it_was} last changed kept {they.its} "
                 f"{kept}: {done}")


def usage_unknown(scanner: Scanner, refs: Iterable[SessionRef], unread: Mapping[str, str],
                  rows: Iterable[SessionRow]) -> dict[str, tuple[str, str, str, bool]]:
    """Those of ``refs`` not among ``unread`` whose ``rows`` have no usage because the place it
    is kept could not be read this run (``unknown_usage``: a corrupt database, a legacy Gemini
    chat cut before any usage; a locked database's are ``unread`` already), id to ``(provider,
    path, why, own)`` (``own``: the path is the session's own file, not a shared database): an
    SQLite index leaves the rows it has of them as they were.  A row with usage is written, as
    ``list`` and ``tokens`` count it: a Gemini chat cut after some usage was held at its old
    row, "could not be read", while both counted what was recovered."""
    from agentscan.fsview import legible
    from agentscan.scan.unreadrows import unknown_usages

    blank = {row.id: row for row in rows if row.tokens is None}
    asked = [(ref, blank[ref.id]) for ref in refs if ref.id in blank and ref.id not in unread]
    causes = unknown_usages(scanner, asked)  # (the index asked once for them all)
    found = {}
    for ref, _ in asked:
        if (cause := causes.get(ref.id)) is not None:
            own = cause[0] in {legible(str(path)) for path in ref.read_files}
            found[ref.id] = (ref.provider, *cause, own)
    return found


def say_held(ctx: ScanContext, output: Path, held: Mapping[str, tuple[str, str, str, bool]]) -> None:
    """One warning per provider and file for the sessions of ``usage_unknown`` whose row an
    SQLite index had, left as they were (``write_sqlite``'s ``held``), naming the database (or
    the session's own file, read only in part) and why: the calls are not gone, which
    ``say_shrank``'s words would have said."""
    from agentscan.providers import label_of
    from agentscan.toolkit.words import agreeing, plural

    counts: dict[tuple[str, str, str, bool], int] = {}
    for cause in held.values():
        counts[cause] = counts.get(cause, 0) + 1
    for (name, path, why, own), count in sorted(counts.items()):
        they = agreeing(count)
        # A chat of its own read up to its damage was read, in part: not "could not be read".
        read = "read this run only up to its damage, before any usage" if own else "which could not be read this run"
        ctx.warn(str(output), f"{plural(count, label_of(name) + ' session')} left as {they.it_was} in the index "
                 f"({they.its} row and token_days): {they.its} usage is kept in {path}, {read} ({why})")


def say_left_as_they_were(ctx: ScanContext, output: Path, fmt: str, unseen: Mapping[LeftAsTheyWere, int]) -> None:
    """A warning for each count of ``write_sqlite``'s (or a file export's) sessions not found
    this run and left as they were, not marked gone (``LeftAsTheyWere``)."""
    from agentscan.providers import label_of
    from agentscan.toolkit.words import agreeing, plural

    def say(message: str) -> None:
        ctx.warn(str(output), message)

    for left, count in sorted(unseen.items(), key=lambda item: item[0].said_order()):
        name, they = label_of(left.provider), agreeing(count)
        if left.reason == UNLISTED:
            say(f"{plural(count, name + ' session')} in the index {they.was} not found, and "
                f"{name}'s discovery could not read everything this run (see its warnings): left as "
                f"{they.it_was}, not marked gone")
        elif left.reason == ELSEWHERE:
            say(f"{plural(count, name + ' session')} in the index still {they.has} {they.its} file{they.s}, "
                f"outside the {name} roots this run read (`{ctx.command('doctor')}` shows them; a cron job may lack a variable "
                f"your shell sets): left as {they.it_was}, not marked gone")
        elif fmt != "sqlite":  # the file is replaced: they left it
            say(f"no {name} root found (`{ctx.command('doctor')}` shows where it looked): the {plural(count, name + ' session')} "
                f"the last export held {they.is_} not in this one")
        else:
            say(f"no {name} root found (`{ctx.command('doctor')}` shows where it looked): its {plural(count, 'session')} in the "
                f"index {they.is_} left as {they.it_was}, not marked gone")


#: the sessions whose loss a run names one by one (the largest); the rest are summed in one warning
SHRANK_SHOWN = 5


def say_shrank(ctx: ScanContext, output: Path, shrank: Iterable[Shrank]) -> None:
    """A warning for each of the ``SHRANK_SHOWN`` sessions whose ``token_days`` lost the most
    spend this run (``export.children``), and one summing the others: the index is where
    history is kept, so a loss is never silent; but a mass deletion (a cleanup of a thousand
    transcripts) printed a warning a session, which buried every other one under them."""
    from agentscan.toolkit.andmore import and_more

    losses = largest_first(shrank)
    for lost in losses[:SHRANK_SHOWN]:
        ctx.warn(str(output), f"{lost.session_id}: its token_days lost {lost.tokens:,} tokens{_cost(lost.cost)} this run: its "
                 "files now hold fewer of its calls than the index did (part of a transcript deleted, or calls now counted "
                 "in another session); they hold what is on disk now")
    rest = losses[SHRANK_SHOWN:]
    if rest:
        tokens, cost = shrank_total(rest)
        ctx.warn(str(output), f"… {and_more(len(rest), 'session')} whose token_days lost {tokens:,} tokens"
                 f"{_cost(cost)} in all this run, for the same reasons (the largest losses are named above)")


def largest_first(shrank: Iterable[Shrank]) -> list[Shrank]:
    """``shrank`` by the tokens each lost, most first (then by id: the same order every run)."""
    return sorted(shrank, key=lambda lost: (-lost.tokens, lost.session_id))


def shrank_json(shrank: Iterable[Shrank]) -> dict[str, Any]:
    """``export --json``'s ``shrank``: every loss summed, and the ``SHRANK_SHOWN`` largest, the
    sessions the warnings name (a dashboard's alert reads these, not the warnings' words)."""
    losses = largest_first(shrank)
    tokens, cost = shrank_total(losses)
    return {"sessions": len(losses), "tokens": tokens, "cost_usd": cost,
            "largest": [{"id": lost.session_id, "tokens": lost.tokens, "cost_usd": lost.cost}
                        for lost in losses[:SHRANK_SHOWN]]}


def shrank_total(shrank: Iterable[Shrank]) -> tuple[int, float | None]:
    """The tokens and cost ``shrank`` lost in all (the cost ``None`` when one's is not known)."""
    from decimal import Decimal

    tokens = 0
    cost: Decimal | None = Decimal(0)
    for lost in shrank:
        tokens += lost.tokens
        # Added as the decimals they print as: floats' sum read 0.013499999999999993 in --json.
        cost = None if cost is None or lost.cost is None else cost + Decimal(repr(lost.cost))
    return tokens, None if cost is None else float(cost)


def _cost(cost: float | None) -> str:
    return "" if cost is None else f", ${cost:.4f}"
