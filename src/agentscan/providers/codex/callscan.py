"""One rollout's model calls as ``tokens`` counts them (``FileUsageScanner``), fed its
records in order; the rules are in ``usage``'s docstring.  Its own module so that
``fullcounts`` (which ``usage`` imports) can bring a kept tally up to date with it.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable, Mapping

from agentscan.pricing.aliases import recorded_tier, service_tier_name
from agentscan.providers.codex.callevent import CopyEnd, UsageEvent
from agentscan.providers.codex.counters import (ZERO, CallKey, Counters, Position, Seen, add, counters_of, jumped, latest_keys,
                                               moved_total, read_total, recent_totals, repeated, spent_on, step, token_info, unsummed)
from agentscan.providers.codex.modeluse import ModelUse, model_use
from agentscan.providers.codex.records import MARKER_SLACK, as_dict, as_str, payload_of, time_value
from agentscan.timeutil import parse_iso

_BURST_GAP = timedelta(seconds=1)


class FileUsageScanner:
    """Fed one rollout's records in order; keeps its calls and the copy boundary.

    ``replay``: the thread began with a copy of another thread's history; ``started``: when it was
    created; ``referenced``: the file references the history it continues (``history_base``:
    ``_token_count``).  A plain class, not a dataclass: a cold ``list`` imports it, and a
    dataclass costs about a millisecond to create on import.
    """

    __slots__ = ("replay", "started", "thread_id", "events", "records", "boundary", "baseline", "copied_floor",
                 "turns", "carried", "timed", "garbled", "overspent", "jumps", "_previous", "_model", "_searches", "_tier",
                 "_settings_model", "history_start", "_copied_ordinals", "_seen", "referenced", "_kept_keys")

    def __init__(self, replay: bool = False, started: datetime | None = None, thread_id: str | None = None,
                 *, timed: bool = True, history_start: int | None = None, referenced: bool = False) -> None:
        #: whether a call's time is read (``False``: only its model and counters are wanted, as by
        #: ``list``'s tail read for thousands of rollouts: parsing each time was a fifth of that read)
        self.timed = timed
        self.replay, self.referenced, self.started = replay, referenced, started
        self.thread_id = thread_id  # records naming another thread are copies
        self.events: list[UsageEvent] = []
        #: response id (or time + counters) -> the call a ``token_usage_record`` reports
        self.records: dict[str, UsageEvent] = {}
        self.boundary: int | None = None if replay else 0  # index of the first own call, once known
        self.baseline: Counters | None = None  # the cumulative total the copy ended with
        #: the calls before the last copied turn marker (one older than the thread): copies
        #: whatever else tells the copy's end (``_own_token_counts``)
        self.copied_floor = 0
        #: turn_context lines per model, in the order each was last named (``modeluse``)
        self.turns: dict[str, int] = {}
        #: the cumulative counts that ended in a restart (a resume by an older build starts
        #: again from zero), added up: with the latest one, the file's whole count (``cumulative``)
        self.carried: Counters = ZERO
        #: a running total held a value that is no token count (``-5``, ``2.5``), or a call came
        #: with none (``counters.unsummed``): the totals are no running count of the calls, so a
        #: row counts the calls as ``tokens`` does (``spent``)
        self.garbled = False
        #: calls whose running total moved by other than the call (``counters.jumped``, ``total_warning``): the totals are then no count of the calls (``garbled``)
        self.jumps, self.overspent = 0, 0  # ``overspent``: calls whose cached input and cache write exceed their input (``split_warning``)
        self._previous: Counters | None = None
        self._seen = recent_totals()  # the latest totals: one written again is a replay (``counters.step``)
        self._kept_keys: tuple[CallKey, ...] = ()  # the latest calls a read resumed from counted (``spent``)
        self._model: str | None = None
        #: the model the thread's latest settings name (``thread_settings_applied``): that of
        #: the calls before the file's first ``turn_context`` (``_current_model``)
        self._settings_model: str | None = None
        #: completed ``web_search_call`` items since the last call: the next call's (``_web_search``)
        self._searches = 0
        #: the service tier the thread's settings name (``_settings``): its calls' price
        self._tier: str | None = None
        #: the meta's ``subagent_history_start_ordinal``: the lines' ``ordinal`` tells the copy's end
        self.history_start = history_start if replay else None
        self._copied_ordinals = False  # lines below it were fed, none past it: all copies so far

    def resume(self, model: str | None, previous: Counters | None, carried: Counters = ZERO, settings: str | None = None,
               tier: str | None = None, seen: Seen = (), keys: tuple[CallKey, ...] = ()) -> None:
        """Go on from where an earlier pass over the same file stopped (``fullcounts``): the turn's
        model (the latest ``turn_context``'s), the cumulative count reached, the counts that
        restarted, the model and tier the thread's settings named, the latest calls counted.  The
        models are kept apart, as ``feed`` keeps them: a settings change read on is the model of
        the calls after it while no ``turn_context`` came (not the model before)."""
        self._model, self._previous, self.carried = model, previous, carried
        self._settings_model, self._tier, self._kept_keys = settings, tier, keys
        self._seen = recent_totals(seen, previous)  # (a replay after the read resumed is one still)

    @property
    def position(self) -> Position:
        """What ``resume`` takes to go on from here."""
        keys = latest_keys(self._kept_keys, ((event.timestamp_raw, event.counters) for event in reversed(self.events)))
        return self._model, self._previous, self.carried, self._settings_model, self._tier, tuple(self._seen), keys

    @property
    def _current_model(self) -> str | None:
        """The model a call runs on: the latest ``turn_context``'s, else (before the first)
        the one the thread's settings name.  A settings change after a turn began leaves
        that turn on its own model (the next ``turn_context`` names the new one)."""
        return self._model or self._settings_model

    @property
    def cumulative(self) -> Counters | None:
        """The file's whole cumulative count: every run's last count (``None``: it has none)."""
        return None if self._previous is None else add(self.carried, self._previous)

    @property
    def recount(self) -> Counters | None:
        """``spent`` when the totals are ``garbled`` (what a row counts instead of them), else
        ``None`` (``fullcounts`` keeps it for a file a row reads in part)."""
        return self.spent if self.garbled else None

    @property
    def spent(self) -> Counters:
        """The calls ``token_count`` events reported, added up as ``tokens`` counts each (``spent_on``;
        one time and count once, as ``usage.UsageDeduper``): a row's count when the totals are ``garbled``;
        not a call only a ``token_usage_record`` reports (no row counts one: ``docs/providers/codex.md``)."""
        total, keys = ZERO, set[tuple[object, Counters]](self._kept_keys)  # (those of a read resumed from: counted there)
        for event in self.events:
            if (key := (event.timestamp_raw, event.counters)) not in keys or event.timestamp_raw is None:
                keys.add(key)
                total = spent_on(total, event.counters)
        return total

    def feed(self, record: Mapping[str, Any]) -> None:
        kind = record.get("type")
        if kind == "turn_context":
            context = payload_of(record)
            if "service_tier" in context:
                # A turn's own tier, where a build writes one (openai/codex's ``TurnContextItem``
                # has none: the thread's settings below say it).  The record is the turn's whole
                # context, so a ``null`` is "no tier": the standard one, as the API is sent none.
                self._tier = recorded_tier(context.get("service_tier"))
            model = as_str(context.get("model"))
            if model is not None:
                self._model = model
                turns = self.turns
                turns[model] = turns.pop(model, 0) + 1  # moved to the end: named last
            return
        if kind == "token_usage_record":
            self._usage_record(payload_of(record), record.get("timestamp"))
            return
        if kind == "compacted":
            copied = as_dict(payload_of(record).get("latest_token_usage_record"))
            if copied:
                self._usage_record(copied, record.get("timestamp"))
            return
        if kind != "event_msg":
            if kind == "response_item":
                self._web_search(record.get("payload"))
            return
        payload = payload_of(record)
        ptype = payload.get("type")
        if ptype == "task_started" and self.boundary is None and not self._by_ordinal(record):
            self._marker(time_value(payload.get("started_at")))
        elif ptype == "token_count":
            self._token_count(record)
        elif ptype == "thread_settings_applied":
            settings = as_dict(payload.get("thread_settings"))
            if settings:
                # Codex 0.146+ says the tier here (``"default"``, ``"priority"``, ``"fast"``,
                # ``"flex"``), at the start and on each change: the calls after it are billed so.
                # It is the thread's whole settings (``ThreadSettingsSnapshot``), whose
                # ``service_tier`` is left out when there is none: a snapshot without it (``/fast``
                # turned off) puts the calls after it back on the standard tier.
                self._tier = recorded_tier(settings.get("service_tier"))
                # ... and the model (``ThreadSettingsSnapshot.model``, always written): a call
                # before the file's first ``turn_context`` ran on it, not on no model.
                model = as_str(settings.get("model"))
                if model is not None:
                    self._settings_model = model

    def _marker(self, started_at: datetime | None) -> None:
        if started_at is None:
            return
        if self.started is not None and started_at < self.started - MARKER_SLACK:
            # A copied turn's: the calls before it are copies, those after may be the thread's
            # own (a build that writes no marker forked a thread a newer build wrote).
            self.copied_floor = len(self.events)
            return
        self._own_start()

    def _own_start(self) -> None:
        # The copy's run's count (a row of a fork subtracts it from the latest run's); searches of
        # the copy that no copied call reported were the parent's, not this thread's.
        self.boundary, self.baseline, self._searches = len(self.events), self._previous, 0

    def _by_ordinal(self, record: Mapping[str, Any]) -> bool:
        """Whether the line's ``ordinal`` told where it is (``False``: it has none): Codex keeps a
        subagent's lines below ``history_start`` out of its own history, whatever their times say."""
        ordinal = record.get("ordinal")
        if ordinal.__class__ is not int or self.history_start is None:
            return False
        if ordinal >= self.history_start:  # type: ignore[operator]
            self._own_start()
        else:
            self._copied_ordinals = True
        return True

    def _web_search(self, payload: object) -> None:
        """A ``response_item`` of a hosted web search: the model request that ran it is the next
        call the file reports (Codex writes a response's output items as they complete, then its
        ``token_count``).  Only a ``completed`` one counts: a ``failed`` or unfinished one (an
        interrupted turn's ``in_progress``/``searching``) ran no search OpenAI says it bills."""
        if payload.__class__ is dict and payload.get("type") == "web_search_call" \
                and payload.get("status") == "completed":  # type: ignore[attr-defined]
            self._searches += 1

    def _token_count(self, record: Mapping[str, Any]) -> None:
        if self.history_start is not None and self.boundary is None:
            self._by_ordinal(record)
        info = token_info(record) or {}
        last = counters_of(raw_last := info.get("last_token_usage"))
        total, garbage, unread = read_total(info.get("total_token_usage"))
        if unread:  # (it moved by its call, unless its line writes again the call counted last: ``counters.moved_total``)
            before = (self.events[-1].timestamp_raw, self.events[-1].counters) if self.events else (self._kept_keys or (None,))[-1]
            total = moved_total(self._previous, last, repeated(record.get("timestamp"), last, before))
        if garbage or unsummed(total, last):
            self.garbled = True
        elif jumped(self._previous, total, last):
            self.garbled, self.jumps = True, self.jumps + 1
        if raw_last == {} and self.referenced and self._previous is None:  # (its parent's total restored,
            last = ZERO  # no call: ``usage.first_call_base``; taken for one, that history was the fork's)
        self._previous, self.carried, delta = step(self._previous, self.carried, total, last, None if garbage else self._seen, raw_last == {})
        if delta is None:
            return
        self.overspent += delta[1] + delta[2] > delta[0]
        model = as_str(info.get("model")) or as_str(payload_of(record).get("model")) or self._current_model
        if model is not None and self._tier is not None:
            model = service_tier_name(model, self._tier)
        raw_ts = record.get("timestamp")
        self.events.append(
            UsageEvent(raw_ts if isinstance(raw_ts, str) else None, parse_iso(raw_ts) if self.timed else None, model,
                       delta, self._searches)
        )
        self._searches = 0

    def _usage_record(self, payload: Mapping[str, Any], raw_ts: object) -> None:
        owner = as_str(payload.get("thread_id"))
        if owner is not None and self.thread_id is not None and owner != self.thread_id:
            return  # another thread's record, copied with its history
        counters = counters_of(payload.get("usage"), "token_usage_record")
        if counters is None or not any(counters[:5]):
            return
        timestamp = raw_ts if isinstance(raw_ts, str) else None
        key = as_str(payload.get("response_id")) or f"{timestamp}\x1f{counters}"
        if key not in self.records:
            model = as_str(payload.get("model")) or self._current_model
            if model is not None and self._tier is not None:
                model = service_tier_name(model, self._tier)
            self.records[key] = UsageEvent(timestamp, parse_iso(timestamp) if self.timed else None, model, counters)

    def _unmatched_records(self, own: list[UsageEvent]) -> list[UsageEvent]:
        """Records whose call no ``token_count`` of this thread reports."""
        if not self.records:
            return []
        reported = Counter(event.counters for event in own)
        extra = []
        for event in self.records.values():
            if reported[event.counters] > 0:
                reported[event.counters] -= 1
            else:
                extra.append(event)
        return extra

    def all_calls(self) -> list[UsageEvent]:
        """Every call in the file, a copied history's included (``own_events`` of a thread
        that copied none): what a pass that cannot tell the copy counts."""
        return self.events + self._unmatched_records(self.events)

    def model_use(self, calls: Iterable[UsageEvent] | None = None) -> ModelUse:
        """``calls`` (default: ``all_calls``) and the file's turns, per model (``modeluse``)."""
        return model_use((event.model for event in (self.all_calls() if calls is None else calls)), self.turns)

    @property
    def decided(self) -> bool:
        return self.boundary is not None

    def copy_end(self) -> CopyEnd | None:
        """Where the copied history ended, once a turn marker told it (``None`` before, and
        for a thread that copied none: its calls are all its own)."""
        if not self.replay or self.boundary is None:
            return None
        return CopyEnd(self.baseline or ZERO, self.model_use(self.events[:self.boundary]).calls)

    def own_events(self, parent_calls: Callable[[], list[UsageEvent]] | None = None) -> list[UsageEvent]:
        """The calls this thread made itself, once the whole file was fed."""
        own = self._own_token_counts(parent_calls)
        return own + self._unmatched_records(own)

    def beyond(self, earlier: list[list[UsageEvent]]) -> list[UsageEvent]:
        """Every call in the file, a copied history's included, but the leading ones equal to
        those of one of ``earlier`` (other copies of the same history, whose calls count there):
        the calls of a fork whose parent is gone (``goneparent``).  The longest match over them
        all, since a fork made at an earlier turn copied less than one before it; and no
        further than this file's copy, where the usage rules tell its end (a fork's own calls
        are never another's, though they cost what an earlier fork's own did)."""
        events = self.events
        # Of a thread whose start is unknown, a marker tells no copy's end (``_marker``).
        told = self.started is not None
        copied = len(events) - len(self._own_token_counts(None)) if told else 0
        if not copied and not (told and self.boundary is not None):
            copied = len(events)  # no rule told the copy's end: its calls alone can
        matched = 0
        for calls in earlier:
            most, shared = min(len(calls), copied), 0
            while shared < most and events[shared].counters == calls[shared].counters:
                shared += 1
            matched = max(matched, shared)
        kept = events[matched:]
        return kept + self._unmatched_records(kept)

    def copied_calls(self, parent_calls: Callable[[], list[UsageEvent]] | None = None) -> int:
        """How many of the leading ``events`` were copied (``own_events``' rule; ``forkpart``
        tells a fork's own lines by it)."""
        return len(self.events) - len(self._own_token_counts(parent_calls))

    def _own_token_counts(self, parent_calls: Callable[[], list[UsageEvent]] | None) -> list[UsageEvent]:
        if self.boundary is not None:
            return self.events[self.boundary:]
        if self._copied_ordinals:
            return []  # every line fed is below the own history's first ordinal
        # No turn marker of the thread's own: the copy is told by its calls.  Copied markers
        # (a parent written by a build that writes them, forked by one that does not) say
        # only that the calls before the last of them are copies; the thread's own turns,
        # unmarked, follow (taking them all for copies lost the fork's own part).
        copied = self._parent_prefix(parent_calls()) if parent_calls is not None else 0
        copied = copied or self._predating() or _leading_burst(self.events)
        return self.events[max(copied, self.copied_floor):]

    def _parent_prefix(self, parent: list[UsageEvent]) -> int:
        """How many leading calls equal the parent's own calls up to the fork."""
        started = self.started
        prefix = [e.counters for e in parent if e.timestamp is None or started is None or e.timestamp <= started]
        matched = 0
        while matched < min(len(prefix), len(self.events)) and self.events[matched].counters == prefix[matched]:
            matched += 1
        return matched

    def _predating(self) -> int:
        """How many leading calls are dated before the thread (copies that kept their time)."""
        if self.started is None:
            return 0
        cutoff = self.started - MARKER_SLACK
        older = 0
        while older < len(self.events) and (self.events[older].timestamp or cutoff) < cutoff:
            older += 1
        return older


def _leading_burst(events: list[UsageEvent]) -> int:
    """How many leading calls were written back to back (a rewritten copy)."""
    if len(events) < 2:
        return 0
    end = 0
    while end + 1 < len(events):
        first, second = events[end].timestamp, events[end + 1].timestamp
        if first is None or second is None or not timedelta(0) <= second - first <= _BURST_GAP:
            break
        end += 1
    return end + 1 if end else 0
