"""The join of a huge transcript's two halves (``halves``): the helper's answer read back,
the checks that joining gives what one pass over the whole file gives, and the joining.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from agentscan import bounds
from agentscan.context import ScanContext
from agentscan.providers.claude import recordnotes
from agentscan.providers.claude.halfpass import HalfTotals
from agentscan.providers.claude.filesummary import FileSummary, RecentIds
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.windowed import SettledTotals, WindowedTotals, checked_items
from agentscan.toldwarnings import Counted, Told
from agentscan.toolkit.jsonl import ReadProgress
from agentscan.toolkit.valuewarnings import ValueCounts, say_joined


class Join:
    """The helper's answer read back (raises ``ValueError``/``TypeError``/``KeyError`` on an
    ill-shaped one), its checks against the first half, and the joining."""

    def __init__(self, answer: dict[str, Any], path: Path) -> None:
        # The bulky parts are taken out of ``answer`` and kept as they came (the sums' items,
        # not a dict of them; the hashes' bytes, not an array copied from them), so that no
        # second form of them is held at a 1 GB ``show``'s peak, the first half's window still
        # in memory (1 MB of key tuples, 1 MB of copied hashes).
        self.summary = FileSummary.from_state(path, answer["summary"])
        self.results = [(str(agent), str(tool), None if kind is None else str(kind))
                        for agent, tool, kind in answer["results"]]
        self.stand_in = bool(answer["stand_in"])
        self.early_texts, self.early_models = set(answer["early_texts"]), set(answer["early_models"])
        self.facts = ShowFacts()
        if answer["facts"] is not None:
            self.facts.load_state(answer.pop("facts"))
        self.overflowed = bool(answer["overflowed"])
        self.early_calls = set(answer["early_calls"])
        self.sums = checked_items(answer.pop("sums"))
        self.window_sums = checked_items(answer.pop("window_sums"))
        self.inserted, self.unkeyed, self.exact = int(answer["inserted"]), int(answer["unkeyed"]), bool(answer["exact"])
        self.messages = memoryview(answer.pop("messages")).cast("q")
        #: the second half's warnings, each file's count past those held in its place (``toldwarnings``)
        self.said = [_told(item) for item in answer["said"]]
        self.offset, self.lines = int(answer["offset"]), int(answer["lines"])
        self.values = ValueCounts.from_parts(answer["values"])
        self.inline = bool(answer["inline"])
        self.floor = None if answer["floor"] is None else datetime.fromisoformat(answer["floor"])
        self.looked_up = memoryview(answer.pop("looked_up")).cast("q")
        self.met_any = bool(answer["met_any"])
        self.compactions = int(answer["compactions"])

    def checks(self, main: FileSummary, totals: HalfTotals, facts: ShowFacts | None, progress: ReadProgress,
               given: dict[str, str]) -> bool:
        """Whether joining gives what the one pass gives (the module's note).  ``given``: the
        summaries the helper started from (those the file starts with)."""
        if any(said[3] for said in self.said) or progress.lines + self.lines - 1 >= bounds.MAX_FILE_LINES - 1:
            return False  # a read that failed there, or the line cap: the one pass would stop
        if (main.summaries != given or len(self.results) > recordnotes.MAX_RESULTS or self.unkeyed or self.overflowed
                or self.stand_in):
            return False
        if self.inline:
            # A subagent run written inline is known from all its records (``sidechains``): the
            # helper's, read without the first half's, may belong to one begun before the seam.
            return False
        if not (self.early_texts.isdisjoint(main.text_messages.ids())
                and self.early_models.isdisjoint(main.model_messages.ids())):
            return False
        # (A reply running across the seam needs no check of its own: its text is the show
        # facts' only if it is not blank, and a message with text is among the newest text ids.)
        if facts is not None and not self.early_calls.isdisjoint(key for key in facts._keys if isinstance(key, str)):
            return False
        second = self.facts.fold
        if facts is not None and (second.journal is None or second.overflowed or second.guessed or facts.fold.waiting):
            # The plan's changes, too many to note; a task the second half named by its
            # creation number, which the one pass may take for one of the first half's; or a
            # task the first half created whose result the second half did not look for.
            return False
        if not self._same_copies(main, progress.complete_offset):
            return False
        return not totals.met_any(self.messages)

    def _same_copies(self, main: FileSummary, seam: int) -> bool:
        """Whether the second half skips the records the one pass skips as copies
        (``seenuuids``): none of those it looked up was met before, in either half, and it
        looked up every record the one pass would (those dated before the first half's
        ``compacted``, no later than the seam: ``halfpass._HalfSeen``).  A first half that
        compacted and holds a record dated after the seam's (a boundary dated past the
        records that follow it) is read here too: times out of order across the seam are
        not worth the join's doubt."""
        from agentscan.providers.claude.halfpass import MAX_LOOKED_UP

        if self.met_any or len(self.looked_up) > MAX_LOOKED_UP:
            return False
        if main.compacted is not None and (self.floor is None or main.last_ts is None or main.last_ts > self.floor):
            return False  # (``compacted`` is never later than ``last_ts``: ``seenuuids.copies_before``)
        if not self.looked_up or (main.compacted is None and not self.compactions):
            # (Neither half compacted: the one pass looked nothing up, and the helper's
            # lookups, of times before the seam's, met nothing: ``met_any``.)
            return True
        if main.compacted is None:  # (its uuids are kept from a compaction on: ``seenuuids``)
            main.seen.collect(main.path, seam)
        return set(self.looked_up).isdisjoint(main.seen.hashes)

    def apply(self, ctx: ScanContext, main: FileSummary, totals: HalfTotals, facts: ShowFacts | None,
              progress: ReadProgress) -> tuple[FileSummary, WindowedTotals]:
        first_lines = progress.lines
        _join_summaries(main, self.summary, self.results)
        if facts is not None:
            _join_facts(facts, self.facts)
        joined = _join_totals(totals, self.inserted, self.sums, self.window_sums, self.exact)
        progress.complete_offset, progress.lines = self.offset, first_lines + self.lines - 1
        for item in self.said:  # in order, after the first half's: as the one pass says them
            if isinstance(item, Counted):
                ctx.warnings.count_more(item.path, item.past, first_lines + item.last - 1)
            else:
                path_text, message, line, _ = item
                ctx.warn(path_text, message, None if line is None else first_lines + line - 1)
        # Then the bad values of both halves, as one (neither half said its own: ``halves``).
        progress.values = say_joined(ctx, main.path, progress.values, self.values, first_lines - 1)
        return main, joined


def _told(item: Any) -> Told:
    """One of the helper's warnings (``TypeError``/``ValueError``: not one)."""
    if type(item) is Counted:
        return Counted(str(item.path), int(item.past), int(item.last))
    path_text, message, line, passing = item
    return str(path_text), str(message), None if line is None else int(line), bool(passing)


def _join_summaries(main: FileSummary, second: FileSummary, results: list[tuple[str, str, str | None]]) -> None:
    """``main`` (the first half's) brought on by the second half's ``FileSummary``."""
    if main.first_prompt is None:
        main.first_prompt = second.first_prompt
    main.first_image_prompt = main.first_image_prompt or second.first_image_prompt
    main.first_bare_command = main.first_bare_command or second.first_bare_command
    main.first_local_command = main.first_local_command or second.first_local_command
    main.cwd = main.cwd if main.cwd is not None else second.cwd
    for name in ("custom_title", "ai_title", "summary_title", "relocated_cwd", "git_branch"):
        later = getattr(second, name)
        if later is not None:
            setattr(main, name, later)
    # (The helper's half starts knowing no record of the session's own: a copy there counts
    # only while the first half met none.)
    if not main.own_met and second.resumed_last is not None:
        main.resumed_last = second.resumed_last
    main.own_met = main.own_met or second.own_met
    if second.summary_matched is not None:  # (its leaf is in the second half: after the first's)
        main.summary_matched, main.matched_at = second.summary_matched, second.matched_at
    # Pending: the second half's own (written there: where its line ends, past the seam; one
    # naming a leaf the first half matched names it again, later), and those the file starts
    # with (``main.summaries``: ``Join.checks``; the helper's at 0) whose leaf neither half met.
    first = main.pending_summaries
    main.pending_summaries = {leaf: at if at else first[leaf] for leaf, at in second.pending_summaries.items()
                              if at or leaf in first}
    main.summaries = second.summaries
    if second.first_ts is not None and (main.first_ts is None or second.first_ts < main.first_ts):
        main.first_ts = second.first_ts
    if second.last_ts is not None and (main.last_ts is None or second.last_ts > main.last_ts):
        main.last_ts = second.last_ts
    main.copies += second.copies  # (none: ``Join._same_copies``)
    main.resumed_copies += second.resumed_copies
    main.copied_runs.update(second.copied_runs)
    main.prompts += second.prompts
    main.responses += second.responses
    main.tool_calls += second.tool_calls
    main.records += second.records
    main.has_usage = main.has_usage or second.has_usage
    for model, count in second.models.items():
        main.models[model] += count
    # A subagent's result in the second half may name a call of the first: in file order, as met.
    first_pending = main.pending_tasks
    for agent, tool_id, kind in results:
        found = kind if kind is not None else first_pending.get(tool_id)
        if found is not None:
            main.task_types[agent] = found
            main.task_calls[agent] = tool_id
    main.pending_tasks = {**first_pending, **second.pending_tasks}
    size = main.text_messages._size
    main.text_messages = RecentIds(ids=(main.text_messages.ids() + second.text_messages.ids())[-size:])
    main.model_messages = RecentIds(ids=(main.model_messages.ids() + second.model_messages.ids())[-size:])


def _join_facts(facts: ShowFacts, second: ShowFacts) -> None:
    """``facts`` (the first half's, its reply still open) brought on by the second half's.
    The open reply ends here: the second half's first prompt or message ends it in the one
    pass, and with nothing fed after the seam it ends at the file's end, as here."""
    facts._flush()
    facts.prompts += second.prompts
    facts.responses += second.responses
    facts.tools += second.tools
    facts.reused += second.reused
    facts.clipped += second.clipped
    facts.clipped_tools += second.clipped_tools
    facts.fold.join(second.fold)  # (replayed: a task list goes on from the first half's)
    for error in second.errors:  # (read after the first half's: the newest by time kept, as one pass keeps them)
        facts.keep_error(error)
    facts.join_interruptions(second)  # (as the errors are; those the second half did not keep counted)
    facts.join_compactions(second)
    # (The newest call ids are left: they go on only in a resume state, and none is kept
    # after halves.)
    facts._current, facts._texts, facts._kept, facts._more = second._current, second._texts, second._kept, second._more


def _join_totals(first: HalfTotals, inserted: int, sums: list[list], window_sums: list[list],
                 exact: bool) -> SettledTotals:
    """The whole file's sums, in the order the one pass settles them: the first half's settled
    calls, those of its window the second half's calls pushed out, the second half's settled
    calls, then the first half's window left and the second's (``_all_sums``)."""
    # As the one pass goes on with the second half's new keys: each one past the window pushes
    # the oldest out (a pair of copies with and without ``requestId`` leaves as two).
    size, left = len(first._recent), inserted
    while first._recent and left > first._window - size:
        left -= max(0, first._window - size) + 1
        before = len(first._recent)
        first._evict_oldest()
        size = first._window + 1 - (before - len(first._recent))
    first._everything = None  # (``add`` drops it; the evictions here come from no ``add``)
    first_window = first.window_sums()
    joined, first_exact = first.spent()  # (its lists: the first half's totals are not used again)
    exact = first_exact and exact
    for part in (_pairs(sums), first_window.items(), _pairs(window_sums)):
        for key, parts in part:
            found = joined.get(key)
            if found is None:
                joined[key] = list(parts)
            else:
                for index, value in enumerate(parts):
                    found[index] += value
    return SettledTotals(joined, exact, stable=False)


def _pairs(items: list[list]) -> Iterator[tuple[tuple, list[int]]]:
    """The helper's ``[*key, *parts]`` items as the sums' keys and parts."""
    for item in items:
        yield tuple(item[:5]), item[5:]
