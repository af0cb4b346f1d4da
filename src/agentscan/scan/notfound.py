"""What a "no session matches" error says beyond that: the places agentscan could not read
(the session may be in one), a session known only from its hook events (``trace`` shows
it), or a home of no session at all (and whether the id is the demo's)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Callable, Iterator

from agentscan.errors import AmbiguousSessionId, SessionNotFound
from agentscan.scan.arguments import MIN_PREFIX, split_query
from agentscan.toolkit.words import quoted

if TYPE_CHECKING:
    from agentscan.scan.scanner import Scanner


#: how many folders discovery could not list a "no session matches" names
_UNREAD_SHOWN = 3

#: whether ``not_found`` may read a hook session's whole events file for its transcript's hint
#: (``_outside_roots``); off while a caller that answers such an id itself looks it up
_TRANSCRIPT_HINT: ContextVar[bool] = ContextVar("transcript_hint", default=True)


@contextmanager
def without_transcript_hint() -> Iterator[None]:
    """Resolve within it and a "no session matches" leaves out ``_outside_roots``' hint: ``otlp
    <hook-only id>`` exports the session from its events when no transcript matches, and the
    hint, which rebuilds that session's tree to find its transcript, read a large events file
    once for an error it drops, then again to export it."""
    token = _TRANSCRIPT_HINT.set(False)
    try:
        yield
    finally:
        _TRANSCRIPT_HINT.reset(token)


def not_found(scanner: Scanner, query: str) -> SessionNotFound:
    """Nothing matched; when discovery could not look everywhere, the places it could not
    read are said under the error: the session may be in one of them (a folder of the
    wrong owner), and "no session matches" alone would send the user looking for a typo."""
    from agentscan.context import CANNOT_LIST

    unread = [warning for warning in scanner.ctx.warnings.listed() if warning.message.startswith(CANNOT_LIST)]
    error = SessionNotFound(query)
    details: list[str] = []
    if unread:
        from agentscan.toolkit.andmore import cut_lines

        shown = cut_lines([f"  {warning.path}: {warning.message}" for warning in unread], _UNREAD_SHOWN, indent="  ")
        details += [f"it may be in a folder agentscan could not list ({len(unread)}):", *shown]
    # A root named by an env var that points nowhere (a typo in CLAUDE_CONFIG_DIR) hides every
    # session of its provider: said here, where the user is looking for a typo in the id.
    named, _ = split_query(scanner, query)
    # (by the provider's key: the message names it as sentences do, ``Claude Code: no readable root``)
    roots = scanner.unreadable_explicit_roots(named)
    if roots:
        details += ["it may be under a root that was named but could not be read:", *(f"  {root}" for root in roots)]
    # A database the session may live in only (a Cursor composer of the state DB), locked by
    # its agent: ``list`` warns of it, and ``show`` must too, or the id looks mistyped.
    stores = [store for provider in scanner.providers if named in ("", provider.name)
              for store in provider.unread_stores(scanner.ctx)]
    if stores:
        details += ["it may be in a database agentscan could not read:", *(f"  {path}: {why}" for path, why in stores)]
    # Sessions a provider's own index knows whose files are gone (a Codex thread index's row):
    # the id was typed right, and the session cannot be shown.
    bare = query.partition(":")[2] if named else query
    gone = [line for provider in scanner.providers if named in ("", provider.name)
            for line in provider.known_gone(bare.lower(), scanner.ctx)] if len(bare) >= MIN_PREFIX else []
    details += gone
    captured = _captured_only(scanner, query)
    if captured is not None:
        # Known from its hook events alone (a transcript deleted, or never read here): ``trace``
        # shows it, and ``list --all`` would send the user looking through ids that lack it.
        from agentscan.invocation import hint, trace_words

        trace = trace_words(demo=scanner.ctx.home_source == "--demo")
        details += _outside_roots(scanner, captured)
        agent = captured.partition(":")[0]
        # (``claude:<id>`` answered by a Cursor capture: said, or the agent changed unexplained)
        other = bool(query.partition(":")[1]) and not query.startswith(f"{agent}:") and captured != query
        details.append(hint(f"{trace} {captured}", f"shows the session captured under {agent}" if other
                            else "shows its captured hook events"))
    # ``list --grep`` cannot find what is not there: in a home of no session (nothing unread
    # that might hold one) the CLI says where to look instead.  A newcomer who copied an id
    # from the README (a demo's) without ``--demo`` is told so, in any home: one of sessions
    # too (the demo's few files are read only here, once nothing matched).
    error.empty_home = captured is None and not unread and home_is_empty(scanner)
    demo_id = captured is None and scanner.ctx.home_source != "--demo" and _demo_has(scanner, query)
    if demo_id:
        # (the CLI says it, with the command to copy: ``say_error`` knows which was run)
        error.demo_query = query
    error.details = tuple(details)
    # (the CLI says it, with the home it read; not for the demo's id: ``list --grep`` cannot find that)
    error.list_hint = captured is None and not error.empty_home and not demo_id and not gone
    return error


def as_copied(error: SessionNotFound, scanner: Scanner, query: str, find: Callable[[Scanner, str], Any]) -> SessionNotFound:
    """``error`` (``not_found``'s), with ``hint: did you mean 'claude:7f3c9a12'?`` in place of
    the ``list --grep`` hint when ``query`` is one session's id with what a copy picked up
    around it.  ``find``: ``resolve.find_session`` (given, not imported: it imports this module)."""
    meant = _meant_as_copied(scanner, query, find)
    if meant is None and not error.details and not getattr(error, "demo_query", None):
        meant = _meant_as_mistyped(scanner, query, find)
    if meant is not None:
        error.details = (*error.details, meant)
        error.list_hint = False
    return error


#: what a copy picks up around an id: ``list``'s running mark (``claude:7f3c9a12*``), a JSON
#: string's quotes and comma (``"claude:…",``), a sentence's full stop, an ellipsis
_AROUND_AN_ID = " \t*,.;:\"'`…"


def _meant_as_copied(scanner: Scanner, query: str, find: Callable[[Scanner, str], Any]) -> str | None:
    """``hint: did you mean 'claude:7f3c9a12'?`` when ``query`` is one session's id with what a
    copy from a table, a JSON document or a sentence picks up around it; ``None`` otherwise."""
    provider, colon, bare = query.partition(":")
    cleaned = (f"{provider.strip()}:{bare.strip(_AROUND_AN_ID)}" if colon and provider.strip().isalpha()
               else query).strip(_AROUND_AN_ID)
    if cleaned == query or not cleaned:
        return None
    from agentscan.errors import AgentscanError

    try:
        find(scanner, cleaned)
    except AgentscanError:  # none, several, or too short: the usual hint
        return None
    why = " (the * after an id in `list` marks a running session)" if query.rstrip().endswith("*") else ""
    return f"hint: did you mean {quoted(cleaned)}?{why}"


def _meant_as_mistyped(scanner: Scanner, query: str, find: Callable[[Scanner, str], Any]) -> str | None:
    """``hint: did you mean 'claude:7f3c9a12'?`` for ``7f3c9a13``: the sessions, and subagent
    runs, whose id begins with what was typed but for one character changed or two swapped
    (``git``'s "did you mean" for a command, here for an id copied by hand), at most
    ``NEAR_SHOWN`` of them (``… or 'codex:019ac2d6'?``); ``None`` for none, or more.  Each id
    offered is checked to open what it was offered for (``find``): a prefix of a session's id
    that another session's run also begins is ambiguous, and a hint never offers a line that
    fails."""
    from agentscan.errors import AgentscanError
    from agentscan.scan.childnames import child_keys
    from agentscan.toolkit.words import meant_ids

    named, colon, bare = query.partition(":")
    if not colon:
        named, bare = "", query

    def names() -> Iterator[tuple[str, str, tuple[str, str | None]]]:
        for ref in scanner.refs([named] if named else ()):
            yield ref.provider, ref.native_id, (ref.id, None)
            for child in ref.children:
                for name in child_keys(child, str, ref.provider):
                    yield ref.provider, name, (ref.id, child)

    def opens(meant: str, targets: set[tuple[str, str | None]]) -> bool:
        # One that fails is left out, not the hint: the other near id still opens what it names.
        try:
            ref, focus = find(scanner, meant)
        except AgentscanError:  # several, or too short once its trailing dash went
            return False
        return (ref.id, focus) in targets

    return meant_ids(bare.strip(), names(), opens, shortest=MIN_PREFIX)


def home_is_empty(scanner: Scanner) -> bool:
    """Whether the home read (not the demo's) holds no session at all, with nothing named or
    locked that might hold one: then ``list --grep`` can find nothing, and the CLI says where
    to look (``SessionNotFound.empty_home``)."""
    return (scanner.ctx.home_source != "--demo" and not scanner.refs() and not scanner.unreadable_explicit_roots()
            and not any(provider.unread_stores(scanner.ctx) for provider in scanner.providers))


#: the commands whose "give --demo" hint is the whole command to copy: the id is all they need
_COPIED_WHOLE = ("show", "tokens", "trace")


def demo_hint(query: str, command: str) -> str:
    """What ``command`` (``show``, ``tokens``, ``trace``) says under "no session matches" when
    ``query`` is one of the demo's ids (the README's ``7f3c9a12``) and ``--demo`` was not given:
    the command to copy, as every hint names one (``invocation.hint``).  A command that needs
    more than the id (``otlp``'s ``-o FILE``) is told the option to add instead."""
    if command in _COPIED_WHOLE:
        from agentscan.hooks.program import shell_word
        from agentscan.invocation import command as run, hint

        return hint(run(f"{command} {shell_word(query)}", demo=True), "reads it from the demo home")
    return f"hint: {quoted(query)} is a session of the demo home: give --demo to read it"


def _demo_has(scanner: Scanner, query: str) -> bool:
    """Whether ``query`` names a session of the demo home (``--demo``): read only once no
    session of the home matched, and the demo home is a few small files."""
    from agentscan.demo import demo_home
    from agentscan.scan.childnames import child_keys

    demo = type(scanner)(home=demo_home(), env={})  # (the class at hand: no import back into the scanner)
    named, bare = split_query(demo, query)
    bare = bare.lower()
    # A subagent's own id too (docs/cli.md's ``show a1b2c3d``): ``--demo`` opens its parent.
    # (``agent-``, a Claude run's file stem, counts for none of the prefix, as ``resolve`` has it)
    return len(bare.removeprefix("agent-")) >= MIN_PREFIX and any(
        named in ("", ref.provider) and (ref.native_id.lower().startswith(bare) or any(
            name.startswith(bare) for child in ref.children for name in child_keys(child, str.lower, ref.provider)))
        for ref in demo.refs())


def _captured_only(scanner: Scanner, query: str) -> str | None:
    """The ``agent:id`` of the one session of the hook events store ``query`` names (the
    demo's store under ``--demo``), ``query`` itself when it names several (``trace`` lists
    them), ``None`` for none: read only once no transcript matched."""
    from agentscan.errors import AgentscanError
    from agentscan.hooks import store, storedids

    env = scanner.ctx.env
    demo = scanner.ctx.home_source == "--demo"
    if demo:
        from agentscan.demo import with_demo_events

        env = with_demo_events(env)
    from agentscan.errors import NoHookEvents

    sessions: list[storedids.StoredSession] = []
    try:
        sessions = store.stored_sessions(store.data_dir(env))
        return storedids.resolve(query, sessions, demo=demo).id
    except AmbiguousSessionId:
        return query
    except NoHookEvents:
        # ``claude:<id>`` of a session captured under Cursor (which runs Claude models): that
        # capture is offered, as ``trace claude:<id>`` offers it (``storedids.resolve``).
        other = storedids.under_another_agent(query, sessions, demo) if ":" in query else None
        return other.id if other is not None else None
    except (AgentscanError, OSError):  # none, or an id too short: the usual hint
        return None


def _outside_roots(scanner: Scanner, captured: str) -> list[str]:
    """The command that shows the transcript of the hook session ``captured`` when it is on
    disk under no folder agentscan reads (the agent ran with ``CLAUDE_CONFIG_DIR`` elsewhere),
    with the setting that makes ``show`` read it (``hooks.crosscheck.show_setting``); none
    otherwise (the demo's, one gone, one under a folder read: ``trace`` is all there is)."""
    if scanner.ctx.home_source == "--demo" or not _TRANSCRIPT_HINT.get():
        return []
    from agentscan.errors import AgentscanError
    from agentscan.hooks import store
    from agentscan.hooks.crosscheck import show_setting, transcript_exists, transcript_session_id
    from agentscan.hooks.program import shell_word
    from agentscan.invocation import hint

    try:
        agent, path = _transcript_named(captured, store.data_dir(scanner.ctx.env))
    except (AgentscanError, OSError):  # several sessions, an unreadable store: the trace hint alone
        return []
    shown_id = transcript_session_id(agent, path)
    if not (path and shown_id and transcript_exists(path)):
        return []
    home = str(scanner.ctx.home) if scanner.ctx.home_source == "--home" else None
    setting = show_setting(agent, path, scanner.ctx.env, home)
    if not setting:
        return []
    return [hint(f"{setting} {scanner.ctx.command('show ' + shell_word(shown_id))}",
                 "reads its transcript, kept under a folder agentscan does not read")]


def _transcript_named(captured: str, root: str) -> tuple[str, str | None]:
    """The agent of the hook session ``captured`` and the transcript its events name, as its
    tree has it (``session.transcript_path``: the latest, never a subagent's own), from its
    events alone, read from the end: the tree of a 200 MB events file took seconds to build for
    this hint, and reading all its events most of a second."""
    from agentscan.hooks import store, storedids
    from agentscan.hooks.tailread import latest_transcript_path

    stored = storedids.resolve(captured, store.stored_sessions(root))
    return stored.agent, latest_transcript_path(stored)  # its last lines, not all 200 MB of them


def unread_stores_note(scanner: Scanner, providers: tuple[str, ...] | list[str] = ()) -> str | None:
    """What ``list`` and ``tokens`` say in place of "no sessions found; doctor shows where
    agentscan looked" when a database the selected ``providers`` (none: all) keep sessions in
    could not be read (Cursor's corrupt or locked state DB): the sessions may be in it, and
    doctor would only show the same path again.  ``None``: every such database was read."""
    unread = unread_stores(scanner, providers)
    if not unread:
        return None
    from agentscan.toolkit.words import plural

    labels = ", ".join(dict.fromkeys(label for label, _ in unread))
    if len(unread) == 1:
        return f"no sessions found: a {labels} database that may hold some could not be read (see the warning)"
    return (f"no sessions found: {plural(len(unread), 'database')} that may hold some could not be read "
            f"({labels}; see the warnings)")


def unread_stores(scanner: Scanner, providers: tuple[str, ...] | list[str] = ()) -> list[tuple[str, object]]:
    """The databases the selected ``providers`` (none: all) keep sessions in that could not be
    read, each as ``(its provider's label, its path)``: the sessions read are not all there are."""
    return [(provider.label, path) for provider in scanner.providers if not providers or provider.name in providers
            for path, _ in provider.unread_stores(scanner.ctx)]
