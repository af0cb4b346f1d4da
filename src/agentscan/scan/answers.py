"""Whole answers remembered while every input they were computed from is unchanged.

``tokens --json`` over a heavy user's history adds up 15,000 sessions' sums
and prices each one: work whose result cannot differ while no file under
any selected provider's roots changed (the census, ``scan.census``), the
price data is the same, and the question (its options) is the same.  The
answer is stored in the index with those as its key; a run that finds the
same key prints it again, warnings included.  Any change is a miss, and
the answer is computed as usual (and stored again).

The key is worked out *before* the answer is computed, so a file that
changes while a run reads it makes the stored answer unreachable rather
than stale.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Any, Mapping

import orjson

from agentscan.model import ScanWarning
from agentscan.sealing import sealed_parts, unseal
from agentscan.digests import blake2b

if TYPE_CHECKING:
    from agentscan.context import Captured
    from agentscan.scan.scanner import Scanner

_FORMAT = 1


def answer_key(scanner: Scanner, command: str, question: Mapping[str, Any], providers: list[str], *,
               witnesses: bool = False) -> str | None:
    """What the answer depends on, as one digest (``None``: do not remember it).
    ``witnesses``: the answer shows facts other providers reveal (a Gemini session's
    project): every provider's census counts, not just the selected ones'."""
    if scanner.cache is None:
        return None
    stamps = []
    stamped = scanner.witnesses if witnesses else scanner.selected(providers)
    scanner.take_censuses(stamped)
    for provider in stamped:
        stamp = scanner.census_stamp(provider)
        if stamp is None or not stamp.settled:  # a file changed just now may change again unseen
            return None
        stamps.append(f"{provider.name}={stamp.value}")
    asked = question_identity(scanner, command, question)
    if asked is None:
        return None
    text = "\n".join([asked, *stamps])
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def question_identity(scanner: Scanner, command: str, question: Mapping[str, Any]) -> str | None:
    """The code, the price data and the question (``None``: it cannot be told): what an
    answer depends on besides the files (``scan.answerpatch`` keeps a whole answer by it)."""
    from agentscan.codeid import code_identity

    prices = price_identity(scanner)
    if prices is None:
        return None
    try:
        asked = orjson.dumps(dict(question), option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return None
    text = "\n".join([code_identity(), str(_FORMAT), command, asked, prices])
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def price_identity(scanner: Scanner) -> str | None:
    """The price data costs are computed from: everything an answer prints about it,
    and the fetched file itself (``None``: it cannot be told).  Once per scan: a
    ``tokens`` run asks for its answer's key and again for its kept rows."""
    memo = scanner.ctx.memo
    if _PRICES not in memo:
        memo[_PRICES] = _price_identity(scanner)
    return memo[_PRICES]


_PRICES = "answers.price_identity"


def _price_identity(scanner: Scanner) -> str | None:
    from agentscan.pricing import source

    data = source.current(scanner.ctx.env)
    prices = orjson.dumps(data.to_json(), option=orjson.OPT_SORT_KEYS).decode()
    if data.path is not None:
        try:
            info = data.path.stat()
        except OSError:
            return None
        prices += f"\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}"
    return prices


def zone_identity(zone: tzinfo | None) -> str:
    """A zone for the key: an IANA name, or what makes up the local zone (``None``)."""
    if zone is not None:
        return str(zone)
    import os
    import time

    return f"local:{os.environ.get('TZ')}:{time.tzname}:{time.timezone}:{time.altzone}"


def _slot(command: str, question: Mapping[str, Any]) -> str:
    # One stored answer per command and grouping: bounded, and a user who asks
    # for --by day and --by session in turn keeps both.
    return f"answer:{command}:{question.get('by', '')}"


def recall(scanner: Scanner, command: str, question: Mapping[str, Any], key: str | None) -> bytes | None:
    """The stored answer, as the bytes it was printed as (``remember``), its warnings said
    again on the scanner; ``None``: not stored."""
    if key is None or scanner.cache is None:
        return None
    payload = unseal(scanner.cache.get_snapshot(_slot(command, question), key))
    if payload is None:
        return None
    try:
        split = payload.index(b"\n")
        warnings = orjson.loads(payload[:split])
        said = [ScanWarning(w["path"], w["message"], w.get("line")) for w in warnings]
    except (ValueError, KeyError, TypeError):  # orjson.JSONDecodeError is a ValueError
        return None
    for warning in said:
        scanner.ctx.warn(warning.path, warning.message, warning.line)
    return payload[split + 1:]


def remember(scanner: Scanner, command: str, question: Mapping[str, Any], key: str | None,
             answer: bytes, warnings: Captured) -> None:
    """Keep ``answer`` (what was printed) under ``key``; ``warnings``: every warning its
    computation raised, as ``ScanContext.warnings.capture(MAX_WARNINGS)`` caught them (said
    again on recall, they fold into the same list)."""
    # Something not read this time (``ScanContext.warn(passing=True)``) must be read next time.
    if key is None or scanner.cache is None or warnings.overflowed or warnings.passing:
        return
    try:
        said = orjson.dumps([w.to_json() for w in warnings])  # the warnings on one line
    except TypeError:
        return  # something that JSON cannot hold: not worth remembering
    scanner.cache.put_snapshot_parts(_slot(command, question), key, sealed_parts([said, b"\n", answer]))
    scanner.cache.commit()
