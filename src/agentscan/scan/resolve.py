"""Which session an id names: a full id, a bare native id, a unique prefix, a subagent's own
id, or the path of one of the session's transcripts.

The persistent id index answers an exact id first; an entry whose file moved
or vanished is dropped, and one of another home (the index is shared) is
left alone: discovery answers them.

An id made of hex digits and dashes (a UUID, a hash) names the same session
in any case: UUIDs are often copied upper-case (a UI, a log), and no provider
writes two ids that differ only in case.  Any other id is matched as typed (a
Claude file stem may differ from another only in case on Linux).  Ids are
shown as the providers write them; only the lookup folds case.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Sequence

from agentscan.fsview import legible
from agentscan.errors import IdTooShort, SessionNotFound, UsageProblem
from agentscan.scan.ambiguity import ambiguous as _ambiguous
from agentscan.scan.arguments import HEX_ID, MIN_PREFIX, case_free, ccusage_codex_id, split_query
from agentscan.scan.childnames import RUN_FILE_STEM, Key, child_keys
from agentscan.scan.notfound import as_copied, home_is_empty, not_found
from agentscan.scan.pathwhy import why_no_path

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner

#: why an argument with bytes that are not UTF-8 matches no session (``find_session``)
NOT_UTF8 = "it holds bytes that are not UTF-8 (shown as U+FFFD), and no session's id or transcript path does"

#: how a transcript's file name ends (a bare ``<id>.jsonl`` is a path too, not an id)
_TRANSCRIPT_ENDINGS = (".jsonl", ".json", ".zst")

Found = tuple["SessionRef", "str | None"]


def _as_typed(text: str) -> str:
    return text


def find_session(scanner: Scanner, query: str) -> Found:
    """The session ``query`` names (``Scanner.resolve``), and the subagent it names, if any."""
    query = query.strip()
    if not query:
        raise UsageProblem("a session id is required", parameter="query")
    shown = legible(query)
    if shown is not query:
        # Bytes that are not UTF-8 (``$'\xff'``): no id has them, nor any path discovery reads
        # (a file so named is skipped), so nothing matches, said as any unknown id is (exit 1),
        # not a traceback from the index's query.
        raise SessionNotFound(shown, NOT_UTF8)
    read = ccusage_codex_id(query)  # (a relative path in form, that names a session by its id)
    if read == query:
        return _found(scanner, query)
    try:
        return _found(scanner, read)
    except SessionNotFound as error:
        if error.query != read:
            raise
        raise error.typed_as(query) from None  # (what was typed, then what it was read as)


def may_name(scanner: Scanner, query: str) -> bool:
    """Whether ``query`` may name a session ``find_session`` finds, told from discovery alone:
    ``False`` when no session's native id nor run's name begins with it (in any case:
    ``_match``'s prefix rule) and it is no path, so ``find_session`` would say it names none.
    Past discovery, that says so from the transcripts (a run only its parent records, a
    session only a resumed one's copies hold: ``_recorded_children``, ``as_copied``,
    ``not_found``), several times discovery's cost: for a lookup only a hint needs
    (``trace ID``'s error), a mistyped id is not worth it.
    (A full id's prefix is its native id's: ``split_query`` takes the provider off.)"""
    query = ccusage_codex_id(query.strip())
    if not query or _looks_like_path(query):
        return bool(query)
    provider_name, bare = split_query(scanner, query)
    # ``_match``'s prefix rule, in any case (lower-cased, what each of its keys may match).
    wanted = bare.lower()
    return any(_begins(ref, wanted, str.lower) or _runs_begun(ref, wanted, str.lower)
               for ref in scanner.refs([provider_name] if provider_name else ()))


def _found(scanner: Scanner, query: str) -> Found:
    if _looks_like_path(query):
        by_path = _from_path(scanner, query)
        if by_path is not None:
            return by_path
        if not _may_be_a_child_id(query):
            raise SessionNotFound(query, why_no_path(scanner, query))
        try:  # a workflow run's id as ``show --json`` gives it (``wf_01/<agent id>``)
            return _with_focus(scanner, query)
        except SessionNotFound:
            raise SessionNotFound(query, why_no_path(scanner, query)) from None
    found = _from_index(scanner, query)
    if isinstance(found, str):
        # Its provider's discovery alone, not every provider's: ``show <a Gemini id>`` would
        # say (and ``--strict`` fail over) what Codex's discovery warns of.
        try:
            return _with_focus(scanner, query, found)
        except SessionNotFound:
            pass  # gone from there since the index was written: every provider's discovery decides
    elif found is not None:
        return found, None
    return _with_focus(scanner, query)


def _from_index(scanner: Scanner, query: str) -> SessionRef | str | None:
    """The index's answer for an exact id: its session, or the name of the provider whose
    discovery holds it (a session its provider cannot ``locate`` alone); ``None``: every
    provider's discovery must answer."""
    cache = scanner.cache
    if cache is None or len(query.partition(":")[2] or query) < MIN_PREFIX:
        return None
    provider_name, bare = split_query(scanner, query)
    # Only exact ids: a prefix could also match a session created since the
    # index was written, and then only discovery can say it is ambiguous.
    # (``find_ids`` matches with SQL's LIKE, which ignores ASCII case.)
    known = [e for e in cache.find_ids(query) if scanner.scans_provider(e[1])]
    entries = [e for e in known if query in (e[0], e[2])]
    if not entries:
        wanted = case_free(bare)
        entries = [e for e in known if provider_name in ("", e[1]) and case_free(e[2]) == wanted]
    if len(entries) != 1:
        return None
    session_id, provider_name, native_id, path = entries[0]
    provider = scanner.provider(provider_name)
    if path is not None:
        from agentscan.scan.prune import under_roots

        if not under_roots(path, provider, scanner.ctx):
            return None  # another home's session (the index is shared): this home's discovery decides
        if not os.path.exists(path):  # never raises (a PermissionError would)
            cache.forget_id(session_id)
            cache.commit()
            return None
    located = provider.locate(native_id, path, scanner.ctx)
    return located if located is not None else provider_name


def _with_focus(scanner: Scanner, query: str, among: str = "") -> Found:
    """The session ``query`` names and, when it names one of its
    subagents (a child's own id), that subagent's id; ``among``: only that provider's
    sessions are looked at (the id index names it), as when ``query`` names it."""
    provider_name, bare = split_query(scanner, query)
    provider_name = provider_name or among
    # Made into refs once: each look below goes over them all, and a heavy user's 15,000
    # stored sessions are made into refs anew at each pass over the lazy sequence.
    candidates = list(scanner.refs([provider_name] if provider_name else ()))
    if not HEX_ID.issuperset(bare):
        return _match(scanner, candidates, query, bare, _as_typed)
    try:
        return _match(scanner, candidates, query, bare, _as_typed, final=False)
    except _Unmatched:
        # Only once nothing matched as typed: an id that does, in its own case, wins.
        return _match(scanner, candidates, query, bare, case_free)


class _Unmatched(Exception):
    """Nothing matched, in a look that another follows (``_match``'s ``final``): the error
    that says so is made once, by the last (``not_found`` asks every provider's index)."""


def _match(scanner: Scanner, candidates: Sequence[SessionRef], query: str, bare: str, key: Key, *,
           final: bool = True) -> Found:
    wanted, whole = key(bare), key(query)
    exact = [ref for ref in candidates if key(ref.native_id) == wanted or key(ref.id) == whole]
    if len(exact) == 1:
        return exact[0], None
    if len(exact) > 1:
        raise _ambiguous(scanner, query, exact, hint="give the id with its provider (`provider:id`)")
    children = [(ref, child) for ref in candidates for child in ref.children
                if wanted in child_keys(child, key, ref.provider)]
    if len(children) == 1:
        return children[0]
    # ``agent-`` is a Claude run's file stem's, not its id's: it counts for none of the prefix
    # (``show agent-`` opened a home's one subagent, as ``show gemini`` its one chat).
    stem = RUN_FILE_STEM if key(bare).startswith(RUN_FILE_STEM) else ""
    if len(bare) - len(stem) < MIN_PREFIX:
        if not final:
            raise _Unmatched
        _refuse_a_provider(scanner, query)
        short = IdTooShort(query, MIN_PREFIX, after=stem)
        if home_is_empty(scanner):  # no id to find with ``list --grep``: where to look instead
            short.empty_home, short.list_hint = True, False
        raise short
    # A prefix of the native id only: one of ``provider:`` (``gemini``) would open the one session
    # of a home that has one, and a script's ``$provider`` its newest (``_refuse_a_provider``).
    matches = [ref for ref in candidates if _begins(ref, wanted, key)]
    # The runs the prefix begins, once: the answer when no session matched, a rival when one did.
    begun = [(ref, child) for ref in candidates for child in _runs_begun(ref, wanted, key)]
    if not matches:
        children = begun
        if not children:
            children = _recorded_children(scanner, candidates, wanted, key)
        if len(children) == 1:
            return children[0]
        if len(children) > 1:
            raise _ambiguous(scanner, query, [ref for ref, _ in children], [child for _, child in children],
                             hint=_one_run_hint(children))
        if not final:
            raise _Unmatched
        _refuse_a_provider(scanner, query)
        raise as_copied(not_found(scanner, query), scanner, query, find_session)
    if len(matches) > 1:
        raise _ambiguous(scanner, query, matches)
    # A subagent's label is unique among its session's runs only (``short_ids.child_prefixes``):
    # another session's run it also begins is told, not passed over for the session (a
    # UUIDv7's first digits are its minute: ``tokens`` may print ``019cff87-8`` for a run while
    # another session started that minute begins so).  Not for the session's short id as
    # ``list`` prints it, nor a shorter prefix: every id ``list`` shows opens its session.
    # Runs of the session matched are its own, never a rival.
    others = [(ref, child) for ref, child in begun if ref is not matches[0]]
    if others and len(bare) > len(_shown_id(matches[0], candidates)):
        raise _ambiguous(scanner, query, [matches[0], *(ref for ref, _ in others)],
                         [None, *(child for _, child in others)])
    return matches[0], None


def _begins(ref: SessionRef, wanted: str, key: Key) -> bool:
    """Whether a prefix (``wanted``, made by ``key``) names ``ref``: its native id begins so
    (the prefix rule of ``_match`` and ``may_name``)."""
    return key(ref.native_id).startswith(wanted)


def _runs_begun(ref: SessionRef, wanted: str, key: Key) -> list[str]:
    """The runs of ``ref`` a prefix (``wanted``, made by ``key``) names: one of their names
    (``childnames.child_keys``) begins so."""
    return [child for child in ref.children if any(name.startswith(wanted) for name in child_keys(child, key, ref.provider))]


def _one_run_hint(children: Sequence[tuple[SessionRef, str]]) -> str | None:
    """The hint when every session matched has a run of the same id (Claude's
    ``aside_question``, ``compact``): more characters of it cannot tell them apart, but its
    file (``show`` of a run's file opens it) or its session's id can; ``None``: runs of
    different ids, which more characters tell apart."""
    names = {child for _, child in children}
    if len(names) != 1:
        return None
    (run,) = names
    import shlex

    ref = max((ref for ref, _ in children), key=lambda ref: (ref.recency, ref.id))
    stem = run.rsplit("/", 1)[-1]
    files = [str(file) for file in ref.files if os.path.basename(str(file)).split(".", 1)[0].endswith(stem)]
    pick = f"the file of the one you mean (`{shlex.quote(files[0])}`), or its session's id" if files else \
        f"the id of the session you mean (`{ref.id}`): its card lists its runs"
    return f"each of these sessions has a run {run}, which no more characters tell apart: give {pick}"


def _refuse_a_provider(scanner: Scanner, query: str) -> None:
    """``ProviderNotId`` when ``query`` is a provider's name (``gemini``, ``Codex``, ``cursor:``)
    that named no session: said as that, not as an id too short or matching nothing."""
    from agentscan.errors import ProviderNotId
    from agentscan.providers import provider_named

    name = provider_named(query, (provider.name for provider in scanner.providers))
    if name is not None:
        raise ProviderNotId(query, name)


def _shown_id(ref: SessionRef, candidates: Sequence[SessionRef]) -> str:
    """``ref``'s native id as ``list`` shortens it among its provider's sessions."""
    from agentscan.scan.short_ids import unique_prefixes

    return unique_prefixes(other.native_id for other in candidates if other.provider == ref.provider)[ref.native_id]


def _recorded_children(scanner: Scanner, candidates: Sequence[SessionRef], wanted: str, key: Key
                       ) -> list[tuple[SessionRef, str]]:
    """Subagents discovery does not know, for they have no file of their own (a Claude
    subagent only its parent's records name): asked, once nothing else matched, of each
    provider (``Provider.recorded_children``)."""
    found: list[tuple[SessionRef, str]] = []
    for name in sorted({ref.provider for ref in candidates}):
        found += scanner.provider(name).recorded_children([ref for ref in candidates if ref.provider == name],
                                                          wanted, key, scanner.ctx)
    runs = {run for _, run in found}
    if len(runs) == 1 and len(found) > 1:
        # One run, named only by copies in several sessions (a chain A -> B -> C, A gone): the
        # one whose row counts it, as ``list`` and ``tokens`` credit it (``creditedrows``).
        from agentscan.scan.creditedrows import run_credited

        (run,) = runs
        credited = run_credited(scanner, [ref for ref, _ in found], run)
        if credited is not None:
            return [(credited, run)]
    return found


# -- a path to a transcript ------------------------------------------------------------


def _may_be_a_child_id(query: str) -> bool:
    """A relative ``a/b`` whose ``a`` is no folder here may be a workflow run's id
    (``wf_01/<agent id>``); a missing file in a folder that is here (``notes/todo``) is
    said to be missing at once, no discovery run for it."""
    folder = query.split("/", 1)[0]
    return (query.count("/") == 1 and folder not in ("", ".", "..", "~") and os.sep == "/"
            and not query.endswith(_TRANSCRIPT_ENDINGS) and not os.path.isdir(folder))


def _looks_like_path(query: str) -> bool:
    """Whether ``query`` was meant as a file: no provider's id holds a path separator or
    ends as a transcript's file name does, nor is ``.`` (``show .`` in a project's folder)."""
    return query in (".", "..") or "/" in query or os.sep in query or query.startswith("~") or query.endswith(_TRANSCRIPT_ENDINGS)


def _from_path(scanner: Scanner, query: str) -> Found | None:
    """The session one of whose files is the file ``query`` names (a transcript path pasted
    from a terminal or an editor), with the subagent focused when it is a subagent's file;
    ``None``: no such file, or no session of this scan holds it."""
    typed = os.path.abspath(os.path.expanduser(query))
    if os.path.isdir(typed):
        return _from_directory(scanner, typed)
    if not os.path.isfile(typed):
        return None
    real = os.path.realpath(typed)
    names = {os.path.basename(typed), os.path.basename(real)}
    for ref in scanner.refs():
        for file in _files_of(ref):
            text = str(file)
            if text in (typed, real) or (os.path.basename(text) in names and _same_file(text, real)):
                return ref, _child_named_by(ref, text)
    return None


def _from_directory(scanner: Scanner, typed: str) -> Found | None:
    """The session a directory named by its id holds the files of: the path ``show`` gives a
    Claude session whose main transcript is gone (``<project>/<id>``, its subagents' home)."""
    native_id = os.path.basename(typed)
    for directory in dict.fromkeys((typed, os.path.realpath(typed))):
        inside = directory + os.sep
        for ref in scanner.refs():
            if ref.native_id == native_id and any(str(file).startswith(inside) for file in ref.files):
                return ref, None
    return None


def _files_of(ref: SessionRef) -> Iterable[os.PathLike[str] | str]:
    if ref.path is not None:
        yield ref.path
    yield from ref.files


def _same_file(path: str, real: str) -> bool:
    """Whether ``path`` (a session's file) is ``real`` reached another way (a symlink)."""
    try:
        return os.path.realpath(path) == real
    except (OSError, ValueError):
        return False


def _child_named_by(ref: SessionRef, path: str) -> str | None:
    """The subagent whose own file ``path`` is: its file name ends with the subagent's id
    (Claude ``agent-<id>.jsonl``, a Codex child's ``rollout-<time>-<id>.jsonl``)."""
    if ref.path is not None and str(ref.path) == path:
        return None
    stem = os.path.basename(path).split(".", 1)[0]
    named = [child for child in ref.children if stem.endswith(child)]
    return max(named, key=len) if named else None
