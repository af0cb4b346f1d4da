"""Every domain exception agentscan raises.

The library raises these; only ``agentscan.cli`` maps them to exit codes::

    AgentscanError                 base; exit 1 unless a subclass says otherwise
    ├── UsageProblem               the user's input cannot be used (exit 2)
    │   └── UnknownProvider        a --provider name that is not registered (exit 2)
    ├── SessionNotFound            no session matches an id (exit 1)
    │   ├── IdTooShort             a prefix too short to look up (exit 1)
    │   ├── ProviderNotId          a provider's name given as an id (exit 1)
    │   └── NoHookEvents           no captured hook events for an id (exit 1)
    ├── AmbiguousSessionId         a prefix matches several sessions (exit 1)
    ├── SessionUnreadable          a session could not be read at all (exit 1)
    │   └── TranscriptUnreadable   its transcript could not be opened or read (exit 1)
    ├── NoReadableRoot             an explicitly named root cannot be read (exit 1)
    ├── ScannerClosed              a question asked of a closed ``Scanner`` (exit 1)
    ├── StrictWarnings             --strict and warnings were reported (exit 1)
    ├── ExportFailed               an export could not be written (exit 1)
    ├── OutputFailed               an OTLP file could not be written (exit 1)
    ├── UnsafeOutput               an output another user could have planted: not written (exit 1)
    ├── StdoutClosed               stdout was closed before the command began (exit 1)
    ├── StdoutUnwritable           stdout refused the output (a full disk, an I/O error) (exit 1)
    ├── SendFailed                 the OTLP collector refused a batch (exit 1)
    ├── HookConfigError            a hook config agentscan will not change (exit 1)
    ├── CodeChanged                agentscan's own files changed while it ran: an upgrade (exit 1)
    └── DatabaseUnavailable        a provider DB cannot be used (caught by providers)

Bad input inside provider files is never an exception: it becomes a
``ScanWarning`` and the scan goes on.

Every one pickles (``AgentscanError.__reduce__``): a worker process's error reaches its
parent (``concurrent.futures``, ``multiprocessing``), whatever its ``__init__`` takes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from agentscan.toolkit.words import quoted

if TYPE_CHECKING:
    from agentscan.otlp.sender import SendResult


class AgentscanError(Exception):
    """``str()`` is the one-line message; ``details`` are lines a person reads under it
    (candidates to choose from, a hint), which the CLI prints each on a line of its own."""

    exit_code = 1
    details: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle's default calls ``cls(*self.args)``: ``args`` is the message, which no
        # ``__init__`` of another signature takes (``ScannerClosed()``, ``UnknownProvider(name,
        # known)``).  Made again as it is instead: its message and its attributes.
        return (_rebuilt, (type(self), self.args, self.__dict__))


def _rebuilt(cls: type[AgentscanError], args: tuple[object, ...], state: dict[str, object]) -> AgentscanError:
    error = cls.__new__(cls, *args)  # (``BaseException.__new__`` keeps ``args``; no ``__init__``)
    error.__dict__.update(state)
    return error


class UsageProblem(AgentscanError):
    """``parameter``: the library parameter whose value is refused (``by``, ``since``), when
    one is: a caller tells which without parsing the message, which names it in the
    library's words (``by``), the CLI's in its own (``--by``)."""

    exit_code = 2
    parameter: str | None = None

    def __init__(self, *args: object, parameter: str | None = None) -> None:
        super().__init__(*args)
        if parameter is not None:
            self.parameter = parameter


class SessionNotFound(AgentscanError):
    """``reason``: why, when more can be said than that nothing matched (a path given).
    ``list_hint``: the CLI says which command lists the ids, naming the home it read;
    ``empty_home``: that the home read holds no session, and which command says why."""

    list_hint = False
    #: the home read holds no session at all: the CLI says where to look (``doctor``)
    empty_home = False
    #: the id typed, when it is one of the demo home's and ``--demo`` was not given: the CLI
    #: says the command that reads it (``scan.notfound.demo_hint``)
    demo_query: str | None = None

    def __init__(self, query: str, reason: str | None = None) -> None:
        super().__init__(f"no session matches {quoted(query)}" + (f": {reason}" if reason else ""))
        self.query = query

    def typed_as(self, typed: str) -> SessionNotFound:
        """This error said of the words the user ``typed``, which were read as its ``query``
        (ccusage's id of a Codex session, ``rollout-…-<uuid>``, read as ``codex:<uuid>``):
        ``no session matches 'rollout-…' (read as codex:<uuid>)``, what they typed first."""
        head = f"no session matches {quoted(self.query)}"
        said = str(self)
        if said.startswith(head):
            self.args = (f"no session matches {quoted(typed)} (read as {self.query})" + said[len(head):], *self.args[1:])
        self.query = typed
        return self


class IdTooShort(SessionNotFound):
    """``shown_by``: the command that lists the ids this one looks up (``trace`` ids are
    not ``list``'s: they come from ``agentscan trace --list``); ``None``: ``list``'s, which
    the CLI names with the home it read (``list_hint``)."""

    def __init__(self, query: str, minimum: int, shown_by: str | None = None, after: str = "") -> None:
        shown = f" (`{shown_by}` shows them)" if shown_by is not None else ""
        # ``after``: a word the id follows, which counts for none of them (``agent-``)
        where = f" after {after}" if after else ""
        AgentscanError.__init__(self, f"{quoted(query)} is too short: give at least {minimum} characters of the id{where}{shown}")
        self.query = query
        self.list_hint = shown_by is None


class ProviderNotId(SessionNotFound):
    """A provider's name (``gemini``, ``codex:``) given where a session id is taken, and no
    session's native id begins so: never a prefix of the ``provider:`` word, which would open
    the one session of a home that has one, or a script's ``$provider`` its newest.  The CLI
    names the command that lists that provider's sessions, with the home it read; ``shown_by``:
    the command that lists the ids looked up instead (``trace``'s: ``agentscan trace --list``)."""

    def __init__(self, query: str, provider: str, shown_by: str | None = None) -> None:
        shown = f" (`{shown_by}` shows the ids)" if shown_by is not None else ""
        AgentscanError.__init__(self, f"{quoted(query)} is a provider, not a session id{shown}")
        self.query = query
        self.provider = provider
        self.shown_by = shown_by


class NoHookEvents(SessionNotFound):
    """``demo``: the demo's events store was read (``--demo``), which no install fills;
    ``installed``: the agents whose config has agentscan's hook (``Claude Code``), when the
    caller looked: an empty store is then not for want of an install (``empty_store_advice``);
    ``unlisted``: the store's folders that could not be listed, ``path: why`` (the session may
    be in one): said under the error, not "see hooks install"; ``unhooked``: the agent the
    query names has no hooks (``Codex``): said so, not an install that refuses it."""

    def __init__(self, query: str, *, store_empty: bool, demo: bool = False, installed: tuple[str, ...] = (),
                 store_problem: str | None = None, unlisted: tuple[str, ...] = (), unhooked: str | None = None) -> None:
        where = "no hook events have been captured yet" if store_empty else f"no hook events for {quoted(query)}"
        from agentscan.invocation import command

        if unlisted:
            where = f"no hook events for {quoted(query)} in the folders of the events store agentscan could list"
            advice = f"it may be in one it could not ({len(unlisted)}):"
            self.details = tuple(f"  {line}" for line in unlisted)
        elif unhooked:
            where = f"no hook events for {quoted(query)}"
            advice = f"{unhooked} has no hooks: agentscan reads its sessions from its files"
        elif demo:
            advice = f"`{command('trace --list', demo=True)}` shows the demo's sessions"
        elif store_empty:
            advice = empty_store_advice(installed, store_problem)
        else:
            advice = f"see `{command('hooks install')}` (and `{command('trace --list')}` for the sessions captured)"
        AgentscanError.__init__(self, f"{where}; {advice}")
        self.query = query
        self.store_empty = store_empty
        self.unlisted = unlisted


def empty_store_advice(installed: tuple[str, ...] | list[str], store_problem: str | None = None) -> str:
    """What to do about an events store with no event: install the hooks, or, when they are
    installed already (``installed``: the agents), restart the agent, which loads its hooks
    when it starts, and see where the hook stores its events (``hooks status``); but when the
    hook cannot write the store (``store_problem``, ``hooks.status.store_problem``), that,
    which no restart mends."""
    from agentscan.invocation import command

    if not installed:
        return f"see `{command('hooks install')}`"
    names = " and ".join(installed)
    if store_problem:
        return f"agentscan's hook is installed for {names}, but {store_problem}"
    return (f"agentscan's hook is installed for {names}: restart {'it' if len(installed) == 1 else 'them'} "
            f"(a session already running keeps the hooks it started with), then run a prompt; "
            f"`{command('hooks status')}` says where the events go")


class AmbiguousSessionId(AgentscanError):
    """Several sessions answer ``query``.  ``candidates``: their ids, every one; ``notes``:
    what tells some of them apart (an id -> its updated time and project), shown beside the
    first ``SHOWN`` as git lists the objects a short hash could name.  Ids, times and paths
    only: an error is pasted into bug reports, so it quotes no title or prompt."""

    #: candidates listed one per line; the rest are counted ("… and 12 more")
    SHOWN = 10

    def __init__(self, query: str, candidates: list[str], *, notes: Mapping[str, str] | None = None,
                 hint: str = "give more characters of the id, or one of the ids above in full") -> None:
        super().__init__(f"{quoted(query)} is ambiguous: it matches {len(candidates):,} sessions")
        self.query = query
        self.candidates = candidates
        notes = notes or {}
        from agentscan.toolkit.andmore import cut_lines

        width = max((len(candidate) for candidate in candidates[: self.SHOWN]), default=0)  # (the shown ones')
        lines = [f"  {candidate:<{width}}  {notes[candidate]}" if notes.get(candidate) else f"  {candidate}"
                 for candidate in candidates]
        self.details = (*cut_lines(lines, self.SHOWN, indent="  "), f"hint: {hint}")


class SessionUnreadable(AgentscanError):
    def __init__(self, session_id: str, reason: str) -> None:
        from agentscan.invocation import command

        super().__init__(f"could not read {session_id} ({reason}); please report this with `{command('doctor')}`")


class TranscriptUnreadable(SessionUnreadable):
    """A session's transcript could not be opened or read (a permission, an I/O error): its
    records are not known, which is not a session that recorded nothing (exit 1)."""

    def __init__(self, session_id: str, path: str, reason: str, *, in_part: bool = False) -> None:
        # ``in_part``: its own file was read only up to its damage, before any usage (a legacy
        # Gemini chat cut: ``SessionRow.usage_cut``): read, so not "cannot read"
        said = f"usage of {session_id} not known" if in_part else f"cannot read {session_id}"
        AgentscanError.__init__(self, f"{said}: {path}: {reason}")


class UnknownProvider(UsageProblem):
    """A provider's name that is not registered: a ``UsageProblem`` (exit 2) whose
    ``parameter`` is the one that named it (``providers``; ``provider_names`` for a
    ``Scanner``'s); ``name`` is the name, ``known`` the registered ones."""

    project_hint = False

    def __init__(self, name: str, known: list[str], parameter: str = "providers") -> None:
        from agentscan.toolkit.words import agent_aside, agent_named_otherwise, close_names, unknown_choice

        close = close_names(name, known) or agent_named_otherwise(name, known)
        aside = "" if close else agent_aside(name, known)  # (``claude-desktop``, ``openai``: said, not guessed)
        text = unknown_choice("provider", name, known, meant=close[0] if close else "")
        super().__init__(f"{text} ({aside})" if aside else text, parameter=parameter)
        self.name = name
        self.known = list(known)
        self._choice = "" if close else text
        #: no slip for a provider's name: maybe ccusage's ``-p``, a project, which the CLI says
        #: it has as ``--cwd`` (a hint about options, not for a library caller: ``cli.state.say_error``)
        self.project_hint = not close and not aside

    def worded_for(self, model: str | None) -> str:
        """The message with a vendor's aside (``-p openai``) saying how the command that failed
        picks the models, ``model`` (``agent_aside``'s): ``list``'s ``--grep gpt``, ``tokens``'
        ``--by model``, or none (``export``: ``--grep`` is ``list``'s alone)."""
        if not self._choice:
            return str(self)
        from agentscan.toolkit.words import agent_aside

        aside = agent_aside(self.name, self.known, model=model)
        return f"{self._choice} ({aside})" if aside else self._choice


class NoReadableRoot(AgentscanError):
    pass


class ScannerClosed(AgentscanError):
    """A question asked of a ``Scanner`` after ``close()`` (the end of its ``with`` block),
    as httpx refuses a closed client: it would otherwise answer without its index and the
    agents' databases it had closed, more slowly and unsaid."""

    def __init__(self) -> None:
        super().__init__("this Scanner is closed: ask inside its `with` block, call refresh() to reopen it, "
                         "or make a new Scanner")


class StrictWarnings(AgentscanError):
    """``count`` warnings fail ``--strict``; ``still_written`` more were said but do not
    (a truncated last line of a file written to lately: ``settling``), so the count
    reads against the lines printed above it, a file's "N more" counted as its N."""

    def __init__(self, count: int, still_written: int = 0, past: tuple[int, int] = (0, 0)) -> None:
        from agentscan.toolkit.words import plural

        # ``past``: of ``count``, the entries that count a file's warnings past its listed ones,
        # and how many warnings they count (``warningsink.counted_past``): the warnings met are
        # said, as ``git``/``gh`` count what they found, not the entries that list them
        count += past[1] - past[0]
        message = f"{plural(count, 'warning')} (--strict)"
        if still_written:
            message = (f"{message}; {still_written:,} more, a truncated last line of a file still being "
                       f"written, not counted" if still_written == 1 else
                       f"{message}; {still_written:,} more, truncated last lines of files still being "
                       f"written, not counted")
        super().__init__(message)
        self.count = count


class ExportFailed(AgentscanError):
    """The output could not be written (exit 1); the previous file is intact."""


class OutputFailed(AgentscanError):
    """An OTLP file could not be written (exit 1); a previous file is left intact."""


class UnsafeOutput(AgentscanError):
    """An output path another user may have planted (a symlink of theirs, their file in a
    sticky world-writable directory such as ``/tmp``): not followed, not replaced, not
    written into (exit 1), as the kernel's ``fs.protected_symlinks`` and
    ``fs.protected_regular`` rules would refuse it (``toolkit.atomicfile.output_target``)."""


class StdoutClosed(AgentscanError):
    """The command has something to print and stdout was closed when it began (``>&-``):
    exit 1, as ``export -o -`` says it, not an answer lost with exit 0."""

    def __init__(self) -> None:
        super().__init__("cannot write to stdout: it is closed")


class StdoutUnwritable(AgentscanError):
    """Writing the command's output to stdout failed for another reason than its reader
    leaving (a file on a full disk, an I/O error): exit 1 with the system's words, as
    ``export -o -`` says it, not a traceback."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"cannot write to stdout: {reason}")


class SendFailed(AgentscanError):
    """The collector did not take a batch (exit 1); ``sent`` counts only what it acknowledged."""

    def __init__(self, message: str, sent: SendResult) -> None:
        super().__init__(message)
        self.sent = sent


class HookConfigError(AgentscanError):
    """A hook config file that agentscan will not change (exit 1).  ``unwritten``: of one its
    agent reads all the same (comments in Gemini CLI's, a key twice, a number too large), what
    stops agentscan from writing it back, said after the file's name (``it holds …``)."""

    unwritten: str | None

    def __init__(self, message: str, *, unwritten: str | None = None) -> None:
        super().__init__(message)
        self.unwritten = unwritten


class DatabaseUnavailable(AgentscanError):
    """A provider database is missing, not SQLite, locked, or has an unknown shape.

    Never reaches the CLI: providers catch it and fall back to the files, with a warning.
    ``sqlite_code``: the primary SQLite result code of the failure it stands for
    (``toolkit.sqlitecodes``; 0: none), which a provider tells a lock by, not by the words.
    """

    sqlite_code: int

    def __init__(self, message: str, *, sqlite_code: int = 0) -> None:
        super().__init__(message)
        self.sqlite_code = sqlite_code


class CodeChanged(AgentscanError):
    """An import of agentscan's own code failed mid-run (exit 1): its files were replaced while
    it ran (``pip install -U`` while a cron export was scanning), and the running process
    loaded a module of the new version that lacks what the old one asks for.  No session is
    to blame, and every one would be skipped: an export wrote a third of its usage rows with
    exit 0.  The run stops before writing its output; the next one runs the new version whole."""

    def __init__(self, exc: ImportError) -> None:
        super().__init__(f"agentscan's files changed while this command ran (an upgrade in place?): {exc}; "
                         "run it again (if it fails the same way again, agentscan's install is broken: reinstall it)")


def own_import_failed(exc: BaseException) -> bool:
    """Whether ``exc`` is an import of agentscan's own code failing (``CodeChanged``), not of
    an optional library a provider uses."""
    return isinstance(exc, ImportError) and (exc.name or "").partition(".")[0] == "agentscan"
