"""Claude Code token counting: the rules peers most often get wrong.

Claude Code writes one record per content block of an API response and
repeats ``message.usage`` on each, sometimes as a growing streaming snapshot;
subagent calls are embedded again in the parent's ``progress`` records and
summarised in ``toolUseResult.usage``.  So (docs/providers/claude.md):

* top-level ``assistant`` records count, and so do the copies of a
  subagent's calls in the parent's ``agent_progress`` records: they are keyed
  like any other copy, so they only count when no subagent transcript holds
  the same call (the subagent file is gone); ``toolUseResult.usage`` never;
* each ``(message.id, requestId)`` counts once across every file, keeping the
  copy with the largest total (keep-first undercounts output: ``dedupe``);
* a record without ``requestId`` is deduplicated by ``message.id`` alone, and is a copy
  of the call its message was made in when the other copies carry exactly one
  ``requestId`` (``dedupe._join_unrequested``, ``sharedcalls.joined_keys``);
* a sidechain replay of a parent message (same ``message.id``, another
  ``requestId``) loses to the parent;
* a record without ``message.id`` cannot be deduplicated and counts as is;
* an advisor's tokens (``usage.iterations`` entries of type ``advisor_message``, left out
  of the top-level counts) are calls of their own, on the advisor's model, keyed by their
  record's key and their place in ``iterations`` (``advisor_calls``); so are a server-side
  compaction's (``compaction`` entries), on the call's own model;
* the hosted web searches a call ran (``usage.server_tool_use.web_search_requests``) are
  no tokens but are billed per search: they travel with their call (``C_WEB_SEARCHES``),
  so the copy kept is the one whose count is priced;
* a call that ran on US-only inference (``usage.inference_geo == "us"``) is billed at 1.1x its
  model's token rates: its model is ``<model> (us-only)`` (``pricing.inferencegeo``);
* a call made in fast mode (``usage.speed == "fast"``, Claude Code 2.1.36 on) is billed at
  other rates: its model is ``<model>-fast`` (``aliases.fast_mode_name``), so it has a price and
  a ``--by model`` row of its own.  ``"standard"``, no ``speed`` (older builds) or anything
  else is the model's standard speed;
* a call on another service tier than the standard one (``usage.service_tier``: ``priority``,
  ``batch``) is priced at the standard rates, as ccusage prices it, and told once a file
  (``valuewarnings.note_tier``): no price list has Anthropic's Priority Tier rates (a capacity
  commitment's), and Claude Code sends no Message Batches request (docs/pricing.md).
"""

from __future__ import annotations

from sys import intern
from typing import Any, Callable

from agentscan.bounds import MAX_TOKEN_COUNT, token_count
from agentscan.model import ORIGIN
from agentscan.pricing.aliases import fast_mode_name
from agentscan.pricing.inferencegeo import US_ONLY_GEO, us_only_name
from agentscan.providers.claude.records import FAST_SPEED, as_dict, as_str
from agentscan.providers.claude.servicetier import STANDARD_TIER, other_tier
from agentscan.toolkit.valuewarnings import counted_field, note_usage, odd_count
from agentscan.timeutil import epoch_of_iso

#: Fields of a *call*: one record's usage as ``tokens`` keeps it, a plain tuple
#: (a heavy user has a million).  ``candidate_from`` builds on it, so the rules
#: below live in ``call_of`` alone.  ``C_CACHE_WRITE_1H`` and ``C_WEB_SEARCHES`` (the
#: call's hosted web searches, ``web_searches``) matter for cost only;
#: ``C_FROM_PROGRESS`` marks a subagent call copied into its parent's progress record;
#: ``C_SESSION_ID`` is the other session a record names, when ``tokens`` reads it in this
#: session's files (a resumed session's file holds its first session's records with that
#: session's id: ``dedupe.packed_entries``' rank), else ``None``.
(MESSAGE_ID, REQUEST_ID, SIDECHAIN, HAS_SPEED, C_INPUT, C_CACHE_READ, C_CACHE_WRITE, C_OUTPUT, C_TS, C_MODEL,
 C_SUBAGENT, C_ORDER, C_CACHE_WRITE_1H, C_WEB_SEARCHES, C_FROM_PROGRESS, C_SESSION_ID) = range(16)
Call = tuple
#: Fields ``dedupe.CallDeduper.winners`` appends to a kept call whose copies were written at different
#: times (Claude Code writes one record per content block of a response, each repeating its
#: usage): the earliest and the latest copy's ``C_TS``.  ``C_TS`` stays the kept copy's, so
#: what ``tokens`` buckets by time does not move.
C_FIRST_TS, C_LAST_TS = C_SESSION_ID + 1, C_SESSION_ID + 2
#: The same two times in a packed entry (``dedupe.packed_entries``), past ``model.ORIGIN`` (then
#: packed as ``None`` when unset): ``otlp`` starts a chat span before its first record and
#: ends it at its last.  Absent when every copy had one time (or the entry is not Claude's).
E_FIRST_TS, E_LAST_TS = ORIGIN + 1, ORIGIN + 2


def _count(value: object, field: str | None = None) -> int:
    # The common cases inline (a count, or no such field); anything odd goes through the one validator,
    # and is told (``field``: a top-level count, which says nothing else of it) once a file
    # (``toolkit.valuewarnings``), as the value it was taken as.
    if type(value) is int and 0 <= value <= MAX_TOKEN_COUNT:  # type: ignore[operator]
        return value  # type: ignore[return-value]
    if value is None:
        return 0
    count = token_count(value)
    if field is not None:
        note_usage(field, value, count)
    return count


#: ``call_of``'s ``epoch`` when its caller has not read the record's time: told apart by
#: identity (``is``), a float so that the parameter stays a ``float | None``
UNREAD = float("nan")


def call_of(record: dict[str, Any], subagent: str | None, order: int, epoch: float | None = UNREAD,
            own: str | None = None, advisors: Advisors | None = None) -> Call | None:
    """The usage ``record`` carries, as a call tuple: a top-level assistant record's,
    or a progress copy's (``progress_call``); ``None`` when it counts nothing.
    ``epoch``: ``epoch_of_iso`` of the record's ``timestamp``, when the caller has it
    already (a row's pass reads every record's time).  ``own``: the session whose files
    are read (``tokens``' pass): a record naming another is a copy (``C_SESSION_ID``).
    ``advisors``: receives the calls of the advisor the call consulted (``advisor_calls``);
    a caller without one counts the main model's call alone.  A value that is no count,
    in the call's usage or its advisor's, is told once a file (``valuewarnings``)."""
    kind = record.get("type")
    if kind == "progress":
        return progress_call(record, order, own, advisors)
    if kind != "assistant":
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    message_id, request_id, model = message.get("id"), record.get("requestId"), message.get("model")
    speed, geo = usage.get("speed"), usage.get("inference_geo")
    tier = usage.get("service_tier")
    if tier != STANDARD_TIER and tier is not None:
        other_tier(tier)
    # ``_count``'s common case (a count) inline, here and below: five calls a call of a cold
    # ``tokens`` and of a huge transcript's row pass.  Odd values are told in the same order.
    value = usage.get("cache_creation_input_tokens")
    cache_write = value if value.__class__ is int and 0 <= value <= MAX_TOKEN_COUNT else _count(
        value, "cache_creation_input_tokens")
    # The one-hour cache's part of the write, read here: this runs once per call of a cold ``tokens``.
    split = usage.get("cache_creation")
    one_hour = _count(split.get("ephemeral_1h_input_tokens"), "cache_creation.ephemeral_1h_input_tokens") if type(split) is dict else 0
    # ``web_searches``, inline for the common cases: no ``server_tool_use`` (builds before
    # about 1.0.9x), or the zero every call that searched nothing records.
    tools = usage.get("server_tool_use")
    if tools is None:
        searches = 0
    elif not (tools.__class__ is dict and (searches := tools.get("web_search_requests", 0)).__class__ is int
              and 0 <= searches <= MAX_TOKEN_COUNT):
        searches = web_searches(tools)
    value = usage.get("input_tokens")
    fresh = value if value.__class__ is int and 0 <= value <= MAX_TOKEN_COUNT else _count(value, "input_tokens")
    value = usage.get("cache_read_input_tokens")
    cache_read = value if value.__class__ is int and 0 <= value <= MAX_TOKEN_COUNT else _count(
        value, "cache_read_input_tokens")
    value = usage.get("output_tokens")
    output = value if value.__class__ is int and 0 <= value <= MAX_TOKEN_COUNT else _count(value, "output_tokens")
    call = (
        message_id if isinstance(message_id, str) and message_id else None,
        request_id if isinstance(request_id, str) and request_id else None,
        record.get("isSidechain") is True,
        speed is not None,
        fresh,
        cache_read,
        cache_write,
        output,
        epoch_of_iso(record.get("timestamp")) if epoch is UNREAD else epoch,
        # One string per model, not per call; a fast-mode or US-only call's (rare) on a model of its own.
        (intern(model) if speed != FAST_SPEED and geo != US_ONLY_GEO else priced_model(model, speed, geo))
        if isinstance(model, str) and model else None,
        subagent,
        order,
        one_hour if one_hour < cache_write else cache_write,
        searches,
        False,
        # ``_copied_from``, inline (this runs once per call of a cold ``tokens``): the common
        # case, a record of this session, is one lookup and one comparison.
        None if own is None or (named := record.get("sessionId")) == own else _copied_from(named),
    )
    # A lookup or two for a call that consulted no advisor (most: no ``iterations``, none, or
    # the main model's one part, in the counts above): this runs once per call of a cold ``tokens``.
    # An advisor is consulted by a main model's part, so its entry is never the only one; a
    # compaction's is, in a response that stopped after it (``stop_reason: "compaction"``).
    if advisors is not None and (iterations := usage.get("iterations")) is not None and (
            iterations.__class__ is not list or len(iterations) > 1 or (
                len(iterations) == 1 and iterations[0].__class__ is dict
                and iterations[0].get("type") == COMPACTION)):
        advisor_calls(iterations, call, record, advisors)
    return call


def priced_model(model: str, speed: object, geo: object) -> str:
    """The model a call of ``model`` is priced and grouped as (interned): at its ``usage.speed``
    (fast mode: ``<model>-fast``) and where it ran (``usage.inference_geo`` ``"us"``: ``<model>
    (us-only)``, billed 1.1x: ``pricing.inferencegeo``)."""
    name = fast_mode_name(model) if speed == FAST_SPEED else model
    return us_only_name(name) if geo == US_ONLY_GEO else intern(name)


def web_searches(tools: object, prefix: str = "") -> int:
    """The hosted web searches a ``usage.server_tool_use`` object counts (``web_search_requests``;
    ``web_fetch_requests`` beside it is free).  Anything but a whole number of them counts
    0 (a huge one ``MAX_TOKEN_COUNT``'s bounds make 0 too), told once a file as any usage
    value that is no count (``valuewarnings``; ``prefix``: where the object was, an advisor's
    ``iterations`` entry), an object that is no object too."""
    if tools.__class__ is not dict:
        note_usage(prefix + "server_tool_use", tools, 0)
        return 0
    value = tools.get("web_search_requests")  # type: ignore[attr-defined]
    count = _count(value)
    if value is not None and odd_count(value, count):
        note_usage(prefix + "server_tool_use.web_search_requests", value, count)
    return count


def _copied_from(named: object) -> str | None:
    """The other session a record of a session's files names (``named``, not that session's
    id: a resumed session's copy of its first session's record), else ``None``."""
    if named.__class__ is not str or not named:
        return None
    return intern(named)  # type: ignore[arg-type]  # one string per session named, not per copied call


def progress_call(record: dict[str, Any], order: int, own: str | None = None,
                  advisors: Advisors | None = None) -> Call | None:
    """A subagent's API call as the parent's ``agent_progress`` record copied it.

    ``data.message`` is the subagent's whole assistant record (``message.id``,
    ``usage``, ``requestId``); ``data.agentId`` names the subagent it belongs
    to.  A copy without ``agentId`` cannot be attributed and is not counted.
    """
    data = as_dict(record.get("data"))
    agent_id = as_str(data.get("agentId"))
    copied = as_dict(data.get("message"))
    if agent_id is None or copied.get("type") != "assistant":
        return None
    before = len(advisors) if advisors is not None else 0
    call = call_of(copied, agent_id, order, UNREAD, None, advisors)
    if call is None:
        return None
    # A subagent call is a sidechain call whatever the copy says, so a replay
    # of a parent message still loses to the parent (rule 4).
    ts = call[C_TS] if call[C_TS] is not None else epoch_of_iso(record.get("timestamp"))
    # The progress record's own session (the subagent's copied record names its parent's too).
    named = record.get("sessionId")
    named = None if own is None or named == own else _copied_from(named)
    if advisors is not None:  # (its advisor's calls are copies alike)
        for index in range(before, len(advisors)):
            found = advisors[index]
            if found.__class__ is tuple:
                advisors[index] = _as_progress_copy(found, ts, named)
    return _as_progress_copy(call, ts, named)


def _as_progress_copy(call: Call, ts: float | None, named: str | None) -> Call:
    return (*call[:SIDECHAIN], True, *call[SIDECHAIN + 1:C_TS], ts, *call[C_TS + 1:C_FROM_PROGRESS], True, named)


#: an ``iterations`` entry of an advisor's own call; ``message`` (the main model's parts, in
#: the top-level counts already) and ``fallback_message`` (not billed) entries never count.
#: An advisor runs no tools: its call carries no web searches unless its entry has a
#: ``server_tool_use`` of its own (none seen yet: read as the top level's would be).
ADVISOR_MESSAGE = "advisor_message"
#: an ``iterations`` entry of the API's server-side compaction (``compact_20260112`` /
#: ``compact-2026-09-04`` betas): the sampling step that summarised the context within the same
#: request, billed, and left out of the top-level counts as an advisor's are (Anthropic's
#: "Compaction at a token threshold" docs: the top level is the ``message`` iteration's alone).
#: It runs on the request's own model and speed; no ``model`` of its own in the API's examples.
COMPACTION = "compaction"
_ADVISOR_COUNTS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")


class Advisors(list):
    """The advisor calls ``call_of`` found that one call consulted.  One is made for a whole
    pass; after each call, ``if advisors:`` (a list's length: empty for almost every call),
    the pass takes them with ``drain``.  (What was wrong with its ``iterations`` is told as
    any usage value that is no count: ``valuewarnings``.)"""

    __slots__ = ()

    def drain(self, add: Callable[[Call], object]) -> None:
        """Hand each call found to ``add``; emptied."""
        for found in self:
            add(found)
        self.clear()


def advisor_calls(iterations: object, call: Call, record: dict[str, Any], advisors: Advisors) -> None:
    """The advisor calls of the main ``call`` (of ``record``), from its ``usage.iterations``,
    added to ``advisors``.  Claude Code (2.1.219 on) records an advisor's tokens only there,
    left out of the top-level counts (which are the main model's): each ``advisor_message``
    entry is a call of its own, on its own ``model`` (else the record's ``advisorModel``),
    keyed as its record with its place in ``iterations`` (``#advisor<n>`` after the message
    id), so that every copy of the record counts it once, by the rules of any call.  Its speed
    is its entry's own ``speed`` (no such field: standard), never the main call's.  What is
    malformed counts nothing, is told once a file as any usage value that is no count
    (``valuewarnings``: ``iterations``, or ``iterations[<n>]`` and its field, counted as 0)
    and never changes the main call.  A ``compaction`` entry (the API's server-side
    compaction, ``COMPACTION``) is such a call too, on the record's own model and speed
    (``#compaction<n>``)."""
    if iterations.__class__ is not list:
        note_usage("iterations", iterations, 0)
        return
    request = as_dict(record.get("message"))
    usage = as_dict(request.get("usage"))  # (the request's: its model, speed and place)
    for index, entry in enumerate(iterations):  # type: ignore[arg-type]
        if entry.__class__ is not dict:
            note_usage(f"iterations[{index}]", entry, 0)
            continue
        kind = entry.get("type")
        if kind != ADVISOR_MESSAGE and kind != COMPACTION:
            continue
        where = f"iterations[{index}]."
        counts = [counted_field(entry, field, _count, where) for field in _ADVISOR_COUNTS]
        split = entry.get("cache_creation")
        one_hour = (_count(split.get("ephemeral_1h_input_tokens"), where + "cache_creation.ephemeral_1h_input_tokens")
                    if type(split) is dict else 0)
        tools = entry.get("server_tool_use")
        searches = 0 if tools is None else web_searches(tools, where)
        model = entry.get("model")
        speed = entry.get("speed")
        if kind == COMPACTION:  # (the request's own model and speed, unless the entry names its own)
            if not (isinstance(model, str) and model):
                model = request.get("model")
            if "speed" not in entry:
                speed = usage.get("speed")
        elif not (isinstance(model, str) and model):
            model = record.get("advisorModel")
        # Where it ran: its entry's own ``inference_geo``, else the request's (one request, one place).
        geo = entry["inference_geo"] if "inference_geo" in entry else usage.get("inference_geo")
        model = priced_model(model, speed, geo) if isinstance(model, str) and model else None
        message_id = call[MESSAGE_ID]
        advisors.append((
            None if message_id is None else f"{message_id}#{'advisor' if kind == ADVISOR_MESSAGE else kind}{index}",
            *call[REQUEST_ID:C_INPUT], *counts, call[C_TS], model,
            *call[C_SUBAGENT:C_CACHE_WRITE_1H], min(one_hour, counts[2]), searches, *call[C_FROM_PROGRESS:],
        ))


def meta_agent_type(meta: object) -> str | None:
    return as_str(as_dict(meta).get("agentType"))
