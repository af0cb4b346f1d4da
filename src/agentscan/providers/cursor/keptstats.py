"""A composer's bubble stats kept in the index under a digest of the rows they come from.

Cursor writes ``state.vscdb`` whenever it runs (UI state, checkpoints, the composer in
use), and a Cursor session's fingerprint holds the file's stat: after any write every
Cursor row and sum is built again.  Building them is mostly decoding every bubble's JSON:
a ``tokens`` on a 677 MB database took 4 to 8 s while Cursor was open.

A composer's stats (``BubbleStats``: tokens, counts, times, models) come from its
``composerData`` value and its ``bubbleId:<id>:*`` rows only.  So they are kept, with
the warnings their build said, under a SHA-1 of exactly those bytes; a later build
hashes the rows (no JSON) and takes the kept stats when the digest is the same.  Every
byte is hashed: a row's ``rowid`` alone would miss a plain ``UPDATE``.  Only a build
that read everything is kept (a lock, a failed read: nothing).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import os

import orjson

from agentscan.context import say
from agentscan.model import TokenUsage
from agentscan.providers.cursor.composer import BubbleStats, BubbleUsage
from agentscan.providers.cursor.records import valid_composer_id
from agentscan.sealing import seal, unseal_json
from agentscan.toldwarnings import Told, told_from_json, told_json
from agentscan.toolkit.sqlite_ro import wal_of

if TYPE_CHECKING:
    from agentscan.providers.cursor.statedb import StateDb

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
KIND = "cursor.bubble_stats"
#: the kept document's shape; with the code's identity (``kept_version``): stats another
#: build of agentscan counted are not taken (3: its warnings as ``toldwarnings`` keeps them)
VERSION = "3"


def kept_stats(db: StateDb, composer_id: str) -> BubbleStats:
    """``composer_id``'s stats: the kept ones when its rows are unchanged, else built (and kept)."""
    ctx = db.ctx
    cache = ctx.file_cache
    key = f"{db.path}\0{composer_id}"  # the index's path column: this composer of this DB
    stored = cache.get_file(key, KIND) if cache is not None else None
    if stored is not None and stored[2] == kept_version() and stored[3] == rows_digest(db, composer_id):
        found = _decoded(unseal_json(stored[5]))
        if found is not None:
            stats, said = found
            say(ctx, said)
            return stats
    if not keeps(db, stored):
        return db.build_stats(composer_id)
    digest = new_digest()
    with ctx.held_warnings() as held:
        stats = db.build_stats(composer_id, digest)
    say(ctx, held.said)
    if not db.failed and not any(passing for *_, passing in held.said):
        document = {"stats": _encoded(stats), "said": told_json(held.said)}
        cache.put_file(key, KIND, 0, 0, kept_version(), digest.hexdigest(), 0, seal(orjson.dumps(document)))
    return stats


def kept_version() -> str:
    from agentscan.codeid import code_identity

    return f"{VERSION}:{code_identity()}"


def keeps(db: StateDb, stored: object) -> bool:
    """Whether what is read now is kept (and so hashed): with an index open, and something kept
    already or Cursor running (its ``-wal`` is there); a database no one writes is found
    unchanged by the next run anyway, and hashing it would only cost."""
    if db.ctx.file_cache is None:  # nowhere to keep it (``--no-cache``)
        return False
    return stored is not None or os.path.exists(wal_of(db.path))


def rows_digest(db: StateDb, composer_id: str) -> str | None:
    """The digest ``build_stats`` takes of what it reads, without decoding it."""
    digest = new_digest()
    add_composer(digest, db.composer_bytes(composer_id))
    if valid_composer_id(composer_id) is not None:  # as ``iter_bubbles`` reads them
        for key, value in db.iter_raw(f"bubbleId:{composer_id}:"):
            add_row(digest, key, value)
    return None if db.failed else digest.hexdigest()


def new_digest() -> Any:
    # SHA-1 (for speed: 0.33 s for 514 MB of bubbles here, BLAKE2b 0.70 s; no attacker
    # chooses these bytes), imported here: ``hashlib`` loads OpenSSL, 3 ms of a start
    # that may never build a composer's stats (``digests``).
    import hashlib

    return hashlib.sha1(usedforsecurity=False)


def add_composer(digest: Any, value: object) -> None:
    tag, data = _typed(value)
    digest.update(b"composer %c %d\0" % (tag, len(data)) + data)


def add_row(digest: Any, key: object, value: object) -> None:
    if type(value) is bytes:  # Cursor's rows: one ``update`` for the frame, one for the bytes
        digest.update(b"b %d %s\0" % (len(value), str(key).encode("utf-8", "surrogatepass")))
        digest.update(value)
        return
    tag, data = _typed(value)
    digest.update(b"%c %d %s\0" % (tag, len(data), str(key).encode("utf-8", "surrogatepass")) + data)


def _typed(value: object) -> tuple[int, bytes]:
    """A value's type (what it decodes as: TEXT ``'None'`` is invalid JSON, NULL nothing)
    and its bytes: where one row ends and the next begins, whatever they hold."""
    if value is None:
        return ord("n"), b""
    if isinstance(value, str):
        return ord("t"), value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ord("b"), bytes(value)
    return ord("o"), repr(value).encode()  # a number: still part of what was read


def _encoded(stats: BubbleStats) -> dict[str, Any]:
    return {
        "usage": [[item.bubble_id, item.tokens.input, item.tokens.output, _when(item.timestamp), item.model]
                  for item in stats.usage],
        "counts": [stats.bubbles, stats.prompts, stats.responses, stats.tool_calls],
        "times": [_when(stats.first_ts), _when(stats.last_ts)],
        "models": dict(stats.models),
        "requests": list(stats.requests),
    }


def _decoded(document: Any) -> tuple[BubbleStats, list[Told]] | None:
    """The kept stats and warnings; ``None`` for anything not of the shape ``_encoded`` writes."""
    try:
        kept = document["stats"]
        stats = BubbleStats()
        stats.usage = [BubbleUsage(bubble_id, TokenUsage(input=tokens_in, output=tokens_out), _time(when), model)
                       for bubble_id, tokens_in, tokens_out, when, model in kept["usage"]]
        stats.bubbles, stats.prompts, stats.responses, stats.tool_calls = (int(n) for n in kept["counts"])
        stats.first_ts, stats.last_ts = (_time(when) for when in kept["times"])
        stats.models = Counter({str(name): int(n) for name, n in kept["models"].items()})
        stats.requests = dict.fromkeys(map(str, kept["requests"]))
        said = told_from_json(document["said"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return stats, said


def _when(value: datetime | None) -> list[int | None] | None:
    """``[microseconds since the epoch, UTC offset in seconds]``: exact, and cheaper than
    ``isoformat`` (54,000 of them took 0.14 s)."""
    if value is None:
        return None
    offset = value.utcoffset()
    if offset is None:  # naive: kept naive (``null`` for its offset)
        return [(value - _NAIVE_EPOCH) // _MICROSECOND, None]
    return [(value - _EPOCH) // _MICROSECOND, int(offset.total_seconds())]


def _time(value: Any) -> datetime | None:
    if value is None:
        return None
    micros, offset = value
    if offset is None:
        return _NAIVE_EPOCH + timedelta(microseconds=int(micros))
    moment = _EPOCH + timedelta(microseconds=int(micros))
    return moment if offset == 0 else moment.astimezone(timezone(timedelta(seconds=int(offset))))
