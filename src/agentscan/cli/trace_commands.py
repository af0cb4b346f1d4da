"""``trace``: a session's conversation tree, rebuilt from its captured hook events.

Only Typer is imported here; ``agentscan.hooks`` is imported inside the command.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

import typer

from agentscan.cli.options import GlobalOptionsCommand, JsonOption, examples, handle_errors, redact_option, state_of


class TraceCommand(GlobalOptionsCommand):
    """``trace``: it reads the hook events store, never the home's agent files, and keeps no
    cache, so ``--home`` (said on stderr when given) and ``--no-cache`` change nothing and are
    not listed; taken still, for a script that gives them to every command."""

    unlisted = frozenset({"home", "no_cache"})
    help_texts = {
        "demo": "Read the demo's own hook events, shipped with agentscan.",
        "strict": "Exit 1 on any warning, such as a bad line in the events store.",
    }


def register(app: typer.Typer) -> None:
    app.command("trace", cls=TraceCommand,
                short_help="A session's conversation tree, from its captured hook events.",
                epilog=examples("agentscan trace --list                  # the sessions with captured events",
                                "agentscan --demo trace 7f3c9a12 --last 2",
                                "agentscan --demo trace 7f3c9a12 --redact --json"))(trace_command)


@handle_errors
def trace_command(
    ctx: typer.Context,
    session_id: Optional[str] = typer.Argument(None, metavar="[ID]", help="Conversation/session id, bare or agent:-prefixed, or a unique prefix (6+ chars)."),
    list_sessions: bool = typer.Option(False, "--list", help="List the sessions that have captured hook events instead."),
    redact: bool = redact_option(
        "Replace prompts, thoughts, responses, tool inputs and errors with a length and hash; mask secrets in paths."
    ),
    last: Optional[int] = typer.Option(None, "--last", metavar="N", help="Show only the last N turns."),
    turn: Optional[int] = typer.Option(None, "--turn", metavar="N", help="Show only turn N, numbered as the tree numbers them."),
    as_json: bool = JsonOption,
) -> None:
    """The conversation tree rebuilt from the captured hook events of one session."""
    from agentscan.cli import render
    from agentscan.cli.strictend import strict_end
    from agentscan.errors import NoHookEvents, UsageProblem
    from agentscan.hooks.tree import trace_session

    state = state_of(ctx)
    root = None
    from agentscan.hooks import store

    if not state.demo and (relative := store.ignored_setting()) is not None:
        render.note(f"note: {store.ENV_VAR} is a relative path ({relative}), so it was ignored: trace reads "
                    f"{store.data_dir()} (the hooks store their events there too)")
    if state.demo:
        # The demo's own events (``demo.make_hook_demo``), never the user's store.
        from agentscan.demo import demo_events

        root = str(demo_events())
    if state.home is not None:
        # --home names where agent files are read; the events store is elsewhere (AGENTSCAN_DATA_DIR).
        # Said, not refused: a script or alias may give --home to every command it runs.
        render.note(f"note: --home does not apply to trace: it reads the hook events store {store.data_dir()} "
                    "(AGENTSCAN_DATA_DIR chooses another)")
    if list_sessions:
        if session_id:
            raise UsageProblem("give an ID or --list, not both")
        if last is not None or turn is not None:
            raise UsageProblem(f"{'--last' if last is not None else '--turn'} chooses turns of one session, not with --list")
        from agentscan.cli.trace_list import print_trace_list

        unlisted = print_trace_list(as_json, root, redact=redact)
        if not as_json or state.verbose:  # (in the JSON document's ``warnings`` too)
            render.warn_summary(unlisted, verbose=state.verbose)
        strict_end(state, unlisted, verbose=state.verbose)  # (said under --quiet too: the error's reason)
        return
    from agentscan.hooks.turnpick import chosen_turns

    # A bad N is said before the store is read, and before a missing ID is asked for (a bad
    # value first, as git and gh say it): ``trace --last 0`` asked for an ID, given one, said
    # next that 0 was no turn.
    chosen_turns(None, last, turn)
    if not session_id:
        from agentscan.invocation import trace_words

        where = store.data_dir()
        if not state.demo and not _holds_anything(where):
            # A newcomer's bare ``trace`` was sent to ``trace --list``, which then said that none
            # was captured: said at once, with what to do about it.
            from agentscan.cli.trace_list import installed_hooks
            from agentscan.errors import empty_store_advice

            raise UsageProblem(f"give a session ID: no hook events are captured yet in {where}; "
                               f"{empty_store_advice(*installed_hooks())}")
        raise UsageProblem(f"give a session ID (`{trace_words(demo=state.demo)} --list` shows the captured ones)")
    try:
        trace = trace_session(session_id, root=root, demo=state.demo)
    except NoHookEvents as exc:
        if exc.store_empty and not state.demo:  # installed already? Then "see hooks install" misleads
            from agentscan.cli.trace_list import installed_hooks

            installed, problem = installed_hooks()
            if installed:
                exc = NoHookEvents(session_id, store_empty=True, installed=tuple(installed), store_problem=problem)
        if not state.demo and _demo_captured(session_id):  # the README's ``trace 7f3c9a12``, without --demo
            from agentscan.scan.notfound import demo_hint

            exc.details = (*exc.details, demo_hint(session_id, "trace"))
        else:  # ``codex:ID``: Codex has no hooks ("see hooks install" sent it to an install that refuses it)
            from agentscan.cli.trace_unhooked import unhooked_said

            said = unhooked_said(session_id, exc, state)
            if said is not exc:
                raise said from None
            if (found := _in_transcripts(state, session_id)) is not None:
                # A session of the home's transcripts whose hook events were never captured (the
                # hooks installed after it, or not at all): "see hooks install" alone hid that
                # ``show`` has it.  (The home is looked up on this error path only.)  A bare id
                # of an agent with no hooks is said as its ``codex:ID`` is.
                from agentscan.cli.trace_unhooked import unhooked_agent

                if unhooked_agent(found) is not None:
                    raise unhooked_said(found, exc, state, resolved=found) from None
                exc.details = (*exc.details, _show_hint(state, found))
        raise exc from None
    shown = chosen_turns(len(trace.turns), last, turn)
    if state.demo:
        trace = _found_in_demo_home(trace)
    # What `show` needs to read the transcript (``CLAUDE_CONFIG_DIR=DIR`` for one under no
    # folder read), told from the path as captured, then masked as the path is.
    setting: str | None = ""
    if not state.demo and not as_json and trace.session.transcript_found and trace.session.transcript_path:
        from agentscan.hooks.crosscheck import show_setting

        setting = show_setting(trace.session.agent, trace.session.transcript_path)
    if redact:
        from agentscan.hooks.redact import mask_secrets, redact_trace

        trace = redact_trace(trace)
        setting = mask_secrets(setting) if setting else setting
    if as_json:
        body = trace.body_json()
        body["turns"] = [body["turns"][index] for index in shown]  # the session's summary stays whole
        render.emit_json(render.envelope("trace", body, trace.warnings))
        if state.verbose:  # every warning on stderr with --json too (``state.finish``)
            render.warn_summary(list(trace.warnings), verbose=True)
    else:
        from agentscan.cli.charset import width_of
        from agentscan.cli.term import clean, cut, cut_left
        from agentscan.hooks.text import Layout, lines

        term = render.terminal()
        # One line per node on a terminal, as in the other tables (a summary goes on to the next
        # line rather than lose its end); whole lines in a pipe.  ``lines`` fits each line to the
        # terminal itself: the ``agentscan show`` command to copy stays whole, never cut.
        layout = Layout(term.width, width_of, cut, cut_left) if term.tty else None
        short_id = _short_id(state) if term.tty and state.home is None else None
        if setting:  # the home read without it has no such session to shorten the id against
            short_id = None
        for line in lines(trace, clean, " --demo" if state.demo else "", layout, shown=shown, short_id=short_id,
                          show_setting=setting):
            print(line)
        render.warn_summary(list(trace.warnings), verbose=state.verbose)
    strict_end(state, list(trace.warnings), verbose=state.verbose)


def _in_transcripts(state: Any, session_id: str) -> str | None:
    """The id of the session of the home ``agentscan show`` reads (the demo's with ``--demo``)
    that ``session_id`` names, ``None``: none, or the home could not be read.  Looked up as
    ``show`` looks it up, once discovery says it may name one (``resolve.may_name``)."""
    from agentscan.cli.state import end_progress
    from agentscan.errors import AgentscanError
    from agentscan.scan.resolve import may_name

    try:
        scanner = state.scanner(memo=True)
        # (A mistyped id is told from discovery: ``resolve`` then reads transcripts to say so.)
        return scanner.resolve(session_id).id if may_name(scanner, session_id) else None
    except (AgentscanError, OSError):
        return None
    finally:
        end_progress()


def _show_hint(state: Any, found: str) -> str:
    """``hint: `agentscan [--demo|--home DIR] show ID` shows it …`` of the session ``found``:
    its whole id where the command fits the terminal stderr is, else the short id ``list``
    shows (docs/cli.md's rule for a command to copy)."""
    from agentscan.cli.term import stderr_is_tty, terminal_width, width_of
    from agentscan.hooks.program import shell_word
    from agentscan.invocation import command, hint

    def said(shown: str) -> str:
        return hint(command(f"show {shell_word(shown)}", demo=state.demo, home=state.home),
                    "shows it from its transcript, which agentscan reads without hooks")

    whole = said(found)
    # (The command alone must fit, ``hint: `…```: the words after it wrap, ``term.fitted_error``.)
    if stderr_is_tty() and width_of(whole.partition("` ")[0] + "`") > terminal_width():
        return said(_short_id(state)(found))
    return whole


def _short_id(state: Any) -> Callable[[str], str]:
    """``list``'s short id of a session of the home ``agentscan show`` reads (the demo's with
    ``--demo``), for the command to copy on a terminal too narrow for the whole id: the
    shortest prefix that opens that session alone, which one session's own 8 characters may
    not (two Codex sessions started within a minute share them).  The home is read only
    when asked; unreadable, the session's own prefix stands."""
    def short(session_id: str) -> str:
        from agentscan.cli.copyhint import short_ids_of
        from agentscan.cli.state import end_progress
        from agentscan.errors import AgentscanError
        from agentscan.hooks.text import short_session_id

        try:
            return short_ids_of(state.scanner(memo=True))(session_id)
        except (AgentscanError, OSError):
            return short_session_id(session_id)
        finally:
            end_progress()

    return short


def _demo_captured(query: str) -> bool:
    """Whether ``query`` names a session of the demo's hook events (``--demo trace`` shows it)."""
    from agentscan.demo import demo_events
    from agentscan.errors import AgentscanError
    from agentscan.hooks import store, storedids

    try:
        storedids.resolve(query, store.stored_sessions(str(demo_events())), demo=True)
    except (AgentscanError, OSError):
        return False
    return True


def _found_in_demo_home(trace: Any) -> Any:
    """The demo's captured transcript path names the demo's own home (``/home/demo``): found
    there, ``agentscan --demo show`` is the command to suggest."""
    from dataclasses import replace

    from agentscan.demo import in_demo_home
    from agentscan.hooks.crosscheck import transcript_exists

    found = transcript_exists(in_demo_home(trace.session.transcript_path))
    return replace(trace, session=replace(trace.session, transcript_found=found))


def _holds_anything(folder: str | os.PathLike[str]) -> bool:
    """Whether the events store ``folder`` exists and holds any entry (one that cannot be
    listed: as holding some, ``trace --list`` says why)."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is not None
    except FileNotFoundError:
        return False
    except OSError:
        return True
