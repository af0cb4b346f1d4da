"""Parsing the usage of sessions the index cannot answer, for ``scan.collect``.

A warm run adds up sums from the index and parses nothing, so this is apart
from ``collect`` and imported only when some session must be parsed: one new
or changed since the last run, or whose calls are needed and not in the index.

A cold run with much to parse shares it out to worker processes
(``toolkit.workers``, imported only then); a session an agent is at work in keeps a resume state,
so the next change parses only what was appended (``keeps_state`` says which).  A worker reads no index, but what its
pass keeps for later runs (a large Codex rollout's tally) it lists (``scan.indexview``), and the
parent writes it, as a parse here would have.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

import orjson

from agentscan.context import PARSE_ADDS_NO_FACTS, ScanContext
from agentscan.model import SessionRef
from agentscan.progress import CACHING
from agentscan.scan.sessionsums import Parsed, SessionSums, parse_session
from agentscan.sealing import seal, unseal
from agentscan.toolkit import cores

if TYPE_CHECKING:
    from agentscan.providers.base import Provider
    from agentscan.scan.cache import Cache
    from agentscan.scan.scanner import Scanner

#: parse in worker processes only above this much to parse (bytes): forking costs more below
PARALLEL_MIN_BYTES = 16 * 1024 * 1024
#: a session this large keeps a resume state from its first parse
RESUME_MIN_BYTES = 8 * 1024 * 1024
#: a smaller one keeps one once it changed since the index's sums, if a file of it was
#: written in this many days before now (``keeps_state``)
RESUME_ACTIVE_DAYS = 7
#: sessions per batch sent to a worker
_BATCH = 24
#: the progress line's name for a parse (``tokens`` reads the table's rows after it)
ADDING_UP = "adding up tokens"
#: sessions whose sums are written to the index at once (``_store``), the progress counted after each
_STORED_AT_ONCE = 256


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

    def parse(self, refs: list[SessionRef], stale: set[str], *, keep_entries: bool,
              told: Callable[[int], None] | None = None, sums_alone: bool = False) -> None:
        """Parse ``refs`` (misses), store what the index keeps.  ``told``: called with 1 as
        each is parsed, in the caller's phase (an export's days), not ``adding up tokens``.
        ``sums_alone``: a session's calls are asked only where it shares calls (``tokens``, not
        every call of an export): sums an older parser kept may stand (``lockedusage.kept_under_a_lock``)."""
        if not refs:
            return
        if stale and sums_alone and self.cache is not None:
            from agentscan.scan.lockedusage import kept_under_a_lock

            taken = kept_under_a_lock(self.scanner, self.cache, refs, stale, keep_entries, self.parsed, self.fingerprints)
            refs = [ref for ref in refs if ref.id not in taken]
        if told is not None:
            # Not a phase of its own: a cold export's line went "adding up days" ->
            # "adding up tokens 1/310" -> "adding up days", a batch of days after another.
            kept = self._parse(refs, stale, keep_entries, told, counts_gone=False)
            if kept is not None:
                self._store(*kept)
            return
        # Named from here, not from the first session read: what comes before it (the states
        # and calls the index holds, each session's stat) took 1-2 s at scale 10 after an
        # upgrade, the line blank or saying the phase before.
        with self.ctx.progress.named(ADDING_UP):
            self.ctx.progress.expect(len(refs))
            kept = self._parse(refs, stale, keep_entries, self.ctx.progress.advance, counts_gone=True)
        if kept is not None:
            # Named: the line stood at "adding up tokens 15,000/15,000" while they were kept
            # (≈1 s at scale 10, as long again for the rest of the index's writes: ``collect.sums``).
            with self.ctx.progress.named(CACHING):
                self._store(*kept)

    def _parse(self, refs: list[SessionRef], stale: set[str], keep_entries: bool, told: Callable[[int], None], *,
               counts_gone: bool) -> tuple[list[SessionRef], dict[str, Parsed], dict[str, bool], list[str]] | None:
        """``parse``, ``told`` 1 as each session is done (``counts_gone``: one gone since the
        census too, which ``adding up tokens`` expected): what ``_store`` keeps (``None``: no index)."""
        count = len(refs)
        refs = self.real_refs(refs, keep_entries)
        if counts_gone and len(refs) < count:
            told(count - len(refs))  # gone since the census: nothing to read
        weights = {ref.id: cores.job_bytes(ref, self.ctx) for ref in refs}
        resume: dict[str, bytes] = {}
        held: list[str] = []  # sessions with a stored state, usable or not
        if self.cache is not None:
            by_id = {ref.id: ref for ref in refs}
            for ref_id, sealed in self.cache.get_resume(list(by_id)).items():
                held.append(ref_id)
                payload = _own_state(unseal(sealed), self.scanner.provider(by_id[ref_id].provider))
                if payload is not None:
                    resume[ref_id] = payload
        keep_state = {ref.id: self.cache is not None and self.keeps_state(ref, resume, stale, weights[ref.id])
                      for ref in refs}
        # (A parse that keeps every call hands them to ``collect._calls``, which keeps them.)
        renewed = set() if keep_entries else self.renewed_calls(refs, resume)

        def job(ref: SessionRef, ctx: ScanContext, keep: bool) -> Parsed:
            provider = self.scanner.provider(ref.provider)
            # (A worker's facts are not kept: this parse adds none here either, so the index
            # is the same wherever it ran: ``claude.incremental._chain``.)
            ctx.memo[PARSE_ADDS_NO_FACTS] = True
            if ref.id not in renewed:
                return parse_session(provider, ref, ctx, resume.get(ref.id), keep_state[ref.id], keep)
            # Its calls as ``calls`` parses them, sealed here (in the worker: the parent gets
            # them as the index keeps them, and holds no call).
            parsed = parse_session(provider, ref, ctx, None, keep_state[ref.id], True)
            if parsed.entries is not None and not parsed.sums.passing:
                parsed.calls = seal(orjson.dumps(parsed.entries))
            parsed.entries = None
            return parsed

        def landed(ref_id: str, parsed: Parsed) -> None:
            fingerprint = self.fingerprints.get(ref_id)
            if parsed.calls is not None and fingerprint is not None and self.cache is not None:
                self.cache.put_calls([(ref_id, fingerprint, parsed.calls)])  # as it comes: none held
            parsed.calls = None

        done: dict[str, Parsed] = {}
        try:
            self._run(refs, weights, job, keep_entries, told=told, into=done, landed=landed)
        except KeyboardInterrupt:
            # A Ctrl-C a minute into a heavy user's first ``tokens``: what was parsed is kept
            # (each session's sums stand alone), so the next run parses only the rest; the
            # index's transaction was dropped at exit before, and the rerun was as cold.
            if self.cache is not None:
                with self.cache.hurried():
                    self._store([ref for ref in refs if ref.id in done], done, {}, [])
                    self.cache.commit()
            raise
        self.parsed.update(done)
        self.scanner.parses += len(refs)
        return None if self.cache is None else (refs, self.parsed, keep_state, held)

    def _store(self, refs: list[SessionRef], parsed_by_id: dict[str, Parsed], keep_state: dict[str, bool],
               held: list[str]) -> None:
        """Put the sums (and resume states) of parsed ``refs`` in the index; drop the states
        of ``held`` sessions no longer kept (``keep_state``)."""
        assert self.cache is not None
        # Counted, a batch at a time: the line stood 0.6-0.9 s on "caching sessions" with no
        # count after "adding up tokens 15,000/15,000" at scale 10 (the sums encoded and written).
        progress = self.ctx.progress
        progress.expect(len(refs))
        for start in range(0, len(refs), _STORED_AT_ONCE):
            rows, states = [], []
            batch = refs[start:start + _STORED_AT_ONCE]
            for ref in batch:
                parsed, fingerprint = parsed_by_id[ref.id], self.fingerprints[ref.id]
                if parsed.sums.passing:
                    self.fingerprints[ref.id] = None  # in no snapshot either: parsed again next run
                if fingerprint is None or parsed.sums.passing:
                    continue
                rows.append((ref.id, ref.provider, fingerprint, parsed.sums.to_bytes(), parsed.keys))
                if parsed.state is not None:
                    tag = _state_tag(self.scanner.provider(ref.provider))
                    states.append((ref.id, seal(tag + parsed.state)))
            self.cache.put_usage(rows)
            self.cache.put_resume(states)
            progress.advance(len(batch))
        # A state no longer kept (another agentscan's, or its session idle since) is dropped:
        # else every session an earlier upgrade gave one would keep it for good.
        self.cache.drop_resume([ref_id for ref_id in held if not keep_state.get(ref_id)])

    def keeps_state(self, ref: SessionRef, resume: dict[str, bytes], stale: set[str], weight: int) -> bool:
        """Whether the parse of ``ref`` keeps a resume state for the next one.

        A state costs its parse memory (every kept call, held until the index is written)
        and the index room (as much again as the session's sums), and it pays only when the
        session grows.  So: a session with a usable state (it grew lately: it keeps growing
        or idles into the next rule), one of ``RESUME_MIN_BYTES`` (a whole parse of it costs
        more than the state), and one that changed since the index's sums *and* was written
        in the ``RESUME_ACTIVE_DAYS`` before now.  Changed alone is not enough: a new
        agentscan with a bumped parser version changes every session's fingerprint, and a
        heavy user's 10,000 idle sessions would each keep one (412 MB instead of 285 for
        that first ``tokens`` at scale 10, and the index 100 MB larger for good).
        """
        if ref.id in resume or weight >= RESUME_MIN_BYTES:
            return True
        if ref.id not in stale:
            return False
        now = time.time()
        for path in ref.read_files:
            stat = self.ctx.stat(path)
            # A file dated over a minute ahead was not written by an agent at work on this clock.
            if stat is not None and now - RESUME_ACTIVE_DAYS * 86400 < stat.st_mtime <= now + 60:
                return True
        return False

    def renewed_calls(self, refs: list[SessionRef], resume: dict[str, bytes]) -> set[str]:
        """Those of ``refs`` whose calls the index holds as an older parser version of their
        provider read them, their files unchanged since (``upgraded.OlderParsers``): their
        calls are kept again at this parse, which reads every one of them anyway.

        After an upgrade the first ``tokens`` parses every session for its sums, and the first
        export parsed each again for its calls (the index had them only under the older
        version): 21 CPU-s at scale 10 after ``tokens``' 15.  A session whose calls the index
        never held (nobody asked: no export) keeps none, as before; one parsed from a resume
        state reads only what was appended."""
        if self.cache is None:
            return set()
        held = self.cache.fingerprints_in("calls", [ref.id for ref in refs if ref.id not in resume])
        if not held:
            return set()
        from agentscan.scan.upgraded import OlderParsers

        searches: dict[str, OlderParsers] = {}
        renewed = set()
        for ref in refs:
            kept, fingerprint = held.get(ref.id), self.fingerprints.get(ref.id)
            if kept is None or fingerprint is None or kept == fingerprint:
                continue
            search = searches.setdefault(ref.provider, OlderParsers())
            if not search.given_up and search.held_unchanged(self.scanner.provider(ref.provider), ref, self.ctx, kept):
                renewed.add(ref.id)
        return renewed

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

    def calls(self, refs: list[SessionRef], told: Callable[[int], None] | None = None) -> dict[str, list[list]]:
        """Every call of ``refs`` (the provider's own refs: ``real_refs``), parsed again;
        ``told`` called with 1 as each session's come (``parse``)."""
        # Their warnings were reported with their sums; a parse raises the same ones,
        # which the warning sink drops as repeats.
        def job(ref: SessionRef, ctx: ScanContext, keep: bool) -> Parsed:
            return parse_session(self.scanner.provider(ref.provider), ref, ctx, None, False, True)

        weights = {ref.id: cores.job_bytes(ref, self.ctx) for ref in refs}
        done = self._run(refs, weights, job, True, told=told)
        for ref_id, parsed in done.items():
            if parsed.sums.passing:
                # Read while a file or database could not be read (Cursor's state DB locked):
                # not kept, as ``_store`` keeps no such sums.  The calls were kept, ``[]`` at
                # the session's fingerprint, and once the lock was gone with the DB unchanged
                # an export wrote its tokens with no cost and no ``token_days``.
                self.fingerprints[ref_id] = None
        return {ref_id: parsed.entries or [] for ref_id, parsed in done.items()}

    def _run(self, refs: list[SessionRef], weights: dict[str, int],
             job: Callable[[SessionRef, ScanContext, bool], Parsed], keep_entries: bool,
             told: Callable[[int], None] | None = None, into: dict[str, Parsed] | None = None,
             landed: Callable[[str, Parsed], None] | None = None) -> dict[str, Parsed]:
        """``job`` for every ref: in worker processes when there is enough to parse; each
        result goes into ``into`` (a new dict if none) as it comes, and it is returned, and
        ``landed`` (its id, it) and ``told`` (1) are called then."""
        advance = told if told is not None else _untold

        count = cores.usable_workers()
        done: dict[str, Parsed] = {} if into is None else into
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
                        result.sums.say(self.ctx, passing=result.sums.passing)
                        done[ordered[index].id] = result
                        if landed is not None:
                            landed(ordered[index].id, result)
                        advance(1)
            except (OSError, RuntimeError):
                pass  # no fork, no pipes, a worker killed from outside: the rest is parsed here
        for ref in refs:
            if ref.id not in done:
                done[ref.id] = result = job(ref, self.ctx, keep_entries)
                if landed is not None:
                    landed(ref.id, result)
                advance(1)
        return done


def _untold(count: int) -> None:
    """``UsageParser._run``'s count when nobody asked for one."""


def _state_tag(provider: Provider) -> bytes:
    """What a stored state is tied to: the provider's parser version and the code that made
    it.  A state holds a parse's kept calls, so another parser's would resume with them:
    the calls of an unchanged file would stay the old parser's after an upgrade."""
    from agentscan.codeid import code_identity

    return f"{provider.name}\0{provider.parser_version}\0{code_identity()}\n".encode()


def _own_state(payload: bytes | None, provider: Provider) -> bytes | None:
    """A stored state's own part, if this code of this provider made it (``_state_tag``)."""
    tag = _state_tag(provider)
    return payload[len(tag):] if payload is not None and payload.startswith(tag) else None
