"""Which sessions are live: their transcript is held open for writing by a running process,
or (Claude Code) a running process names it in its registry.

On Linux, ``/proc/<pid>/fd`` links name every file a process holds open.
Elsewhere there is no cheap, permission-free equivalent, so ``running`` is
``null`` (unknown) rather than a guess.  So it is for a provider whose running
sessions hold no file open (``Provider.liveness_known``: Gemini CLI appends a
record and closes its chat), or whose only files are ones no running session is
seen holding (a Cursor transcript: ``Provider.liveness_files``), whose ``false`` would be
a guess too.  ``--running`` leaves such sessions out, and says
how many (``Liveness.unknown_counts``: ``list --json``'s ``running_unknown``, and a line on
stderr), not as a warning: a script would miss them, but nothing failed to be read.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from agentscan.providers import liveness_files, liveness_known, running_registries, running_registry

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.providers.runningquestions import RunningRegistry

_PROC = Path("/proc")

#: why no session's ``running`` is known off Linux (``Liveness.unknown_counts``)
OFF_LINUX = "--running and --pid need Linux (/proc)"


@functools.cache
def supported() -> bool:
    """Asked once a process: ``list --all`` asks it for each of 15,000 rows."""
    return sys.platform.startswith("linux") and _PROC.is_dir()


def open_files(*, pid: int | None = None) -> dict[str, set[tuple[int, str]]]:
    """Path of every file held open -> the ``(pid, fd)`` of each holder (one pid if given)."""
    holders: dict[str, set[tuple[int, str]]] = {}
    pids = [str(pid)] if pid is not None else [name for name in _listdir(_PROC) if name.isdigit()]
    for pid_text in pids:
        fd_dir = _PROC / pid_text / "fd"
        for fd in _listdir(fd_dir):
            try:
                target = os.readlink(fd_dir / fd)
            except OSError:
                continue  # the process exited, or it is not ours to inspect
            if target.startswith("/"):
                # A file deleted while open reads "<path> (deleted)": not live any more.
                holders.setdefault(target, set()).add((int(pid_text), fd))
    return holders


def _writes(pid: int, fd: str) -> bool:
    """Whether ``pid`` holds ``fd`` open for writing (``/proc/<pid>/fdinfo``'s ``flags``, octal):
    an agent writes its session's file; a reader (``less``, a backup, another agentscan)
    holding it makes no session running."""
    try:
        with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as handle:
            for line in handle:
                if line.startswith(b"flags:"):
                    return int(line.split()[1], 8) & 0o3 in (0o1, 0o2)  # O_WRONLY, O_RDWR
    except (OSError, ValueError, IndexError):
        pass
    return False


def _listdir(path: Path) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def holders_of(files: Iterable[str | Path], table: dict[str, set[tuple[int, str]]],
               names: set[str] | None = None) -> set[int]:
    """The pids that hold any of ``files`` open for writing; ``names``: the file names of
    ``table``'s paths.

    A process's link names the file's real path.  Resolving every session's path cost an
    ``lstat`` per component (a filtered ``list`` asks for every session); only a file that
    is a symlink itself can be held under another name than its own.
    """
    held: set[tuple[int, str]] = set()
    for path in files:
        text = str(path)
        held |= table.get(text, set())
        if names is not None and os.path.basename(text) not in names and not os.path.islink(text):
            continue  # no open file has its name, and it is no link to one of another name
        held |= table.get(_resolved(path), set())
    return {pid for pid, fd in held if _writes(pid, fd)}


def _resolved(path: str | Path) -> str:
    try:
        return os.path.realpath(path)  # what ``Path.resolve`` does
    except (OSError, RuntimeError, ValueError):
        return str(path)


class Liveness:
    """``running`` for rows: computed once per command from ``/proc`` (Linux only)."""

    def __init__(self, *, pid: int | None = None) -> None:
        self._pid = pid
        self._table: dict[str, set[tuple[int, str]]] | None = None
        self._names: set[str] = set()
        self._file_texts: Callable[[SessionRef], list[str]] | None = None
        #: the providers' registries of running sessions (``Provider.running_registry``), and
        #: what each read of them (once each: ``RunningRegistry.running``)
        self._registries: list[RunningRegistry] | None = None
        self._read: dict[str, Any] = {}
        #: provider -> the ids of the sessions ``of`` could not tell (``None``): a ``--running``
        #: that leaves them out says how many (``unknown_counts``, ``untold``), not that no
        #: process runs them: a script would miss them
        self.unknown: dict[str, set[str]] = {}

    def of(self, ref: SessionRef) -> bool | None:
        running = self._of(ref)
        if running is None:
            self.unknown.setdefault(ref.provider, set()).add(ref.id)
        return running

    def _of(self, ref: SessionRef) -> bool | None:
        if not liveness_known(ref.provider):
            return None  # its files are closed between writes: open or not, it tells nothing
        if self._file_texts is None:
            # Imported here, once: a remembered ``list`` asks ``of_files`` only (no model).
            from agentscan.scan.memorefs import file_texts

            self._file_texts = file_texts
        # Only the files a running session holds open tell (a Cursor transcript does not).
        return self.of_files(liveness_files(ref.provider, self._file_texts(ref))) if supported() else None

    def unknown_counts(self) -> list[dict[str, Any]]:
        """What ``--running`` or ``--pid`` left out because ``of`` could not tell it: one
        ``{"provider", "sessions", "reason"}`` per provider, for ``list --json``'s
        ``running_unknown`` (a script filtering on ``running`` learns its answer is short of
        them) and ``unknown_lines``.  Not a warning: ``warnings`` are input that could not be
        read, and ``--strict`` fails on them; this is what a provider can never tell, so a
        cron check with ``--strict`` could never pass in a home with a Gemini chat."""
        counts = []
        for name in sorted(self.unknown):
            if not supported():  # every session, of every provider, for one reason
                why = OFF_LINUX
            elif (registry := running_registry(name)) is not None:
                why = registry.missing  # (its only unknowns: a home that keeps no registry)
            else:
                from agentscan.providers import label_of

                why = f"no file a running {label_of(name)} holds open tells it"
            counts.append({"provider": name, "sessions": len(self.unknown[name]), "reason": why})
        return counts

    @property
    def untold(self) -> int:
        """How many sessions ``of`` could not tell."""
        return sum(len(ids) for ids in self.unknown.values())

    def of_files(self, files: list[str]) -> bool | None:
        """``of`` a session whose files (else its path) are ``files`` (``memorefs.file_texts``)."""
        if not supported():
            return None
        if self._table is None:
            self._table = open_files(pid=self._pid)
            self._names = {os.path.basename(path) for path in self._table}
        if not files:
            return None  # e.g. an IDE-only Cursor composer: its DB is shared by every session
        if holders_of(files, self._table, self._names):
            return True
        told = [self._registered(text) for text in files]
        if True in told:
            return True
        # A Claude transcript in a home with no registry: an older Claude Code runs its sessions
        # holding no file open, so ``False`` would be a guess (as Gemini's would).
        return None if None in told else False

    def _registered(self, main: str) -> bool | None:
        """Whether a running agent names the session of the file ``main`` in its registry (one
        that holds no file open between writes: Claude Code's, ``Provider.running_registry``);
        ``None``: the registry its home would keep is not there."""
        if self._registries is None:
            self._registries = running_registries()
        told: bool | None = False
        for registry in self._registries:
            running = registry.running(main, self._pid, self._read)
            if running:
                return True
            if running is None:
                told = None
        return told


def unknown_lines(counts: list[dict[str, Any]], option: str, what: str = "`running` not known (null)") -> list[str]:
    """``unknown_counts`` as the lines a terminal's reader gets on stderr: one per provider,
    or one for all off Linux (where the reason is the same for each); ``what``: what of
    theirs is not known (``--archived``'s ``archived_unknown`` says its own)."""
    from agentscan.providers import label_of
    from agentscan.toolkit.words import agreeing, plural

    # (``its``, not ``their``, after one: "1 Gemini CLI session left out, their `running` …" read as a slip)
    if counts and all(count["reason"] == OFF_LINUX for count in counts):
        total = sum(count["sessions"] for count in counts)
        return [f"{option}: {plural(total, 'session')} left out, {agreeing(total).its} {what}: {counts[0]['reason']}"]
    return [f"{option}: {plural(count['sessions'], label_of(count['provider']) + ' session')} left out, "
            f"{agreeing(count['sessions']).its} {what}: {count['reason']}" for count in counts]
