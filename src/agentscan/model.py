"""The normalized session model every provider adapter produces.

Values are frozen dataclasses so that a row built by one layer can be cached
and shared without defensive copies.  ``to_json`` methods produce exactly the
shapes promised in the contract (docs/json.md); the CLI and the
exporters never build those dicts by hand.  ``show``'s values (``SessionDetail``
and its parts) are in ``agentscan.detailmodel``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, NamedTuple

# Imported at run time, not for type checkers only: ``typing.get_type_hints`` of a
# public type evaluates its annotations in this module.
from decimal import Decimal

from agentscan.bounds import MAX_TOKEN_SUM, token_sum
from agentscan.timeutil import parse_iso, to_iso
from agentscan.warningjson import warning_json


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens in the contract's vocabulary; ``total`` is derived, never stored."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0

    @property
    def total(self) -> int:
        """Every token the calls billed: input, cache reads and writes, and output."""
        # reasoning is part of output already, so it is never added again.
        return self.input + self.cache_read + self.cache_write + self.output

    def __add__(self, other: TokenUsage) -> TokenUsage:
        # Sums saturate at MAX_TOKEN_SUM (bounds.py): past 2**63 no JSON, SQLite or
        # CSV reader could hold them.  ``saturated`` tells a caller to warn.
        return TokenUsage(
            token_sum(self.input + other.input),
            token_sum(self.cache_read + other.cache_read),
            token_sum(self.cache_write + other.cache_write),
            token_sum(self.output + other.output),
            token_sum(self.reasoning + other.reasoning),
        )

    @property
    def saturated(self) -> bool:
        """Whether a sum reached ``MAX_TOKEN_SUM`` and stopped there."""
        return max(self.input, self.cache_read, self.cache_write, self.output, self.reasoning) >= MAX_TOKEN_SUM

    def to_json(self) -> dict[str, int]:
        """The five sums and their ``total``, as the JSON documents print them."""
        # Capped again here, for any sum built without ``+``: JSON holds 64 bits at most.
        fields = [token_sum(v) for v in (self.input, self.cache_read, self.cache_write, self.output, self.reasoning)]
        return {
            "input": fields[0],
            "cache_read": fields[1],
            "cache_write": fields[2],
            "output": fields[3],
            "reasoning": fields[4],
            "total": sum(fields[:4]),
        }


def sum_usage(parts: Iterable[TokenUsage | None]) -> TokenUsage | None:
    """Add usages; ``None`` (nothing recorded) only when every part is ``None``."""
    result: TokenUsage | None = None
    for part in parts:
        if part is None:
            continue
        result = part if result is None else result + part
    return result


def usage_json(usage: TokenUsage | None) -> dict[str, int] | None:
    return None if usage is None else usage.to_json()


def usd(cost: Decimal | None) -> float | None:
    """JSON carries the exact cost as a number; only text output rounds it."""
    return None if cost is None else float(cost)


@dataclass(frozen=True, slots=True)
class Counts:
    prompts: int = 0
    responses: int = 0
    tool_calls: int = 0

    def to_json(self) -> dict[str, int]:
        return {"prompts": self.prompts, "responses": self.responses, "tool_calls": self.tool_calls}


_NO_COUNTS = Counts()


@dataclass(frozen=True, slots=True)
class ScanWarning:
    """Bad input that was skipped; reported, never fatal."""

    path: str
    message: str
    line: int | None = None
    #: a file's count past its listed warnings, which this one says (``WarningSink.listed``;
    #: 0: a warning of its own): ``--strict`` counts it as that many
    past: int = field(default=0, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return warning_json(self.path, self.message, self.line)


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One line of ``agentscan list``."""

    provider: str
    native_id: str
    path: str | None
    title: str | None = None
    cwd: str | None = None
    model: str | None = None
    git_branch: str | None = None
    started_at: datetime | None = None
    updated_at: datetime | None = None
    tokens: TokenUsage | None = None
    counts: Counts = field(default_factory=Counts)
    subagents: int = 0
    running: bool | None = None
    #: ``counts`` cover only part of the session (a Codex rollout too large for
    #: ``list`` to read whole, with no full pass kept in the cache)
    counts_partial: bool = False
    #: USD, filled in by ``agentscan.costs`` (it depends on the price data, so it is never cached with the row)
    cost: Decimal | None = None
    #: what the calls that have a price cost (``cost`` when that is known): with ``cost``
    #: unknown, a lower bound (tables show ``≥$…``, JSON ``cost_usd_priced``, as ``tokens`` does)
    cost_priced: Decimal | None = None
    #: the session a resumed one's transcript begins with a copy of (``claude:<id>``): its
    #: copied calls count there when it is found (``scan.creditedrows``); in JSON only when set
    resumed_from: str | None = None
    #: runs counted in ``subagents`` that only the copies of ``resumed_from``'s records name: that
    #: session's runs, left out of the row when its copied calls count there (``creditedrows``).
    #: Kept in the index with the row (``rowstore``), not in ``list --json``.
    copied_runs: tuple[str, ...] = ()
    #: every folder of the multi-root workspace the session ran in (Cursor), ``cwd`` among
    #: them: ``--cwd`` matches any of them.  ``()`` for one folder; in JSON only when set.
    workspace_folders: tuple[str, ...] = ()
    #: archived by the user (a Codex thread in ``archived_sessions/``, or so marked in the
    #: thread index; a Cursor chat archived in its chat list); in JSON only when set.  Only a
    #: provider that says ``can_archive`` sets it (``list --archived`` reads no other's rows).
    #: ``None``: not known (a Cursor chat read while its state DB could not be, no row kept
    #: from a run that read it): set only by an output (``unreadrows.with_archived_unknown``),
    #: said ``null`` in JSON, an empty CSV cell, ``(archived?)`` in ``list``; never kept
    archived: bool | None = False
    #: why ``tokens`` is ``None`` though the session's own file was read: it was read only up
    #: to its damage, before any usage (a legacy Gemini chat caught half rewritten:
    #: ``gemini.legacy``), as its warning words it.  Its usage is not known, which is not
    #: "recorded none" (``Provider.unknown_usage``).  A mark kept with the row in the index
    #: (``rowstore``), so a row taken back tells it as the one read did; not in JSON, where
    #: ``tokens_unknown`` says it
    usage_cut: str | None = None

    @property
    def id(self) -> str:
        """``provider:native_id``, the id every command (and ``Scanner.show``) takes."""
        return f"{self.provider}:{self.native_id}"

    @property
    def recorded_nothing(self) -> bool:
        """No record of the session could be read: an empty transcript, or one of
        nothing but bad lines (each told as a warning).  Its only facts are its
        file's, so ``list`` leaves it out, while its files are small
        (``leftout.NOTHING_BYTES``), rather than show a row of dashes at the top
        (its mtime is new)."""
        return (self.started_at is None and self.title is None and self.cwd is None and self.model is None
                and self.tokens is None and self.subagents == 0 and self.counts == _NO_COUNTS)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> SessionRow:
        """Rebuild a row from ``to_json`` output (the persistent cache)."""
        tokens = doc.get("tokens")
        return cls(
            provider=doc["provider"],
            native_id=doc["native_id"],
            path=doc.get("path"),
            title=doc.get("title"),
            cwd=doc.get("cwd"),
            model=doc.get("model"),
            git_branch=doc.get("git_branch"),
            started_at=parse_iso(doc.get("started_at")),
            updated_at=parse_iso(doc.get("updated_at")),
            tokens=None if tokens is None else TokenUsage(
                tokens["input"], tokens["cache_read"], tokens["cache_write"], tokens["output"], tokens["reasoning"]
            ),
            counts=Counts(**doc.get("counts", {})),
            subagents=doc.get("subagents", 0),
            running=doc.get("running"),
            counts_partial=doc.get("counts_partial", False),
            resumed_from=doc.get("resumed_from"),
            workspace_folders=tuple(doc.get("workspace_folders", ())),
            archived=doc.get("archived", False),
        )

    def with_changes(self, **changes: Any) -> SessionRow:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """The row as a dict of JSON values, as ``agentscan list --json`` prints each."""
        return {
            "id": self.id,
            "provider": self.provider,
            "native_id": self.native_id,
            "path": self.path,
            "title": self.title,
            "cwd": self.cwd,
            "model": self.model,
            "git_branch": self.git_branch,
            "started_at": to_iso(self.started_at),
            "updated_at": to_iso(self.updated_at),
            "tokens": usage_json(self.tokens),
            "cost_usd": usd(self.cost),
            "cost_usd_priced": usd(self.cost_priced),
            "counts": self.counts.to_json(),
            "subagents": self.subagents,
            "running": self.running,
            "counts_partial": self.counts_partial,
            **({"resumed_from": self.resumed_from} if self.resumed_from is not None else {}),
            **({"workspace_folders": list(self.workspace_folders)} if self.workspace_folders else {}),
            **({"archived": self.archived} if self.archived is not False else {}),
        }


# Packed usage entry fields, in ``UsageEntry.pack`` order: the cache and the
# aggregators keep calls as plain lists, because warm runs add up 100k+ of them.
# ``WEB_SEARCHES`` is always packed (cached entries of 12 fields, from before it, are
# parsed again: ``scan.sharing.entries_from``); ``ORIGIN`` is packed only when set.
(SESSION, SUBAGENT, TS, MODEL, INPUT, CACHE_READ, CACHE_WRITE, OUTPUT, REASONING, KEY, RANK, CACHE_WRITE_1H,
 WEB_SEARCHES, ORIGIN) = range(14)


def pack_call(session: str, subagent: str | None, ts: float | None, model: str | None,
              tokens: tuple[int, int, int, int, int], key: str | None, rank: int, cache_write_1h: int = 0,
              web_searches: int = 0, origin: str | None = None) -> list:
    """One call packed, its fields at the indexes above (``tokens``: input, cache read, cache
    write, output and reasoning, ``INPUT`` to ``REASONING``): ``UsageEntry.pack``, and a provider
    that packs its calls as it finds them, no ``UsageEntry`` made (Codex's ``tokens`` pass)."""
    packed = [session, subagent, ts, model, *tokens, key, rank, cache_write_1h, web_searches]
    if origin is not None:
        packed.append(origin)
    return packed


#: ``UsageEntry.origin`` of a subagent call known only from the copy in its
#: parent's progress records (Claude: the subagent transcript is gone)
PROGRESS_ORIGIN = "progress"


class TableFacts(NamedTuple):
    """What ``tokens``' table shows of a session beside its sums: a ``SessionRow``'s
    ``updated_at``, ``cwd`` and ``title``, found without the row's pass
    (``Provider.table_facts``).  A named tuple: a dataclass costs about a millisecond on import.

    ``models``, found only when asked (``list --grep``: ``scan.factfilter``), names every
    model the session's files name, of which its row's ``model`` is one: a session none
    of whose facts contain a word cannot match it.  ``None``: not looked for."""

    updated_at: datetime | None
    cwd: str | None
    title: str | None
    models: tuple[str, ...] | None = None
    #: ``SessionRow.archived``, where the provider knows it without a read (Codex's discovery:
    #: the file's place and the thread index): the table's TITLE marks it as ``list``'s does
    archived: bool = False


@dataclass(frozen=True, slots=True)
class UsageEntry:
    """One billed model call, already deduplicated within its session.

    ``subagent`` is ``None`` for the session's own calls, else the id of the
    delegated run the call belongs to; ``tokens`` reports roll these up.
    ``dedupe_key`` names the API call when the same call can appear in other
    sessions' files too (a resumed or forked session); across sessions the
    copy with the highest ``rank`` counts once.  ``cache_write_1h`` is the
    part of ``tokens.cache_write`` written to a one-hour cache (Claude),
    which bills at a higher rate: it matters for cost only.  ``web_searches`` is
    the number of hosted web searches the call ran (Claude: ``usage.server_tool_use
    .web_search_requests``), billed per search beside its tokens: no token count,
    it too matters for cost only.  ``origin`` says
    where a call was recovered from when its own transcript is gone
    (``PROGRESS_ORIGIN``).
    """

    session: str  # native id of the owning (parent) session
    tokens: TokenUsage
    timestamp: datetime | None = None
    model: str | None = None
    subagent: str | None = None
    dedupe_key: str | None = None
    rank: int = 0
    cache_write_1h: int = 0
    origin: str | None = None
    web_searches: int = 0

    def pack(self) -> list:
        """A compact, JSON-friendly form for the cache and the fast aggregator."""
        t = self.tokens
        ts = self.timestamp.timestamp() if self.timestamp is not None else None
        return pack_call(self.session, self.subagent, ts, self.model,
                         (t.input, t.cache_read, t.cache_write, t.output, t.reasoning), self.dedupe_key, self.rank,
                         self.cache_write_1h, self.web_searches, self.origin)

    @classmethod
    def unpack(cls, packed: list) -> UsageEntry:
        """The entry ``pack`` gave ``packed``."""
        ts = packed[TS]
        return cls(session=packed[SESSION], subagent=packed[SUBAGENT], model=packed[MODEL],
                   timestamp=None if ts is None else datetime.fromtimestamp(ts, timezone.utc),
                   tokens=TokenUsage(packed[INPUT], packed[CACHE_READ], packed[CACHE_WRITE], packed[OUTPUT], packed[REASONING]),
                   dedupe_key=packed[KEY], rank=packed[RANK], cache_write_1h=packed[CACHE_WRITE_1H],
                   web_searches=packed[WEB_SEARCHES], origin=packed[ORIGIN] if len(packed) > ORIGIN else None)


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A session found by discovery, before any content is parsed.

    ``recency`` is a cheap sort key (epoch seconds, usually the newest mtime of
    the session's files) so ``list`` can parse only the sessions it shows.
    ``files`` are every file that belongs to the session, parent first.
    ``hint`` lets a provider carry data it already read (an index row).
    ``children`` are the own ids of its subagents (a Codex child thread's id),
    so ``show <child id>`` can open the parent with that subagent in focus.
    """

    provider: str
    native_id: str
    path: Path | None
    recency: float
    files: tuple[Path, ...] = ()
    hint: Any = None
    children: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.native_id}"

    @property
    def path_text(self) -> str | None:
        """``str(path)``, for a caller that needs no ``Path`` (a stored ref then makes none:
        ``list --all`` prices 10,000 Claude rows from sums kept under their paths)."""
        return None if self.path is None else str(self.path)

    @property
    def read_files(self) -> tuple[Path, ...]:
        """What a pass over the session reads: its ``files``, else its ``path`` alone."""
        return self.files or ((self.path,) if self.path else ())
