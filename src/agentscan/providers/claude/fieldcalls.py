"""A cold ``tokens``' Claude calls decoded fields-only: ``msgspec`` builds the dozen fields
``usage.call_of`` reads of an assistant record and skips the rest of the line unbuilt (its
text, thinking and tool input: most of its bytes), where ``orjson`` built every string.

Only the common call takes this path (``fast_record``): an ``assistant`` record whose
counts are plain counts, with no advisor or compaction in ``usage.iterations``.  Anything
else (a progress copy, an odd value to be told, a line msgspec refuses, a line that is not
ASCII and not UTF-8 either) returns ``None``, and the line is decoded by ``orjson`` and read by
``call_of`` as before: the same calls, warnings and values told.  ``fast_call`` is
``call_of``'s rule for the records ``fast_record`` takes (``tests/test_field_calls_pass59.py``
keeps them equal on every fixture line).

Measured (pass 59, scale 1's 65,312 usage lines, one process): decode and ``call_of``
0.29 CPU-s with ``orjson``, 0.17 so; ``import msgspec`` costs each worker ≈ 0.01 s.  Imported
by ``filescan.scan_file`` alone, so that ``--help`` and ``list`` never load msgspec.

One difference is left, measured too dear to guard: a number beyond a float's range
(``1e400``) in a field no count reads is skipped by msgspec, where orjson refuses the whole
line ("invalid JSON skipped"); such a line counts, as ``JSON.parse`` (ccusage) counts it.
No JSON writer Claude Code uses writes one (``JSON.stringify`` writes ``null``).
"""

from __future__ import annotations

from sys import intern
from typing import Any

import msgspec

from agentscan.bounds import MAX_TOKEN_COUNT
from agentscan.pricing.inferencegeo import US_ONLY_GEO
from agentscan.providers.claude.records import FAST_SPEED
from agentscan.providers.claude.usage import COMPACTION, STANDARD_TIER, Call, copied_from, other_tier, priced_model
from agentscan.timeutil import epoch_of_iso


# Loose types (``Any``) for every scalar a real file writes in more than one shape (a count
# as ``null``, a model as a number): the value is then what orjson makes of it, and the rules
# below decide.  Objects the rule walks into are Structs: another shape there is refused by
# the decoder (``ValidationError``), and the line goes the ``orjson`` way.
class _Usage(msgspec.Struct):
    input_tokens: Any = None
    cache_creation_input_tokens: Any = None
    cache_read_input_tokens: Any = None
    output_tokens: Any = None
    service_tier: Any = None
    speed: Any = None
    inference_geo: Any = None
    cache_creation: Any = None
    server_tool_use: Any = None
    iterations: Any = None


class _Message(msgspec.Struct):
    id: Any = None
    model: Any = None
    usage: _Usage | None = None


class Record(msgspec.Struct):
    """The fields of an assistant record ``fast_call`` reads."""

    type: Any = None
    message: _Message | None = None
    requestId: Any = None
    isSidechain: Any = None
    timestamp: Any = None
    sessionId: Any = None


_decode = msgspec.json.Decoder(Record).decode
#: msgspec's refusals (``ValidationError`` is a ``DecodeError``), and nesting deeper than the
#: interpreter's recursion allows (orjson refuses past 1,024 levels: the ``orjson`` way says so)
_REFUSED = (msgspec.DecodeError, RecursionError)


def _plain(value: object) -> bool:
    return value.__class__ is int and 0 <= value <= MAX_TOKEN_COUNT  # type: ignore[operator]


def fast_record(line: bytes) -> Record | None:
    """``line`` decoded fields-only when ``fast_call`` reads it as ``call_of`` reads its
    ``orjson`` record, else ``None`` (decode it with ``orjson``)."""
    if not line.isascii():
        # msgspec skips the strings it does not build without checking their bytes; orjson
        # refuses bytes that are not UTF-8 (``laxjson`` reads them, and says so)
        try:
            line.decode()
        except UnicodeDecodeError:
            return None
    try:
        record = _decode(line)
    except _REFUSED:
        return None
    message = record.message
    if record.type != "assistant" or message is None:
        return None
    usage = message.usage
    if usage is None or not (_plain(usage.input_tokens) and _plain(usage.output_tokens)
                             and _plain(usage.cache_read_input_tokens) and _plain(usage.cache_creation_input_tokens)):
        return None  # (a value to be told: ``call_of`` tells it)
    split = usage.cache_creation
    if split is not None and not (split.__class__ is dict and (
            (hour := split.get("ephemeral_1h_input_tokens")) is None or _plain(hour))):
        return None
    tools = usage.server_tool_use
    if tools is not None and not (tools.__class__ is dict and _plain(tools.get("web_search_requests", 0))):
        return None
    iterations = usage.iterations
    if iterations is not None and (iterations.__class__ is not list or len(iterations) > 1 or (
            len(iterations) == 1 and iterations[0].__class__ is dict and iterations[0].get("type") == COMPACTION)):
        return None  # an advisor's or a compaction's calls (``usage.advisor_calls``), or a value to be told
    if record.timestamp.__class__ is not str:
        return None
    return record


def fast_call(record: Record, subagent: str | None, order: int, own: str | None) -> Call:
    """``usage.call_of(record, subagent, order, UNREAD, own, advisors)`` of a record
    ``fast_record`` took: the same tuple, the same service tier told."""
    message: _Message = record.message  # type: ignore[assignment]
    usage: _Usage = message.usage  # type: ignore[assignment]
    message_id, request_id, model = message.id, record.requestId, message.model
    speed, geo = usage.speed, usage.inference_geo
    tier = usage.service_tier
    if tier != STANDARD_TIER and tier is not None:
        other_tier(tier)
    cache_write = usage.cache_creation_input_tokens
    split = usage.cache_creation
    one_hour = split.get("ephemeral_1h_input_tokens") or 0 if split is not None else 0
    tools = usage.server_tool_use
    return (
        message_id if isinstance(message_id, str) and message_id else None,
        request_id if isinstance(request_id, str) and request_id else None,
        record.isSidechain is True,
        speed is not None,
        usage.input_tokens,
        usage.cache_read_input_tokens,
        cache_write,
        usage.output_tokens,
        epoch_of_iso(record.timestamp),
        (intern(model) if speed != FAST_SPEED and geo != US_ONLY_GEO else priced_model(model, speed, geo))
        if isinstance(model, str) and model else None,
        subagent,
        order,
        one_hour if one_hour < cache_write else cache_write,
        0 if tools is None else tools.get("web_search_requests", 0),
        False,
        None if own is None or (named := record.sessionId) == own else copied_from(named),
    )
