"""An in-memory provider for tests, docs and experiments.

It implements the same contract as the real adapters from a list of
``FakeSession`` values, so tests of ``list``/``show``/``tokens`` and of the
CLI never need files on disk.  Register it with
``agentscan.providers.register(FakeProvider([...]))`` or pass it to
``Scanner(providers=[...])``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection, Iterable

from agentscan.bounds import Bounds
from agentscan.context import ScanContext
from agentscan.toolkit.detail import DetailCollector
from agentscan.detailmodel import SessionDetail, SubagentInfo
from agentscan.model import SessionRef, SessionRow, UsageEntry, sum_usage
from agentscan.providers.base import Provider
from agentscan.toolkit.roots import Root


@dataclass(frozen=True)
class FakeSession:
    row: SessionRow
    usage: tuple[UsageEntry, ...] = ()
    prompts: tuple[str, ...] = ()
    subagents: tuple[SubagentInfo, ...] = field(default=())


class FakeProvider(Provider):
    name = "fake"
    label = "Fake (in memory)"

    def __init__(self, sessions: Iterable[FakeSession] = (), *, name: str = "fake") -> None:
        self.name = name  # type: ignore[misc]  # instances may rename themselves
        self.sessions = {s.row.native_id: s for s in sessions}
        self.row_calls = 0

    def roots(self, ctx: ScanContext) -> list[Root]:
        return [Root(self.name, ctx.home / ".fake", "fake")]

    def discover(self, ctx: ScanContext) -> list[SessionRef]:
        return [
            SessionRef(
                provider=self.name,
                native_id=native_id,
                path=None,
                recency=session.row.updated_at.timestamp() if session.row.updated_at else 0.0,
                hint=session,
            )
            for native_id, session in self.sessions.items()
        ]

    def row(self, ref: SessionRef, ctx: ScanContext) -> SessionRow:
        self.row_calls += 1
        session: FakeSession = ref.hint
        tokens = sum_usage(e.tokens for e in session.usage) if session.usage else session.row.tokens
        return session.row.with_changes(provider=self.name, tokens=tokens)

    def detail(self, ref: SessionRef, ctx: ScanContext, bounds: Bounds) -> SessionDetail:
        session: FakeSession = ref.hint
        collector = DetailCollector(bounds)
        for prompt in session.prompts:
            collector.add_prompt(prompt)
        return collector.build(self.row(ref, ctx), subagents=session.subagents)

    def subagent_types(self, ref: SessionRef, ctx: ScanContext, runs: Collection[str]) -> dict[str, str]:
        return {info.id: info.agent_type for info in ref.hint.subagents if info.id in runs and info.agent_type}

    def usage(self, refs: Iterable[SessionRef], ctx: ScanContext) -> list[UsageEntry]:
        entries: list[UsageEntry] = []
        for ref in refs:
            entries.extend(ref.hint.usage)
        return entries
