"""Parsing the usage of sessions the index cannot answer, for ``scan.collect``.

A warm run adds up sums from the index and parses nothing, so this is apart
from ``collect`` and imported only when some session must be parsed: one new
or changed since the last run, or whose calls are needed and not in the index.

A cold run with much to parse shares it out to worker processes
(``toolkit.workers``, imported only then); a session that changed since the last run keeps a resume
state, so the next change parses only what was appended.  A worker reads no index, but what its
pass keeps for later runs (a large Codex rollout's tally) it lists (``scan.indexview``), and the
parent writes it, as a parse here would have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from agentscan.context import ScanContext
from agentscan.model import SessionRef
from agentscan.scan.sessionsums import Parsed, SessionSums, parse_session
from agentscan.sealing import seal, unseal
from agentscan.toolkit import cores

if TYPE_CHECKING:
    from agentscan.scan.cache import Cache
    from agentscan.scan.scanner import Scanner

#: parse in worker processes only above this much to parse (bytes): forking costs more below
PARALLEL_MIN_BYTES = 16 * 1024 * 1024
#: a session this large keeps a resume state from its first parse
RESUME_MIN_BYTES = 8 * 1024 * 1024
#: sessions per batch sent to a worker
_BATCH = 24
#: the progress line's name for a parse (``tokens`` reads the table's rows after it)
ADDING_UP = "adding up tokens"


class UsageParser:
    """Parses for one collection: what it parses goes into the collection's ``parsed``, and
    its ``fingerprints`` follow what was read (``None``: nothing of the session is stored)."""

    def __init__(self, scanner: Scanner, cache: Cache | None, parsed: dict[str, Parsed],
                 fingerprints: dict[str, str | None]) -> None:
        self.scanner = scanner
        self.ctx = scanner.ctx
        self.cache = cache
        self.parsed = parsed
        self.fingerprints = fingerprints

    def parse(self, refs: list[SessionRef], stale: set[str], *, keep_entries: bool) -> None:
        """Parse ``refs`` (misses), store what the index keeps."""
        if not refs:
            return
        refs = self.real_refs(refs, keep_entries)
        weights = {ref.id: cores.job_bytes(ref, self.ctx) for ref in refs}
        resume: dict[str, bytes] = {}
        if self.cache is not None:
            for ref_id, sealed in self.cache.get_resume([ref.id for ref in refs]).items():
                payload = unseal(sealed)
                if payload is not None:
                    resume[ref_id] = payload
        keep_state = {ref.id: ref.id in resume or ref.id in stale or weights[ref.id] >= RESUME_MIN_BYTES for ref in refs}
        if self.cache is None:
            keep_state = dict.fromkeys(keep_state, False)

        def job(ref: SessionRef, ctx: ScanContext, keep: bool) -> Parsed:
            provider = self.scanner.provider(ref.provider)
            return parse_session(provider, ref, ctx, resume.get(ref.id), keep_state[ref.id], keep)

        with self.ctx.progress.named(ADDING_UP):
            self.ctx.progress.expect(len(refs))
            self.parsed.update(self._run(refs, weights, job, keep_entries, progress=True))
        self.scanner.parses += len(refs)
        if self.cache is None:
            return
        rows, states = [], []
        for ref in refs:
            parsed, fingerprint = self.parsed[ref.id], self.fingerprints[ref.id]
            if parsed.sums.passing:
                self.fingerprints[ref.id] = None  # in no snapshot either: parsed again next run
            if fingerprint is None or parsed.sums.passing:
                continue
            rows.append((ref.id, ref.provider, fingerprint, parsed.sums.to_bytes(), parsed.keys))
            if parsed.state is not None:
                states.append((ref.id, seal(parsed.state)))
        self.cache.put_usage(rows)
        self.cache.put_resume(states)

    def real_refs(self, refs: list[SessionRef], keep_entries: bool) -> list[SessionRef]:
        """The provider's own refs for a parse (``Scanner.real_ref``); a session gone
        since the census counts nothing, with a warning."""
        real = []
        self.scanner.expect_parses(refs)
        for ref in refs:
            found = self.scanner.real_ref(ref)
            if found is None:
                self.parsed[ref.id] = Parsed(SessionSums([], []), seal(b""), None, [] if keep_entries else None)
                self.fingerprints[ref.id] = None  # nothing of it is stored
                continue
            if found is not ref and self.cache is not None:
                # What the parse reads now, should a file have changed since the census.
                self.fingerprints[ref.id] = self.scanner.fingerprint(found)
            real.append(found)
        return real

    def calls(self, refs: list[SessionRef]) -> dict[str, list[list]]:
        """Every call of ``refs`` (the provider's own refs: ``real_refs``), parsed again."""
        # Their warnings were reported with their sums; a parse raises the same ones,
        # which the warning sink drops as repeats.
        def job(ref: SessionRef, ctx: ScanContext, keep: bool) -> Parsed:
            return parse_session(self.scanner.provider(ref.provider), ref, ctx, None, False, True)

        weights = {ref.id: cores.job_bytes(ref, self.ctx) for ref in refs}
        return {ref_id: parsed.entries or [] for ref_id, parsed in self._run(refs, weights, job, True).items()}

    def _run(self, refs: list[SessionRef], weights: dict[str, int],
             job: Callable[[SessionRef, ScanContext, bool], Parsed], keep_entries: bool,
             progress: bool = False) -> dict[str, Parsed]:
        """``job`` for every ref: in worker processes when there is enough to parse."""
        advance = self.ctx.progress.advance if progress else (lambda count=1: None)

        count = cores.usable_workers()
        done: dict[str, Parsed] = {}
        if count and sum(weights.values()) >= PARALLEL_MIN_BYTES and len(refs) > 1:
            with self.ctx.held_warnings():  # what telling reads, the session's own pass says
                travelling = [ref for ref in refs if self.scanner.provider(ref.provider).usage_travels(ref, self.ctx)]
            ordered = sorted(travelling, key=lambda ref: -weights[ref.id])  # largest first: workers finish together
            contexts: list[ScanContext] = []  # one per worker, made in the worker
            keeps = self.cache is not None

            def in_worker(index: int) -> tuple[Parsed, list[tuple[str, tuple]]]:
                if not contexts:
                    ctx = self.ctx.for_worker()
                    if keeps:
                        from agentscan.scan.indexview import IndexView

                        # Read nothing (as ever), but list what the pass keeps for later runs (a large
                        # Codex rollout's tally), for the parent to write: a parse here keeps it.
                        ctx.file_cache = IndexView(None)
                    contexts.append(ctx)
                view = contexts[0].file_cache
                writes: list[tuple[str, tuple]] = []
                if view is not None:
                    view.writes = writes
                return job(ordered[index], contexts[0], keep_entries), writes

            batches = [range(start, min(start + _BATCH, len(ordered))) for start in range(0, len(ordered), _BATCH)]
            from agentscan.toolkit import workers  # here: a parse of a few sessions forks no pool

            try:
                for index, ok, answer in workers.run_parallel(in_worker, batches, count):
                    if ok:
                        result, writes = answer
                        if writes and self.cache is not None:
                            from agentscan.scan.indexview import make_writes

                            make_writes(self.cache, writes)
                        # Its warnings travel with it (the parse captured them): report them here.
                        for warning in result.sums.warnings:
                            self.ctx.warn(warning.path, warning.message, warning.line, passing=result.sums.passing)
                        done[ordered[index].id] = result
                        advance()
            except (OSError, RuntimeError):
                pass  # no fork, no pipes, a worker killed from outside: the rest is parsed here
        for ref in refs:
            if ref.id not in done:
                done[ref.id] = job(ref, self.ctx, keep_entries)
                advance()
        return done
