"""Worker processes for cold parses: one per core, never outliving the command.

A cold ``tokens`` over a heavy user's history is CPU-bound, and the machine's
other cores are idle, so the sessions to parse are shared out to forked
workers.  The workers are plain ``os.fork`` children fed over pipes rather
than a ``ProcessPoolExecutor``, because what matters most here is that they
stop when the command stops (docs/security.md):

* each child asks the kernel to kill it when its parent dies
  (``PR_SET_PDEATHSIG`` on Linux), and, on every platform, a thread blocks
  on a pipe only the parent holds open: when the parent is gone for any
  reason (``kill -9`` included), the read returns and the child exits;
* children ignore SIGINT: Ctrl-C reaches the whole process group, and the
  parent alone decides, killing its children before it exits;
* the parent kills and reaps every child on any exception, so SIGINT and
  SIGTERM end the whole command at once.

Jobs are indexes into data the parent built before forking (the children see
it as it was), so only results cross the pipes, pickled.
"""

from __future__ import annotations

import gc
import os
import pickle
import selectors
import signal
import struct
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef

_HEADER = struct.Struct("!Q")


def usable_workers(limit: int = 8) -> int:
    """How many workers are worth forking here (0: stay in this process)."""
    if not hasattr(os, "fork") or sys.platform == "win32":
        return 0
    try:
        cores = len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return min(cores, limit) if cores > 1 else 0


def job_bytes(ref: SessionRef, ctx: ScanContext) -> int:
    """How much a job over ``ref`` reads: its files' sizes (jobs go out largest first, so
    that the workers finish together)."""
    total = 0
    for path in ref.read_files:
        stat = ctx.stat(path)
        total += stat.st_size if stat is not None else 0
    return total


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


def _send(fd: int, value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    _write_all(fd, _HEADER.pack(len(payload)))  # apart: header + payload was a copy of the payload
    _write_all(fd, payload)


def _receive(fd: int) -> Any:
    header = _read_exactly(fd, _HEADER.size)
    if header is None:
        raise EOFError("worker went away")
    payload = _read_exactly(fd, _HEADER.unpack(header)[0])
    if payload is None:
        raise EOFError("worker went away")
    return pickle.loads(payload)


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


def _become_child(parent: int, watch: int) -> None:
    """What every forked child does first: leave Ctrl-C to the parent, die with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _die_with_parent(parent, watch)


def _child(parent: int, tasks: int, results: int, watch: int, job: Callable[[int], Any]) -> None:
    global _running
    _become_child(parent, watch)
    # Forked before its parent counted the pool: a worker is one of the processes holding
    # the cores too (a huge row read here must fork no helper: ``sidepass``).
    _running += 1
    while True:
        batch = _receive(tasks)
        if batch is None:
            return
        out = []
        for index in batch:
            try:
                out.append((index, True, job(index)))
            except Exception as exc:  # noqa: BLE001 - the parent parses this one itself
                out.append((index, False, repr(exc)))
        _send(results, out)


class _Worker:
    __slots__ = ("pid", "tasks", "results", "busy")

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results, self.busy = pid, tasks, results, False


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT held back across a fork: a child must not get a KeyboardInterrupt before it
    ignores it, and the parent records its child (to stop it) before a Ctrl-C that came
    meanwhile is raised, when this block ends."""
    callers_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, callers_mask)  # a caller that held SIGINT back still does


def _fork(child: Callable[[], None]) -> int:
    """Fork (inside ``_sigint_blocked``); the child runs ``child`` and exits, never
    returning into the parent's code. The child's pid, in the parent.

    What the parent holds when it forks is never collected in the child (``gc.freeze``):
    garbage not collected yet (a scanner dropped unclosed: its context and it refer to each
    other) may hold a connection to the index, which the child's collection would close,
    rolling back or checkpointing under the parent's feet (SQLite: no connection across a
    fork)."""
    gc.freeze()
    try:
        pid = os.fork()
    except BaseException:
        gc.unfreeze()
        raise
    if pid == 0:
        code = 0
        try:
            child()
        except BaseException:  # noqa: BLE001 - a child never returns into the parent's code
            code = 1
        finally:
            os._exit(code)
    gc.unfreeze()  # here, collected as ever; the child keeps them frozen
    return pid


def _close(*fds: int) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def run_parallel(job: Callable[[int], Any], batches: Sequence[Sequence[int]], workers: int, *,
                 meanwhile: Callable[[], bool] | None = None) -> Iterator[tuple[int, bool, Any]]:
    """``(index, ok, result)`` of ``job(index)`` for every index of ``batches``, as they come.

    ``meanwhile``: work of the parent's own, a piece per call, done whenever no result
    is waiting (it returns ``False`` when none is left); the workers are handed their
    next batch between two pieces.

    ``ok`` is false when the job raised in the worker (``result`` is its
    ``repr``): the caller can run that one itself.  Batches go out one at a
    time to whichever worker is free.  However this ends (a fork refused, a
    Ctrl-C), every worker forked is stopped and every pipe closed.
    """
    parent = os.getpid()
    watch_read, watch_write = os.pipe()
    pool: list[_Worker] = []
    try:
        with _sigint_blocked():
            for _ in range(min(workers, len(batches))):
                task_read, task_write = os.pipe()
                result_read, result_write = os.pipe()

                def child(task_read: int = task_read, result_write: int = result_write,
                          others: tuple[int, ...] = (task_write, result_read, watch_write,
                                                     *(fd for w in pool for fd in (w.tasks, w.results)))) -> None:
                    _close(*others)
                    _child(parent, task_read, result_write, watch_read, job)

                try:
                    pid = _fork(child)
                except OSError:
                    _close(task_write, result_read)
                    raise
                finally:
                    _close(task_read, result_write)
                pool.append(_Worker(pid, task_write, result_read))
    except BaseException:
        _close(watch_read)
        _stop(pool, watch_write)
        raise
    # Only the children read it (EOF: the parent is gone); closed once, here, never again:
    # its number may belong to another file by the time this generator ends.
    _close(watch_read)
    global _running
    _running += 1
    try:
        yield from _dispatch(pool, batches, meanwhile)
    finally:
        _running -= 1
        _stop(pool, watch_write)


#: pools of ``run_parallel`` whose workers are at work now (their parent's ``meanwhile`` too)
_running = 0


def busy() -> bool:
    """Whether this process's workers hold the cores now: a helper forked meanwhile
    would share them with the workers rather than take a free one."""
    return _running > 0


def _dispatch(pool: list[_Worker], batches: Sequence[Sequence[int]],
              meanwhile: Callable[[], bool] | None) -> Iterator[tuple[int, bool, Any]]:
    pending = list(batches)
    pending.reverse()
    more = meanwhile is not None
    with selectors.DefaultSelector() as selector:
        for worker in pool:
            selector.register(worker.results, selectors.EVENT_READ, worker)
            _next(worker, pending)
        while any(worker.busy for worker in pool):
            ready = selector.select(0 if more else None)
            if not ready and meanwhile is not None and more:
                more = meanwhile()
                continue
            for key, _ in ready:
                worker = key.data
                try:
                    results = _receive(worker.results)
                except EOFError:
                    raise RuntimeError("a worker process died") from None
                worker.busy = False
                _next(worker, pending)
                yield from results


def _next(worker: _Worker, pending: list[Sequence[int]]) -> None:
    if pending:
        _send(worker.tasks, list(pending.pop()))
        worker.busy = True


def _stop(pool: list[_Worker], watch_write: int) -> None:
    """End every worker: politely when they are idle, at once otherwise; reap them all."""
    for worker in pool:
        try:
            if worker.busy:
                os.kill(worker.pid, signal.SIGKILL)
            else:
                _send(worker.tasks, None)
        except OSError:
            pass
    _close(*(fd for worker in pool for fd in (worker.tasks, worker.results)), watch_write)
    for worker in pool:
        try:
            os.waitpid(worker.pid, 0)
        except ChildProcessError:
            pass


#: a helper idle this long is one its parent forgot: it ends itself
HELPER_IDLE_SECONDS = 120.0


class HelperGone(Exception):
    """The helper process is not there to answer (it died, or could not be started)."""


class Helper:
    """One long-lived child that prepares something (``setup``) while the parent works,
    then answers the parent's questions (``serve``), one at a time, over pipes.

    It stops with the command as workers do (``PR_SET_PDEATHSIG``, a watchdog pipe,
    SIGINT ignored), ends itself when idle for ``HELPER_IDLE_SECONDS``, and is killed
    and reaped by ``stop``.
    """

    def __init__(self, setup: Callable[[], None], serve: Callable[[Any], Any], *, start: bool = True) -> None:
        """``start``: fork it now. A caller that must stop it however the fork ends (a
        Ctrl-C just after it) makes it with ``start=False``, then calls ``start`` inside
        its ``try``/``finally: stop()``."""
        self._setup, self._serve = setup, serve
        self.pid: int | None = None
        self._fds: tuple[int, ...] = ()
        if start:
            self.start()

    def start(self) -> None:
        """Fork the helper (raises ``HelperGone`` or ``OSError`` when it cannot be)."""
        if not hasattr(os, "fork"):
            raise HelperGone("no fork here")
        parent = os.getpid()
        fds: list[int] = []
        try:
            for _ in range(3):
                fds.extend(os.pipe())
        except OSError:  # out of descriptors: close the pipes made so far
            _close(*fds)
            raise
        watch_read, self._watch, task_read, self._tasks, self._results, result_write = fds

        def child() -> None:
            _close(self._watch, self._tasks, self._results)
            _helper(parent, task_read, result_write, watch_read, self._setup, self._serve)

        with _sigint_blocked():
            try:
                pid = _fork(child)
            except OSError:  # EAGAIN, ENOMEM: no helper, and no pipes left open
                _close(*fds)
                raise
            _close(watch_read, task_read, result_write)
            self._fds = (self._tasks, self._results, self._watch)
            self.pid = pid

    def ask(self, question: Any) -> Any:
        """``serve(question)`` as the helper computed it; raises ``HelperGone``."""
        self.send(question)
        return self.receive()

    def send(self, question: Any) -> None:
        """Hand the helper a question and go on (``receive`` takes the answer); raises ``HelperGone``."""
        if self.pid is None:
            raise HelperGone("stopped")
        try:
            _send(self._tasks, question)
        except OSError as exc:
            self.stop()
            raise HelperGone(str(exc)) from None

    def receive(self) -> Any:
        """The answer to the question sent last (waits for it); raises ``HelperGone``, also
        for an answer that cannot be unpickled here (``pickle.loads`` raises what a
        ``__reduce__`` of the helper's raises when called here, not only ``UnpicklingError``)."""
        if self.pid is None:
            raise HelperGone("stopped")
        try:
            return _receive(self._results)
        except Exception as exc:  # noqa: BLE001 - see above; a Ctrl-C is not caught
            self.stop()
            raise HelperGone(str(exc)) from None

    def stop(self) -> None:
        """Kill and reap it (it holds nothing worth a polite goodbye); a helper never
        started, or stopped already, is left as it is."""
        pid, self.pid = self.pid, None
        fds, self._fds = self._fds, ()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _close(*fds)
        if pid is not None:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _helper(parent: int, tasks: int, results: int, watch: int, setup: Callable[[], None],
            serve: Callable[[Any], Any]) -> None:
    _become_child(parent, watch)
    setup()
    import select

    while True:
        if not select.select([tasks], [], [], HELPER_IDLE_SECONDS)[0]:
            return
        question = _receive(tasks)
        if question is None:
            return
        _send(results, serve(question))
