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
snapshot (the census held still since the run before), each beside its session's
fingerprint.  When the census moved since (an agent at work grew a session), the spans of
the sessions that did not change still answer: the changed ones are read, and which
sessions share calls is found again from every session's key hashes once they are
(``collect.Collector``: a session that now meets a changed one's calls is read too).

A session left out recorded calls, every one outside the window: it adds nothing
to any row and is not one that recorded nothing, which the report still knows
(``ProviderUsage.outside``: a total of 0, not ``null``; not named under the table).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple, Sequence

import orjson

from agentscan.scan import sharedmemo
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
    # (2: spans kept before UNTIMED lack it; 3: each span beside its session's fingerprint)
    return f"spans3:{provider}"


class Picked(NamedTuple):
    """``pick``'s answer.  ``shared``: the ids of the sessions that share calls, remembered at
    this stamp; ``None``: the census moved since, and it is to be found again (``changed``:
    the ids of the sessions not as their spans were kept, all in ``pairs``)."""

    pairs: list[tuple[SessionRef, str]]
    outside: set[str]
    shared: set[str] | None
    changed: set[str]
    #: id -> (fingerprint, first, last, flags), as kept
    spans: dict[str, tuple]


class Chosen(NamedTuple):
    """``choose``'s answer: the ids whose sums the window needs, those of the sessions that share
    calls (``None``: found again, ``Picked``), those changed since their spans, and the spans."""

    wanted: set[str]
    shared: set[str] | None
    changed: set[str]
    spans: dict[str, tuple]


def pick(cache: Cache, provider: str, stamp: str, pairs: list[tuple[SessionRef, str]],
         fingerprints: Mapping[str, str | None], low: float | None, high: float | None) -> Picked | None:
    """The pairs whose sums the window needs, the native ids of those left out, and the ids
    of those that share calls (``choose``); ``None``: the index cannot tell (read them all, as before)."""
    chosen = choose(cache, provider, stamp, [ref_id for _, ref_id in pairs], fingerprints, low, high)
    if chosen is None:
        return None
    wanted = chosen.wanted
    picked = [(ref, ref_id) for ref, ref_id in pairs if ref_id in wanted]
    return Picked(picked, {ref.native_id for ref, ref_id in pairs if ref_id not in wanted}, chosen.shared,
                  chosen.changed, chosen.spans)


def choose(cache: Cache, provider: str, stamp: str, ids: Sequence[str], fingerprints: Mapping[str, str | None],
           low: float | None, high: float | None) -> Chosen | None:
    """Which of the provider's sessions ``ids`` (every one of them, at ``stamp``) the window
    needs the sums of, and the ids of those that share calls (the remembered answer taken:
    another agentscan may replace it meanwhile); ``None``: the index cannot tell.  A session
    whose fingerprint is not its span's (changed since, or new) is read."""
    latest = cache.latest_snapshot(spans_key(provider))
    document: Any = unseal_json(latest[1]) if latest is not None else None  # sealed: a flipped bit is a miss
    shared = sharedmemo.remembered(cache, sharedmemo.provider_key(provider), stamp) if len(ids) > 1 else set()
    try:
        kept_ids, prints, firsts, lasts, flags = document
        if not len(kept_ids) == len(prints) == len(firsts) == len(lasts) == len(flags):
            return None
        spans: dict[str, tuple] = {}
        kept: Iterable[tuple]
        same = kept_ids == ids or (len(kept_ids) == len(ids) and set(kept_ids) == set(ids))
        if shared is not None and same and prints == [fingerprints.get(ref_id) for ref_id in kept_ids]:
            # Kept at these very sessions (the census held still): each span is the session's,
            # and none is kept for a settling (``Picked.spans``).  In their own order: kept in
            # the session list's, asked in discovery's by ``windowrefs`` (which took it never).
            kept = zip(kept_ids, firsts, lasts, flags)
            changed: set[str] = set()
        else:
            spans = {ref_id: (fingerprint, first, last, flag)
                     for ref_id, fingerprint, first, last, flag in zip(kept_ids, prints, firsts, lasts, flags)}
            changed = {ref_id for ref_id in ids if (span := spans.get(ref_id)) is None or span[0] != fingerprints.get(ref_id)}
            kept = ((ref_id, *spans[ref_id][1:]) for ref_id in ids if ref_id not in changed)
        # (A session with a call that has no time is read too: a window names those calls.)
        wanted = {ref_id for ref_id, first, last, flag in kept
                  if (shared is not None and ref_id in shared) or flag != RECORDED or first is None
                  or ((high is None or first < high) and (low is None or last + BUCKET > low))}
    except (TypeError, ValueError):
        return None
    return Chosen(wanted | changed, shared, changed, spans)


def store(cache: Cache, provider: str, stamp: str, pairs: list[tuple[SessionRef, str]],
          sums: Mapping[str, SessionSums], fingerprints: Mapping[str, str | None],
          kept: Mapping[str, tuple] | None = None) -> None:
    """Keep the spans of ``pairs`` (every session of the provider) at ``stamp``: from their
    ``sums``, else as ``kept`` (``Picked.spans``: those a window left unread)."""
    kept = kept or {}
    ids: list[str] = []
    prints: list[str | None] = []
    firsts: list[int | None] = []
    lasts: list[int | None] = []
    flags: list[int] = []
    for _, ref_id in pairs:
        found = sums.get(ref_id)
        span = kept.get(ref_id) if found is None else None
        if span is not None:  # not read: as kept, at the same fingerprint (``pick``)
            ids.append(ref_id)
            prints.append(span[0])
            firsts.append(span[1])
            lasts.append(span[2])
            flags.append(span[3])
            continue
        if found is None or found.passing:
            return  # not every session's sums are known for good: no spans at this stamp
        buckets = [group[2] for group in found.groups if group[2] is not None]
        ids.append(ref_id)
        prints.append(fingerprints.get(ref_id))
        firsts.append(min(buckets) if buckets else None)
        lasts.append(max(buckets) if buckets else None)
        flags.append((RECORDED if found.groups else 0) | (SAID if found.said else 0)
                     | (UNTIMED if len(buckets) < len(found.groups) else 0))
    cache.put_snapshot(spans_key(provider), stamp, seal(orjson.dumps([ids, prints, firsts, lasts, flags])))
