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
pass would do in the second half depends on that state (``_Join.checks``):
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

Used only when the totals are taken back as sums alone: no subagent's calls
join them and no resume state keeps them (else ``sidepass``).
"""

from __future__ import annotations

import os
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentscan import bounds
from agentscan.context import HeldWarnings, ScanContext
from agentscan.providers.claude import row
from agentscan.providers.claude.records import as_str, real_prompt_text
from agentscan.providers.claude.row import FileSummary, RecentIds, summarize
from agentscan.providers.claude.showfacts import ShowFacts
from agentscan.providers.claude.usage import MESSAGE_ID, SIDECHAIN, Call
from agentscan.providers.claude.windowed import SettledTotals, WindowedTotals, _packed
from agentscan.toolkit.hashes64 import Hashes64
from agentscan.toolkit.jsonl import ReadProgress

if TYPE_CHECKING:
    from agentscan.toolkit.helperproc import Helper

#: how far past the middle a seam is looked for
SEAM_SEARCH = 8 * 1024 * 1024
#: a second half that met more warnings than this is read here (they are kept until the join)
MAX_SAID = 4096
#: how much of a transcript's head is looked at for the ``summary`` records it starts with
HEAD_BYTES = 1024 * 1024
#: where the seam is looked for, as a share of the file: both halves start at the fork and
#: read at about the same rate (1 GB: 4.44 s for this process's 47 %, 5.11 s for the
#: helper's 53 %); what follows the join waits for both whatever the share
FIRST_SHARE = 0.5


def find_seam(path: Path, size: int) -> int | None:
    """Where the second half starts: a prompt record past ``FIRST_SHARE`` of ``path`` (a turn
    starts there, so no reply, call or message runs across it), else any user record;
    ``None`` when neither is within ``SEAM_SEARCH``."""
    import orjson

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
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                record = None
            if isinstance(record, dict) and record.get("type") == "user":
                if real_prompt_text(record) is not None:
                    return middle + position
                fallback = fallback if fallback is not None else middle + position
        position = end + 1
    return fallback


class HalfTotals(WindowedTotals):
    """A half's totals, with what the join checks: the message ids of its calls (hashed:
    ``hash()`` holds in a forked helper), calls without one, and how many calls left the window.
    The ids are those the totals keep anyway (the settled parents' and the window's) and the
    few settled sidechain calls': a set of every id took 7 MB more of a 1 GB transcript's pass."""

    def __init__(self) -> None:
        super().__init__()
        self.unkeyed = 0
        self.evictions = 0
        self._sidechains = Hashes64()

    def add(self, call: Call) -> None:
        if call[MESSAGE_ID] is None:
            self.unkeyed += 1
        super().add(call)

    def _evict_oldest(self) -> None:
        self.evictions += 1
        key = self._order[0]
        if self._recent[key][SIDECHAIN]:  # (a parent's is among the settled parents)
            self._sidechains.add(hash(key[0]))
        super()._evict_oldest()

    def message_ids(self) -> array:
        """Every message id met, hashed (some twice)."""
        found = array("q", _packed(self._settled_parents))
        found.frombytes(self._sidechains.to_bytes())
        found.extend(hash(message_id) for message_id in self._requests)
        return found

    def met_any(self, hashes: array) -> bool:
        """Whether any of these hashed message ids is one met here."""
        parents, sidechains = self._settled_parents, self._sidechains
        window = {hash(message_id) for message_id in self._requests}
        return any(h in window or h in sidechains or (parents is not None and h in parents) for h in hashes)

    def window_sums(self) -> dict[tuple, list[int]]:
        """What the window's winners add to the settled sums (``_all_sums`` less ``_sums``)."""
        return _sums_added(self._all_sums(), self._sums)


class _EarlyIds(RecentIds):
    """``RecentIds`` that lists its first ``size`` ids: the ones the second half checked while
    the first half's newest ids would still have been in the one pass's memory.  It notes a
    stand-in id (``#`` and the record's number): the second half numbers its records from
    the seam, where the one pass numbers them from the file's start."""

    def __init__(self) -> None:
        super().__init__()
        self.early: list[str] = []
        self.stand_in = False  # an id like the ``#<record number>`` a record without one is given

    def add(self, item: str) -> None:
        if item.startswith("#"):
            self.stand_in = True
        if len(self.early) < self._size and item not in self._members:
            self.early.append(item)
        super().add(item)


class _HalfFacts(ShowFacts):
    """``ShowFacts`` of the second half, with its first event and the call ids it checked
    before ``window`` new calls had pushed the first half's out of the one pass's memory."""

    def __init__(self) -> None:
        super().__init__()
        self.first: tuple[str, str | None] | None = None
        self.early: list[str] = []
        self._fresh = 0

    def assistant(self, message_id: str | None, blocks: list[dict]) -> None:
        if self.first is None:
            self.first = ("assistant", message_id)
        super().assistant(message_id, blocks)

    def prompt(self, text: str) -> None:
        if self.first is None:
            self.first = ("prompt", None)
        super().prompt(text)

    def _tool(self, block: dict) -> None:
        if self._fresh >= self.window:
            super()._tool(block)
            return
        key = as_str(block.get("id"))
        if key is not None and key not in self._keys:  # (a reused one was listed when it was fresh)
            self.early.append(key)
        reused = self.reused
        super()._tool(block)
        self._fresh += self.reused == reused


class _HeldFew(HeldWarnings):
    """Held warnings, the first ``MAX_SAID`` only (a file of bad lines must not fill the helper)."""

    def __init__(self) -> None:
        super().__init__()
        self.overflowed = False

    def add(self, path: object, message: str, line: int | None = None, *, passing: bool = False) -> None:
        if len(self.said) < MAX_SAID:
            super().add(path, message, line, passing=passing)
        else:
            self.overflowed = True


def second_half(path: Path, ctx: ScanContext, seam: int, with_facts: bool, summaries: dict[str, str]) -> dict[str, Any]:
    """The helper's pass over ``path`` from ``seam`` on (``ctx``: its own), and what the join
    checks.  ``summaries``: those the file starts with, as the first half's pass keeps them."""
    summary = FileSummary(path)
    summary.results = []
    summary._summaries = dict(summaries)
    texts, models = _EarlyIds(), _EarlyIds()
    summary._text_messages, summary._model_messages = texts, models
    facts, totals = _HalfFacts() if with_facts else None, HalfTotals()
    progress = ReadProgress(seam, 1)  # its first line numbered 2: no byte order mark is taken off it
    held = ctx.warnings = _HeldFew()
    summarize(path, ctx, totals=totals, progress=progress, facts=facts, resumed=summary)
    return {
        "summary": summary.to_state(), "results": summary.results,
        "early_texts": texts.early, "early_models": models.early, "stand_in": texts.stand_in or models.stand_in,
        "facts": None if facts is None else facts.to_state(), "first": None if facts is None else facts.first,
        "early_calls": [] if facts is None else facts.early, "overflowed": held.overflowed,
        "sums": [[*key, *parts] for key, parts in totals._sums.items()],
        "window_sums": [[*key, *parts] for key, parts in totals.window_sums().items()],
        "inserted": len(totals._recent) + totals.evictions, "exact": totals.exact, "unkeyed": totals.unkeyed,
        "messages": totals.message_ids().tobytes(),
        "said": held.said, "offset": progress.complete_offset, "lines": progress.lines,
    }


def leading_summaries(path: Path, ctx: ScanContext) -> dict[str, str]:
    """The ``summary`` records ``path`` starts with (where Claude Code writes a resumed
    session's), as a pass over them keeps them: the second half's records may be their
    leaves.  Empty when there are none, or they do not end within ``HEAD_BYTES``."""
    import orjson

    from agentscan.toolkit.fsutil import open_regular

    try:
        with open_regular(path) as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return {}
    end = 0
    for line in head.split(b"\n")[:-1]:  # whole lines only
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            break
        if not isinstance(record, dict) or record.get("type") != "summary":
            break
        end += len(line) + 1
    if not end:
        return {}
    with ctx.held_warnings():  # (the first half's pass says them)
        return summarize(path, ctx, end=end)._summaries


class Halves:
    """The helper reading a transcript's second half while this process reads its first."""

    def __init__(self, path: Path, ctx: ScanContext, before: os.stat_result, seam: int) -> None:
        self._path, self._ctx, self._before, self.seam = path, ctx, before, seam
        self._helper: Helper | None = None
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
        return summarize(path, ctx, totals=totals, progress=progress, facts=facts, end=seam), totals, progress

    def join(self, main: FileSummary, totals: HalfTotals, facts: ShowFacts | None,
             progress: ReadProgress) -> tuple[FileSummary, WindowedTotals]:
        """The whole file's row and sums (``facts`` and ``progress`` brought up to its end):
        the halves joined when the checks hold, else the second half read here."""
        from agentscan.providers.claude.sidepass import only_appended
        from agentscan.toolkit.helperproc import HelperGone

        answer = None
        if self._helper is not None:
            try:
                answer = self._helper.receive()
            except HelperGone:
                answer = None
            finally:
                self.stop()
        path, ctx = self._path, self._ctx
        if not only_appended(path, self._before):
            # Replaced or cut: the halves may be of two files, and the second half read here
            # would go on in the new one.  One pass reads one file: this one, as it is now.
            if facts is not None:
                facts.reset()
            progress.complete_offset, progress.lines = 0, 0
            totals = HalfTotals()
            return summarize(path, ctx, totals=totals, progress=progress, facts=facts), totals
        if progress.complete_offset != self.seam:
            return main, totals  # the line cap, or a read that failed: the one pass stopped there too
        join = None
        if answer is not None:
            try:
                join = _Join(answer, path)
            except (ValueError, TypeError, KeyError):
                join = None  # an answer that does not read back (the helper's bug): read here
        if join is None or not join.checks(main, totals, facts, progress, self._summaries):
            return summarize(path, ctx, totals=totals, progress=progress, facts=facts, resumed=main), totals
        return join.apply(ctx, main, totals, facts, progress)

    def stop(self) -> None:
        if self._helper is not None:
            self._helper.stop()
            self._helper = None


class _Join:
    """The helper's answer read back (raises ``ValueError``/``TypeError``/``KeyError`` on an
    ill-shaped one), its checks against the first half, and the joining."""

    def __init__(self, answer: dict[str, Any], path: Path) -> None:
        self.summary = FileSummary.from_state(path, answer["summary"])
        self.results = [(str(agent), str(tool), None if kind is None else str(kind))
                        for agent, tool, kind in answer["results"]]
        self.stand_in = bool(answer["stand_in"])
        self.early_texts, self.early_models = set(answer["early_texts"]), set(answer["early_models"])
        self.facts = ShowFacts()
        if answer["facts"] is not None:
            self.facts.load_state(answer["facts"])
        self.overflowed = bool(answer["overflowed"])
        first = answer["first"]
        self.first = None if first is None else (str(first[0]), first[1])
        self.early_calls = set(answer["early_calls"])
        self.sums = _sums_of(answer["sums"])
        self.window_sums = _sums_of(answer["window_sums"])
        self.inserted, self.unkeyed, self.exact = int(answer["inserted"]), int(answer["unkeyed"]), bool(answer["exact"])
        self.messages = array("q")
        self.messages.frombytes(answer["messages"])
        self.said = [(str(path_text), str(message), line, bool(passing)) for path_text, message, line, passing in answer["said"]]
        self.offset, self.lines = int(answer["offset"]), int(answer["lines"])

    def checks(self, main: FileSummary, totals: HalfTotals, facts: ShowFacts | None, progress: ReadProgress,
               given: dict[str, str]) -> bool:
        """Whether joining gives what the one pass gives (the module's note).  ``given``: the
        summaries the helper started from (those the file starts with)."""
        if any(passing for *_, passing in self.said) or progress.lines + self.lines - 1 >= bounds.MAX_FILE_LINES - 1:
            return False  # a read that failed there, or the line cap: the one pass would stop
        if (main._summaries != given or len(self.results) > row.MAX_RESULTS or self.unkeyed or self.overflowed
                or self.stand_in):
            return False
        if not (self.early_texts.isdisjoint(main._text_messages.ids())
                and self.early_models.isdisjoint(main._model_messages.ids())):
            return False
        # (A reply running across the seam needs no check of its own: its text is the show
        # facts' only if it is not blank, and a message with text is among the newest text ids.)
        if facts is not None and not self.early_calls.isdisjoint(key for key in facts._keys if isinstance(key, str)):
            return False
        return not totals.met_any(self.messages)

    def apply(self, ctx: ScanContext, main: FileSummary, totals: HalfTotals, facts: ShowFacts | None,
              progress: ReadProgress) -> tuple[FileSummary, WindowedTotals]:
        first_lines = progress.lines
        _join_summaries(main, self.summary, self.results)
        if facts is not None:
            _join_facts(facts, self.facts, self.first is not None)
        joined = _join_totals(totals, self.inserted, self.sums, self.window_sums, self.exact)
        progress.complete_offset, progress.lines = self.offset, first_lines + self.lines - 1
        for path_text, message, line, _ in self.said:  # in order, after the first half's: as the one pass says them
            ctx.warn(path_text, message, None if line is None else first_lines + line - 1)
        return main, joined


def _join_summaries(main: FileSummary, second: FileSummary, results: list[tuple[str, str, str | None]]) -> None:
    """``main`` (the first half's) brought on by the second half's ``FileSummary``."""
    if main.first_prompt is None:
        main.first_prompt = second.first_prompt
    main.first_bare_command = main.first_bare_command or second.first_bare_command
    main.cwd = main.cwd if main.cwd is not None else second.cwd
    for name in ("custom_title", "ai_title", "summary_title", "_summary_matched", "git_branch"):
        later = getattr(second, name)
        if later is not None:
            setattr(main, name, later)
    main._summaries = second._summaries
    if second.first_ts is not None and (main.first_ts is None or second.first_ts < main.first_ts):
        main.first_ts = second.first_ts
    if second.last_ts is not None and (main.last_ts is None or second.last_ts > main.last_ts):
        main.last_ts = second.last_ts
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
    size = main._text_messages._size
    main._text_messages = RecentIds(ids=(main._text_messages.ids() + second._text_messages.ids())[-size:])
    main._model_messages = RecentIds(ids=(main._model_messages.ids() + second._model_messages.ids())[-size:])


def _join_facts(facts: ShowFacts, second: ShowFacts, met: bool) -> None:
    """``facts`` (the first half's, its reply still open) brought on by the second half's.
    ``met``: the second half fed them anything (its first event ends the open reply)."""
    if not met:
        return
    facts._flush()
    facts.prompts += second.prompts
    facts.responses += second.responses
    facts.tools += second.tools
    facts.reused += second.reused
    facts.clipped += second.clipped
    if second.plan is not None:
        facts.plan = second.plan
    # (The newest call ids are left: they go on only in a resume state, and none is kept
    # after halves.)
    facts._current, facts._texts, facts._kept, facts._more = second._current, second._texts, second._kept, second._more


def _join_totals(first: HalfTotals, inserted: int, sums: dict[tuple, list[int]], window_sums: dict[tuple, list[int]],
                 exact: bool) -> SettledTotals:
    """The whole file's sums, in the order the one pass settles them: the first half's settled
    calls, those of its window the second half's calls pushed out, the second half's settled
    calls, then the first half's window left and the second's (``_all_sums``)."""
    for _ in range(min(len(first._recent), max(0, len(first._recent) + inserted - first._window))):
        first._evict_oldest()
    first._everything = None  # (``add`` drops it; the evictions here come from no ``add``)
    joined = {key: list(parts) for key, parts in first._sums.items()}
    for part in (sums, first.window_sums(), window_sums):
        for key, parts in part.items():
            found = joined.get(key)
            if found is None:
                joined[key] = list(parts)
            else:
                for index, value in enumerate(parts):
                    found[index] += value
    return SettledTotals(joined, first.exact and exact, stable=False)


def _sums_added(everything: dict[tuple, list[int]], settled: dict[tuple, list[int]]) -> dict[tuple, list[int]]:
    """``everything`` less ``settled``, key by key, in ``everything``'s order past ``settled``'s keys."""
    added: dict[tuple, list[int]] = {}
    for key, parts in everything.items():
        before = settled.get(key)
        difference = list(parts) if before is None else [value - old for value, old in zip(parts, before)]
        if any(difference) or before is None:
            added[key] = difference
    return added


def _sums_of(rows: object) -> dict[tuple, list[int]]:
    from agentscan.providers.claude.windowed import _sums_of_state

    return _sums_of_state(rows)
