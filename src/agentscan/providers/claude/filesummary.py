"""What a row's pass over one Claude transcript keeps (``row.summarize``): its counters, the
few strings a row needs and a small window of recent message ids, and the state a later
pass resumes from (``rowresume``)."""

from __future__ import annotations

from collections import Counter, deque
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentscan.providers.claude.seenuuids import SeenUuids

if TYPE_CHECKING:
    from agentscan.providers.claude.sidechains import InlineRuns

#: how many recent message ids count each message once (its records are written together)
RECENT_IDS = 512


class FileSummary:
    """What a row's pass reads of one transcript.  A plain class: a dataclass costs about a
    millisecond to create on import."""

    __slots__ = ("path", "first_prompt", "first_image_prompt", "first_bare_command", "first_local_command", "custom_title", "ai_title",
                 "summary_title", "cwd", "relocated_cwd", "git_branch", "first_ts", "last_ts", "prompts", "responses", "tool_calls", "models", "records",
                 "has_usage", "task_types", "task_calls", "pending_tasks", "results", "summaries", "summary_matched",
                 "pending_summaries", "matched_at",
                 "model_messages", "text_messages", "inline", "_runs", "copies", "compacted", "seen",
                 "resumed_copies", "resumed_from", "resumed_last", "own_met", "copied_runs")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.first_prompt: str | None = None
        self.first_image_prompt: str | None = None  # ``[image]``: the title only when no words were typed
        self.first_bare_command: str | None = None  # ``/init``: the title only when nothing else was asked
        self.first_local_command: str | None = None  # ``/model`` (no prompt): the title after it
        self.custom_title: str | None = None
        self.ai_title: str | None = None
        self.summary_title: str | None = None
        self.cwd: str | None = None
        # The directory a ``relocated`` record moved the session to (the last one's): its
        # directory from then on, over the first record's ``cwd`` (``sessionrow``).
        self.relocated_cwd: str | None = None
        self.git_branch: str | None = None
        self.first_ts: datetime | None = None
        self.last_ts: datetime | None = None
        self.prompts = 0
        self.responses = 0
        self.tool_calls = 0
        self.models: Counter[str] = Counter()
        self.records = 0
        self.has_usage = False
        self.task_types: dict[str, str] = {}  # agentId -> subagent_type
        self.task_calls: dict[str, str] = {}  # agentId -> id of the Task call that ran it
        self.pending_tasks: dict[str, str] = {}  # tool_use id -> subagent_type, until its result
        # A second half's pass (``halves``) lists every subagent's result it meets, in order:
        # (agentId, tool_use id, the type its own calls gave, or ``None``), for the join.
        self.results: list[tuple[str, str, str | None]] | None = None
        # ``summary`` records: leafUuid -> text, and whether a record of this file
        # is that leaf (a summary of this conversation beats one of another) (``titles``).
        self.summaries: dict[str, str] = {}
        self.summary_matched: str | None = None
        # Where the matched summary's leaf ends; the summaries whose leaf no record after them
        # named yet: leafUuid -> where the summary ends (``titles.settle_summaries``).
        self.matched_at: int | None = None
        self.pending_summaries: dict[str, int] = {}
        # Records of one message are written together, so a short memory of recent
        # ids counts each message once without a set that grows with the file (``recordnotes``).
        self.model_messages = RecentIds()
        self.text_messages = RecentIds()
        # Subagent runs written inline in this (main) transcript (``sidechains``): each its
        # own summary, by run id; made at the first such record (2.0.x builds wrote them).
        self.inline: dict[str, FileSummary] = {}
        self._runs: InlineRuns | None = None
        # Records copied again by claude-code issue 92089 (``seenuuids``), skipped; the time a
        # record dated before may be one (``seenuuids.copies_before``); the uuids met.
        self.copies = 0
        self.compacted: datetime | None = None
        self.seen = SeenUuids()
        # A resumed session's copies of an earlier session's records (``row.summarize``), skipped.
        self.resumed_copies = 0
        self.resumed_from: str | None = None  # the session those copies are of, its head names
        # The session the last copy before the first record of its own names: the one resumed
        # (a copy written after it names an earlier session of the chain, not the one resumed:
        # ``continuations.named_before_own`` reads the same line, so warm and cold agree).
        self.resumed_last: str | None = None
        self.own_met = False  # whether a record naming this session was met (the copies' end)
        # The runs only those copies name (their ``agent_progress`` records) -> the session the
        # copy names: its runs, counted there when it is found (``scan.creditedrows``).
        self.copied_runs: dict[str, str] = {}

    def moved_from(self) -> str | None:
        """The directory a relocated session (``relocated``) started in, when not where it moved:
        its first own record's ``cwd`` (a resumed file's copies skipped).  ``show`` says it, by
        either reader (``provider.detail``, ``hugeshow``)."""
        if self.relocated_cwd and self.cwd and self.relocated_cwd != self.cwd:
            return self.cwd
        return None

    # -- a resume state (``rowresume``) -------------------------------------------

    _TEXTS = ("first_prompt", "first_image_prompt", "first_bare_command", "first_local_command", "custom_title",
              "ai_title", "summary_title", "cwd", "relocated_cwd", "git_branch", "summary_matched", "resumed_from", "resumed_last")
    _COUNTS = ("prompts", "responses", "tool_calls", "records", "copies", "resumed_copies")
    _MAPS = ("task_types", "task_calls", "pending_tasks", "summaries", "copied_runs")

    def to_state(self) -> dict[str, Any]:
        doc: dict[str, Any] = {name: getattr(self, name) for name in (*self._TEXTS, *self._COUNTS, *self._MAPS)}
        doc.update(
            first_ts=None if self.first_ts is None else self.first_ts.isoformat(),
            last_ts=None if self.last_ts is None else self.last_ts.isoformat(),
            compacted=None if self.compacted is None else self.compacted.isoformat(),
            has_usage=self.has_usage, own_met=self.own_met,
            models=list(self.models.items()),  # in order: ``most_common`` breaks ties by it
            model_messages=self.model_messages.ids(), text_messages=self.text_messages.ids(),
            matched_at=self.matched_at, pending=self.pending_summaries,
        )
        return doc

    @classmethod
    def from_state(cls, path: Path, doc: dict[str, Any]) -> FileSummary:
        """Raises ``ValueError``/``TypeError``/``KeyError`` on an ill-shaped state."""
        summary = cls(path)
        for name in cls._TEXTS:
            value = doc[name]
            if not (value is None or isinstance(value, str)):
                raise ValueError(name)
            setattr(summary, name, value)
        for name in cls._COUNTS:
            if type(doc[name]) is not int or doc[name] < 0:
                raise ValueError(name)
            setattr(summary, name, doc[name])
        for name in cls._MAPS:
            value = doc[name]
            if not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
                raise ValueError(name)
            setattr(summary, name, value)
        matched_at, pending = doc["matched_at"], doc["pending"]
        if not (matched_at is None or type(matched_at) is int) or not (
                isinstance(pending, dict) and all(type(at) is int and leaf in summary.summaries
                                                  for leaf, at in pending.items())):
            raise ValueError("pending")
        summary.matched_at, summary.pending_summaries = matched_at, pending
        summary.first_ts = None if doc["first_ts"] is None else datetime.fromisoformat(doc["first_ts"])
        summary.last_ts = None if doc["last_ts"] is None else datetime.fromisoformat(doc["last_ts"])
        summary.compacted = None if doc["compacted"] is None else datetime.fromisoformat(doc["compacted"])
        summary.seen = SeenUuids(known=False)  # (hashes do not outlive their process)
        if type(doc["has_usage"]) is not bool:
            raise ValueError("has_usage")
        summary.has_usage = doc["has_usage"]
        if type(doc["own_met"]) is not bool:
            raise ValueError("own_met")
        summary.own_met = doc["own_met"]
        for model, count in doc["models"]:
            if not isinstance(model, str) or type(count) is not int:
                raise ValueError("models")
            summary.models[model] = count
        for name in ("model_messages", "text_messages"):
            ids = doc[name]
            if not (isinstance(ids, list) and len(ids) <= RECENT_IDS and all(isinstance(i, str) for i in ids)):
                raise ValueError(name)
        summary.model_messages = RecentIds(ids=doc["model_messages"])
        summary.text_messages = RecentIds(ids=doc["text_messages"])
        return summary


class RecentIds:
    """Membership over the last ``size`` ids only (bounded memory)."""

    def __init__(self, size: int = RECENT_IDS, ids: list[str] | None = None) -> None:
        self._order: deque[str] = deque(ids or ())
        self._members: set[str] = set(self._order)
        self._size = size

    def ids(self) -> list[str]:
        return list(self._order)

    def __contains__(self, item: str) -> bool:
        return item in self._members

    def add(self, item: str) -> None:
        if item in self._members:
            return
        self._order.append(item)
        self._members.add(item)
        if len(self._order) > self._size:
            self._members.discard(self._order.popleft())
