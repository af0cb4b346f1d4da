"""Which sessions a time window (``tokens --since 7d``) needs the sums of.

A window is never remembered (``--since 7d`` moves), and decoding every session's
stored sums to use the few of last week costs more the longer the history (the
provider's snapshot, ``collect._load_snapshot``, holds them all).  So beside that
snapshot, at the same stamp, the index keeps each session's span: the first and
last quarter hour its calls were made in, and whether it recorded any call or said
anything (a warning).  A windowed report reads the sums of only the sessions whose
span meets the window, and of those it cannot leave out:

- those that recorded no call, or whose reading said something: they are named
  under the table (``scan.unrecorded``), or their warnings said, as before;
- those whose calls may be shared with another session's (the provider's
  remembered ``shared:`` answer at the same stamp): merged as before, so the copy
  that counts is the same one.
- those with a call that recorded no time: in no window, but the report says how
  many it left out (``scan.untimed``), on every run alike.

The spans are kept by a windowed run that read every session from the provider's
snapshot (the census held still since the run before): a census an agent at work changes
on every run reads every session, as before, and pays for no spans.

A session left out recorded calls, every one outside the window: it adds nothing
to any row and is not one that recorded nothing, which the report still knows
(``ProviderUsage.outside``: a total of 0, not ``null``; not named under the table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import orjson

from agentscan.scan.cache import decode_json
from agentscan.sealing import seal, unseal_json
from agentscan.usagegroups import BUCKET

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.cache import Cache
    from agentscan.scan.sessionsums import SessionSums

#: a session's flags in the stored spans; UNTIMED: some of its calls recorded no time, which
#: a window counts (``scan.untimed``), so the session is read whatever its span
RECORDED, SAID, UNTIMED = 1, 2, 4


def spans_key(provider: str) -> str:
    return f"spans2:{provider}"  # (2: spans kept before UNTIMED lack it)


def pick(cache: Cache, provider: str, stamp: str, pairs: list[tuple[SessionRef, str]],
         low: float | None, high: float | None
         ) -> tuple[list[tuple[SessionRef, str]], set[str], set[str]] | None:
    """The pairs whose sums the window needs, the native ids of those left out, and the ids
    of those that share calls (the remembered answer taken: another agentscan may replace it
    meanwhile); ``None``: the index cannot tell at this stamp (read them all, as before)."""
    document = unseal_json(cache.get_snapshot(spans_key(provider), stamp))  # sealed: a flipped bit is a miss
    remembered = decode_json(cache.get_meta(f"shared:{provider}")) if len(pairs) > 1 else {"stamp": stamp, "ids": []}
    if not isinstance(remembered, dict) or remembered.get("stamp") != stamp or not isinstance(remembered.get("ids"), list):
        return None  # which sessions share calls is not known at this stamp (``collect._shared``)
    try:
        ids, firsts, lasts, flags = document
        if not len(ids) == len(firsts) == len(lasts) == len(flags) == len(pairs):
            return None
        shared = {item for item in remembered["ids"] if isinstance(item, str)}
        wanted: set[str] = set()
        for ref_id, first, last, flag in zip(ids, firsts, lasts, flags):
            # (A session with a call that has no time is read too: a window names those calls.)
            if (ref_id in shared or flag != RECORDED or first is None
                    or ((high is None or first < high) and (low is None or last + BUCKET > low))):
                wanted.add(ref_id)
    except (TypeError, ValueError):
        return None
    picked = [(ref, ref_id) for ref, ref_id in pairs if ref_id in wanted]
    return picked, {ref.native_id for ref, ref_id in pairs if ref_id not in wanted}, shared


def store(cache: Cache, provider: str, stamp: str, pairs: list[tuple[SessionRef, str]],
          sums: Mapping[str, SessionSums]) -> None:
    """Keep the spans of ``pairs`` (every session of the provider) at ``stamp``."""
    ids: list[str] = []
    firsts: list[int | None] = []
    lasts: list[int | None] = []
    flags: list[int] = []
    for _, ref_id in pairs:
        found = sums.get(ref_id)
        if found is None or found.passing:
            return  # not every session's sums are known for good: no spans at this stamp
        buckets = [group[2] for group in found.groups if group[2] is not None]
        ids.append(ref_id)
        firsts.append(min(buckets) if buckets else None)
        lasts.append(max(buckets) if buckets else None)
        flags.append((RECORDED if found.groups else 0) | (SAID if found.warnings else 0)
                     | (UNTIMED if len(buckets) < len(found.groups) else 0))
    cache.put_snapshot(spans_key(provider), stamp, seal(orjson.dumps([ids, firsts, lasts, flags])))
