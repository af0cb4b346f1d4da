"""What every child process agentscan forks shares: the fork, its first steps, its pipes.

The pool of parse workers (``workers``) and a long-lived ``helperproc.Helper``
are both plain ``os.fork`` children that must never outlive the command
(docs/security.md; why not a ``ProcessPoolExecutor``: ``workers``).  So each
is forked with SIGINT held back (``sigint_blocked``) and the parent's heap
frozen in it (``fork_child``), starts by leaving Ctrl-C to its parent and arranging
to die with it (``become_child``), and exchanges pickled values with it over
pipes (``send_pickled``, ``receive_pickled``).
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import struct
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

_HEADER = struct.Struct("!Q")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exactly(fd: int, count: int) -> bytearray | None:
    # Into one buffer: chunks joined at the end held a large answer twice.
    data = bytearray(count)
    view, done = memoryview(data), 0
    while done < count:
        read = os.readv(fd, [view[done:]])
        if not read:
            return None
        done += read
    return data


def send_pickled(fd: int, value: Any) -> None:
    """``value`` pickled, after its length (``receive_pickled`` reads it whole)."""
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    _write_all(fd, _HEADER.pack(len(payload)))  # apart: header + payload was a copy of the payload
    _write_all(fd, payload)


def receive_pickled(fd: int) -> Any:
    """The next value ``send_pickled`` wrote; ``EOFError`` when the other end closed first.
    Unpickled as it is read (``_Payload``): read whole first, a large answer (a 1 GB
    ``show``'s helper's, 4.8 MB) was held beside the objects made from it."""
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        raise EOFError("worker went away")
    payload = _Payload(fd, _HEADER.unpack(header)[0])
    try:
        value = pickle.load(payload)
    except EOFError:
        raise
    except Exception:
        payload.drain()  # the next value starts where this one's bytes end, whatever they held
        raise
    payload.drain()
    return value


class _Payload:
    """The ``size`` bytes of one pickled value on ``fd``, as ``pickle.load`` reads a file: never
    past them.  ``readinto``: a large ``bytes`` is read straight into the object made for it."""

    def __init__(self, fd: int, size: int) -> None:
        self._fd = fd
        self._left = size

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        wanted = min(len(view), self._left)
        done = 0
        while done < wanted:
            read = os.readv(self._fd, [view[done:wanted]])
            if not read:
                raise EOFError("worker went away")
            done += read
        self._left -= done
        return done

    def read(self, size: int = -1) -> bytes:
        data = bytearray(self._left if size is None or size < 0 else min(size, self._left))
        self.readinto(data)
        return bytes(data)

    def readline(self) -> bytes:
        # (Only a text protocol reads lines: ``send_pickled`` writes the highest, binary.)
        line = bytearray()
        while self._left and not line.endswith(b"\n"):
            line += self.read(1)
        return bytes(line)

    def drain(self) -> None:
        while self._left:
            self.read(min(self._left, 1 << 20))


def _die_with_parent(parent: int, watch: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # the watchdog below still stands
    if os.getppid() != parent:
        os._exit(1)  # the parent died before we could ask

    def watchdog() -> None:
        try:
            os.read(watch, 1)  # only the parent holds the other end: EOF means it is gone
        finally:
            os._exit(1)

    threading.Thread(target=watchdog, daemon=True).start()


def become_child(parent: int, watch: int) -> None:
    """What every forked child does first: leave Ctrl-C to the parent, die with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _die_with_parent(parent, watch)


@contextmanager
def sigint_blocked() -> Iterator[None]:
    """SIGINT held back across a fork: a child must not get a KeyboardInterrupt before it
    ignores it, and the parent records its child (to stop it) before a Ctrl-C that came
    meanwhile is raised, when this block ends."""
    callers_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, callers_mask)  # a caller that held SIGINT back still does


def fork_child(child: Callable[[], None]) -> int:
    """Fork (inside ``sigint_blocked``); the child runs ``child`` and exits, never
    returning into the parent's code. The child's pid, in the parent.

    What the parent holds when it forks is never collected in the child (``gc.freeze``):
    garbage not collected yet (a scanner dropped unclosed: its context and it refer to each
    other) may hold a connection to the index, which the child's collection would close,
    rolling back or checkpointing under the parent's feet (SQLite: no connection across a
    fork).  The child freezes it, first thing, and no collection runs across the fork
    (``gc.disable``): the parent's own frozen objects are never touched, so a program
    that froze its heap (``gc.freeze``) and uses the library keeps it frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                gc.freeze()
                if enabled:
                    gc.enable()
                child()
            except BaseException:  # noqa: BLE001 - a child never returns into the parent's code
                code = 1
            finally:
                os._exit(code)
    finally:  # the parent's collector as it was, whatever a signal handler raised meanwhile
        if enabled:
            gc.enable()
    return pid


def close_fds(*fds: int) -> None:
    """Close every one of ``fds``: one that fails to close (closed already) keeps none of the others open."""
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
