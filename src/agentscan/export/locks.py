"""Where overlapping exports of one output meet: a lock file named after the output's real
path, in agentscan's cache directory (nothing is left beside the output), or, when that
cannot be written (a read-only cache, systemd's ``ProtectHome``), in a private folder of
the temporary directory."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Mapping

from agentscan.toolkit.lockdir import LOCK_DIR_VAR, NotPrivate, ignored_lock_dir, locks_dir, named_dir
from agentscan.filemodes import FILE_MODE, make_private_dirs, open_private


def lock_path(output: Path, env: Mapping[str, str]) -> Path:
    """The lock of ``output`` in agentscan's cache dir."""
    import hashlib

    from agentscan.scan.cache import cache_dir

    try:
        real = os.path.realpath(output)
    except OSError:
        # A link replaced while realpath read it (EINVAL): the path as given still names
        # this output for every run given it; the write's own checks then say what changed.
        real = os.path.abspath(output)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cache_dir(env) / "locks" / f"export-{digest}.lock"


def usable_lock(output: Path, env: Mapping[str, str]) -> tuple[Path, bool]:
    """``lock_path``, its folder made (0700) and the file openable for writing; else the same
    name in ``fallback_dir`` (a cron job under ``ProtectHome``; it and a run in a shell,
    which locks in the cache, meet at ``meeting_path``, when the temporary folder is ``/tmp``);
    and whether it is the cache's (``False``: it fell back).  ``OSError`` (naming the cache's
    folder, and why the fallback could not be used) when neither can be made."""
    lock = lock_path(output, env)
    try:
        _make_dirs(lock.parent)
        # The lock file itself: a read-only mount says "exists" of a folder made before it
        # was mounted so, and refuses only the file.  Never through a link: in a cache folder
        # another user can write (a shared AGENTSCAN_CACHE_DIR) theirs would make a root run
        # create any file it names (/etc/nologin); refused, the private fallback is used.
        os.close(open_private(lock, os.O_WRONLY | os.O_CREAT))
        return lock, True
    except OSError as first:
        try:
            return fallback_dir(env=env) / lock.name, False
        except OSError as second:
            # Both said: "cannot create the lock directory" alone hid a /tmp folder another
            # user had made first (``lockdir.NotPrivate``), the one thing to fix.
            why = str(second) if isinstance(second, NotPrivate) else f"{second.strerror or second}"
            raise OSError(first.errno, f"{first.strerror or first}; nor could the temporary lock folder "
                                       f"be used: {why}") from None


def fallback_dir(temp: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """``AGENTSCAN_LOCK_DIR``, else ``<tmp>/agentscan-<uid>/locks`` (``temp``: another temporary
    folder than the system's), only ever a folder of this user's that no one else may enter:
    another user could make the name first, or a symlink to their own folder
    (``lockdir.NotPrivate``)."""
    import tempfile

    return locks_dir(os.environ if env is None else env, temp or tempfile.gettempdir())


def meeting_path(cache_lock: Path, env: Mapping[str, str] | None = None,
                 warn: Callable[[str, str], None] | None = None) -> Path | None:
    """The lock every run of this user meets at (``toolkit.meetlock``) for the output whose
    cache lock is ``cache_lock``, its folder made private; ``None`` when there is none to take:
    no such folder of this user's alone (``warn`` is told of one another user made)."""
    from agentscan.toolkit.meetlock import MEETING_BASE

    environ = os.environ if env is None else env
    if os.name == "nt" or (named_dir(environ) is None and not os.path.isdir(MEETING_BASE)):
        return None
    try:
        # Named apart from a cache lock that fell back to this folder (``usable_lock``): that
        # one is filelock's, whose file must stay, while this one's is removed as each run ends
        # (``toolkit.meetlock``); so a run whose cache cannot be written meets here too.
        lock = locks_dir(environ, MEETING_BASE) / ("meet-" + cache_lock.name.removeprefix("export-"))
    except NotPrivate as exc:
        if warn is not None:
            # Said, not failed: the cache's lock still keeps runs of one cache apart.
            warn(str(exc.folder), f"not used for the lock every export of one output meets at (runs with other "
                                  f"AGENTSCAN_CACHE_DIRs may overlap): it {exc.why}")
        return None
    except OSError as exc:
        named = named_dir(environ)
        if warn is not None and named is not None:
            # A folder the user named for it: that the lock was not taken is said (a read-only
            # /tmp, the default, stays silent: best effort).
            warn(str(named), f"{LOCK_DIR_VAR} cannot be used for the lock every export of one output meets at "
                             f"(runs with other AGENTSCAN_CACHE_DIRs may overlap): {exc.strerror or exc}")
        return None
    return lock


def legacy_meeting_path(meeting: Path | None, cache_lock: Path) -> Path | None:
    """Where an older agentscan (before ``meet-<hash>.lock``) met every run of the output:
    ``export-<hash>.lock`` beside ``meeting``, a file it made and kept.  While an upgrade
    leaves an older install's cron job running beside this one, both take it, so they still
    wait for each other.  ``None`` when there is no meeting folder, or when it is
    ``cache_lock`` itself (a cache that cannot be written locks there): already held, and a
    second ``flock`` of it by this process would wait for itself."""
    if meeting is None:
        return None
    legacy = meeting.parent / cache_lock.name
    return None if os.path.realpath(legacy) == os.path.realpath(cache_lock) else legacy


def _make_dirs(folder: Path) -> None:
    """``folder`` and any missing parent (the cache dir, and those above it), private like
    the cache (0700 whatever the umask), made on first use."""
    make_private_dirs(folder)


@contextmanager
def output_lock(output: Path, env: Mapping[str, str] | None, lock_timeout: float,
                warn: Callable[[str, str], None] | None = None,
                waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """The output's lock held: overlapping runs of one output wait for each other,
    the scan included (``run_export``), or fail after ``lock_timeout`` seconds.  ``warn``
    (a path, a message): told when the lock every run meets at cannot be taken safely;
    ``waiting``: told (what it waits for) when the lock is held by another run."""
    from agentscan.errors import ExportFailed

    environ = os.environ if env is None else env
    if warn is not None and (relative := ignored_lock_dir(environ)):
        # As a relative AGENTSCAN_CACHE_DIR is said: a cron job's directory is another one.
        warn(relative, f"{LOCK_DIR_VAR} is relative, so it was ignored (only absolute paths are used)")
    try:
        lock_file, in_cache = usable_lock(output, environ)
    except OSError as exc:
        folder = lock_path(output, environ).parent
        raise ExportFailed(f"cannot create the lock directory {folder}: {exc.strerror or exc}") from None
    began = time.monotonic()
    with _terminated_cleanly():
        yield from _held(output, environ, lock_file, in_cache, lock_timeout, began, warn, waiting)


class _Terminated(BaseException):
    """``SIGTERM`` or ``SIGHUP`` while an export held its lock: raised to run the cleanup on
    the way out, then caught by ``_terminated_cleanly`` alone (never seen by a caller)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: the signals that end an export after its cleanup, as Ctrl-C does: ``SIGTERM`` (cron's
#: ``timeout``, systemd stopping a unit) and ``SIGHUP`` (the terminal it ran in closed, an
#: ssh session dropped), whose default action alike ended it at once, leaving its temp file
_ENDING = ("SIGTERM", "SIGHUP")


@contextmanager
def _terminated_cleanly() -> Iterator[None]:
    """``SIGTERM`` (cron's ``timeout``, systemd stopping a unit) or ``SIGHUP`` (a closed
    terminal) while an export holds its lock unwinds it, as Ctrl-C does: by default it ended
    the process at once, leaving the temp file (as big as the export) beside the output and
    the meeting lock's file behind.  Then the process ends by that signal itself, as it would
    have: an exit status (143) made systemd count a ``systemctl stop`` as a failure
    (``OnFailure=``), and a library caller's ``except BaseException`` could swallow a
    ``SystemExit``.  Only in the main thread, and only for a signal left to its default (a
    caller's own handler, or ``nohup``'s ignored ``SIGHUP``, is theirs)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = [number for name in _ENDING if (number := getattr(signal, name, None)) is not None
              and signal.getsignal(number) is signal.SIG_DFL]
    if not caught:
        yield
        return

    def terminated(signum: int, frame: object) -> None:
        # A second signal while the cleanup runs ends the process at once, as it asks.
        for number in caught:
            signal.signal(number, signal.SIG_DFL)
        raise _Terminated(signum)

    # Nested so that a signal between any two steps (the handlers put in, or back as the block
    # ends) is caught here: the ``_Terminated`` it raises never reaches the caller.
    try:
        try:
            for number in caught:
                signal.signal(number, terminated)
            yield
        finally:
            for number in caught:
                signal.signal(number, signal.SIG_DFL)
    except _Terminated as ended:
        _end_by_signal(ended.signum)
        raise SystemExit(1) from None  # (unreached: the signal ended the process)


def _end_by_signal(signum: int) -> None:
    """The signal sent again, its default action restored: the process dies by it (a parent
    sees ``WIFSIGNALED``, a shell ``$?`` 143 for ``SIGTERM``, 129 for ``SIGHUP``), as Python
    ends on an unhandled Ctrl-C."""
    import signal

    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)


def _gave_up(lock_timeout: float) -> str:
    """How long a run that found the output's lock held waited, in its error."""
    if lock_timeout <= 0:  # "gave up after 0 s" read as a wait that was cut short
        return "did not wait (--lock-timeout 0; --lock-timeout S waits up to S seconds)"
    return f"gave up after {lock_timeout:g} s (--lock-timeout S waits longer)"


def _held(output: Path, environ: Mapping[str, str], lock_file: Path, in_cache: bool, lock_timeout: float,
          began: float, warn: Callable[[str, str], None] | None,
          waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """``output_lock``'s two locks, taken and held while the caller's block runs (``in_cache``:
    ``lock_file`` is the cache's, not a shared fallback's)."""
    from filelock import FileLock, Timeout

    from agentscan.errors import ExportFailed

    lock = FileLock(str(lock_file), timeout=lock_timeout, mode=FILE_MODE)
    try:
        try:
            lock.acquire(timeout=0)
        except Timeout:
            # Another export of this output runs (a cron job's, a first one still reading):
            # said, or the second run sat silent for as long as the first took (20 s and more).
            if waiting is not None and lock_timeout > 0:  # (``--lock-timeout 0``: no wait to say)
                waiting(f"waiting for another agentscan export of {output} (up to {lock_timeout:g} s)")
            lock.acquire(timeout=max(0.0, lock_timeout - (time.monotonic() - began)))
    except Timeout:
        raise ExportFailed(f"another agentscan export of {output} is running (lock {lock_file}); "
                           f"{_gave_up(lock_timeout)}") from None
    except OSError as exc:
        raise ExportFailed(f"cannot write {output}: {exc.strerror or exc}") from None
    if in_cache:  # (a shared fallback folder's files are not pruned)
        from agentscan.export.lockprune import mark_used, prune

        mark_used(lock_file)
        prune(lock_file.parent, lock_file)
    from agentscan.toolkit.meetlock import MeetingBusy, meeting_lock

    def left() -> float:
        return max(0.0, lock_timeout - (time.monotonic() - began))

    try:
        # The cache's lock first, then an older agentscan's meeting lock, then this one's, in
        # every run: no two wait for each other in turn.  (A cron job and a shell of other
        # AGENTSCAN_CACHE_DIRs take two cache locks, and meet only there: ``toolkit.meetlock``.)
        meeting = meeting_path(lock_file, environ, warn)
        with meeting_lock(legacy_meeting_path(meeting, lock_file), left(), legacy=True), \
                meeting_lock(meeting, left()):
            yield
    except MeetingBusy as exc:
        raise ExportFailed(f"another agentscan export of {output} is running (lock {exc}); "
                           f"{_gave_up(lock_timeout)}") from None
    finally:
        lock.release()
