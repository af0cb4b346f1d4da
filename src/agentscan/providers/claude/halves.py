"""A huge transcript's row pass on two cores, by halves of the file.

The side pass (``sidepass``) adds up a huge transcript's sums on the second
core while this process reads the row and the show facts; each process
decodes every line, and this one's rules make it the longer (a first ``show``
of 1 GB took 6-8 s).  Here each process reads half of the file instead and
feeds all three consumers for it: this process up to a seam (a prompt
record past the middle, ``find_seam``), a forked helper from it on.

The helper's half starts from nothing (but the ``summary`` records the file
starts with: ``leading_summaries``), where the one pass would have gone on
from the first half's state; the two are joined only when nothing the one
pass would do in the second half depends on that state (``halfjoin.Join.checks``):
no message id met in both halves (the sums' dedupe, the reply and model
counts), no call id of the second half's first calls among the first's
newest (the show facts' reused calls), no ``summary`` record in the first
half but those the helper started from (a leaf may be in the second), no
call without a message id in the second (it would be settled between the
first half's window calls), no stand-in id (``#`` and a record number,
counted from the seam there), and the file the same one, at most appended
to.  Otherwise this process reads the second half itself, going on from its
own state as a resumed pass does (``row.summarize``'s ``resumed``), so the
outcome is always the one pass's; the helper's warnings are then dropped
(that pass says them).  A first half that stopped short (the line cap, a
read that failed) is the whole pass, as the one pass stopped there too; a
file replaced or cut meanwhile is read again from its start, whole, so that
no row mixes two files.

Neither half says its bad values (``valuewarnings``): the join says both
halves' counts as one (the first half's first value standing), and a second
half read here goes on from the first half's counts, as the one pass would.

Used only when the totals are taken back as sums alone: no subagent's calls
join them and no resume state keeps them (else ``sidepass``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from agentscan.context import ScanContext, Told, say
from agentscan.providers.claude.records import real_prompt_text
from agentscan.providers.claude.halfpass import HalfTotals, second_half
from agentscan.providers.claude.halfrow import lean_loop
from agentscan.providers.claude.filesummary import FileSummary
from agentscan.providers.claude.row import summarize
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.windowed import WindowedTotals
from agentscan.toolkit.jsonl import BOM, ReadProgress

if TYPE_CHECKING:
    from agentscan.toolkit.helperproc import Helper

#: how far past the middle a seam is looked for
SEAM_SEARCH = 8 * 1024 * 1024
#: how much of a transcript's head is looked at for the ``summary`` records it starts with
HEAD_BYTES = 1024 * 1024
#: where the seam is looked for, as a share of the file: both halves start at the fork, and
#: the helper's half costs more a byte (its pass starts as if a compaction were dated at the
#: seam, so it hashes and keeps every record's uuid: ``halfpass``); what follows the join
#: waits for both whatever the share.  At 0.5 the helper's half of the bench's 1 GB took
#: 4.5–7.8 % more CPU than this process's (seven runs, the fifty-sixth pass); at 0.52 this one's
#: took 2 % more: 0.515 evens them
FIRST_SHARE = 0.515


def find_seam(path: Path, size: int) -> int | None:
    """Where the second half starts: a prompt record past ``FIRST_SHARE`` of ``path`` (a turn
    starts there, so no reply, call or message runs across it), else any user record;
    ``None`` when neither is within ``SEAM_SEARCH``."""
    import orjson

    from agentscan.toolkit import laxjson

    from agentscan.toolkit.fsutil import open_regular

    middle = int(size * FIRST_SHARE)
    try:
        with open_regular(path) as handle:
            handle.seek(middle)
            chunk = handle.read(SEAM_SEARCH)
    except OSError:
        return None
    position = chunk.find(b"\n") + 1
    fallback = None
    while position:
        end = chunk.find(b"\n", position)
        if end < 0:
            break
        line = chunk[position:end]
        if b'"user"' in line:
            try:
                record = laxjson.loads(line)
            except orjson.JSONDecodeError:
                record = None
            if isinstance(record, dict) and record.get("type") == "user":
                if real_prompt_text(record) is not None:
                    return middle + position
                fallback = fallback if fallback is not None else middle + position
        position = end + 1
    return fallback


def leading_summaries(path: Path, ctx: ScanContext) -> dict[str, str]:
    """The ``summary`` records ``path`` starts with (where Claude Code writes a resumed
    session's), as a pass over them keeps them: the second half's records may be their
    leaves.  Empty when there are none, or they do not end within ``HEAD_BYTES``."""
    import orjson

    from agentscan.toolkit import laxjson

    from agentscan.toolkit.fsutil import open_regular

    try:
        with open_regular(path) as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return {}
    start = end = len(BOM) if head.startswith(BOM) else 0  # (the pass takes it off line 1 too)
    for line in head[start:].split(b"\n")[:-1]:  # whole lines only
        try:
            record = laxjson.loads(line)
        except orjson.JSONDecodeError:
            break
        if not isinstance(record, dict) or record.get("type") != "summary":
            break
        end += len(line) + 1
    if end == start:
        return {}
    with ctx.held_warnings():  # (the first half's pass says them)
        return summarize(path, ctx, end=end, tell_values=False).summaries


class Halves:
    """The helper reading a transcript's second half while this process reads its first."""

    def __init__(self, path: Path, ctx: ScanContext, before: os.stat_result, seam: int) -> None:
        self._path, self._ctx, self._before, self.seam = path, ctx, before, seam
        self._helper: Helper | None = None
        self._said: Sequence[Told] = ()  # the first half's warnings (and its count past those held, in place)
        self._summaries = leading_summaries(path, ctx)

    @classmethod
    def worth_it(cls, path: Path, ctx: ScanContext, before: os.stat_result | None) -> Halves | None:
        """Halves of ``path``, not started yet; ``None``: too small, a compressed file (no
        seeking into it), no second core free, or no seam found."""
        from agentscan.providers.claude import sidepass
        from agentscan.toolkit import cores

        if (before is None or before.st_size < sidepass.SPLIT_BYTES or path.name.endswith(".zst")
                or not cores.usable_workers() or cores.busy()):
            return None
        seam = find_seam(path, before.st_size)
        return None if seam is None else cls(path, ctx, before, seam)

    def first_half(self, facts: ShowFacts | None) -> tuple[FileSummary, HalfTotals, ReadProgress]:
        """Start the helper, read the first half here."""
        from agentscan.toolkit.helperproc import Helper, HelperGone

        path, ctx, seam = self._path, self._ctx, self.seam
        with_facts, summaries = facts is not None, self._summaries
        helper = self._helper = Helper(
            lambda: None, lambda _: second_half(path, ctx.for_worker(), seam, with_facts, summaries), start=False)
        try:
            helper.start()
            helper.send("half")  # not ``None``: that ends a helper
        except (OSError, HelperGone):
            self.stop()
        totals, progress = HalfTotals(), ReadProgress()
        # Held until the join: a file replaced meanwhile is read again, and says its own.
        with ctx.held_warnings() as held:
            # (Its bad values are said with the second half's, joined: ``halfjoin``.)
            main = summarize(path, ctx, totals=totals, progress=progress, facts=facts, end=seam, tell_values=False,
                             loop=lean_loop)
        self._said = held.said
        return main, totals, progress

    def join(self, main: FileSummary, totals: HalfTotals, facts: ShowFacts | None,
             progress: ReadProgress) -> tuple[FileSummary, WindowedTotals]:
        """The whole file's row and sums (``facts`` and ``progress`` brought up to its end):
        the halves joined when the checks hold, else the second half read here."""
        from agentscan.providers.claude.halfjoin import Join
        from agentscan.providers.claude.sidepass import only_appended
        from agentscan.toolkit.helperproc import last_answer

        path, ctx = self._path, self._ctx
        if not only_appended(path, self._before):
            # Replaced or cut: the halves may be of two files, and the second half read here
            # would go on in the new one.  One pass reads one file: this one, as it is now.
            self.stop()
            if facts is not None:
                facts.reset()
            progress.complete_offset, progress.lines = 0, 0
            totals = HalfTotals()
            return summarize(path, ctx, totals=totals, progress=progress, facts=facts, loop=lean_loop), totals
        say(ctx, self._said)
        if progress.complete_offset != self.seam:
            self.stop()  # (its answer would go unused)
            progress.values.say(ctx, path)  # (unsaid by the half's pass: ``first_half``)
            return main, totals  # the line cap, or a read that failed: the one pass stopped there too
        answer = last_answer(self._helper)
        self._helper = None
        join = None
        if answer is not None:
            try:
                join = Join(answer, path)
            except (ValueError, TypeError, KeyError, IndexError):
                join = None  # an answer that does not read back (the helper's bug): read here
            answer = None  # what the join needs is the join's: the rest is not held through the checks
        if join is None or not join.checks(main, totals, facts, progress, self._summaries):
            # (Going on from the first half's bad values, ``progress.values``: this read says them all.)
            return summarize(path, ctx, totals=totals, progress=progress, facts=facts, resumed=main,
                             loop=lean_loop), totals
        return join.apply(ctx, main, totals, facts, progress)

    def stop(self) -> None:
        if self._helper is not None:
            self._helper.stop()
            self._helper = None
