"""Worker processes for cold parses: one per core, never outliving the command.

A cold ``tokens`` over a heavy user's history is CPU-bound, and the machine's
other cores are idle, so the sessions to parse are shared out to forked
workers.  The workers are plain ``os.fork`` children fed over pipes rather
than a ``ProcessPoolExecutor``, because what matters most here is that they
stop when the command stops (docs/security.md; how a child is forked and
starts is ``forking``'s, shared with the long-lived ``helperproc.Helper``):

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

import os
import selectors
import signal
from typing import Any, Callable, Generator, Iterator, Sequence

from agentscan.toolkit.cores import busy, job_bytes, pool_ended, pool_started, usable_workers
from agentscan.toolkit.forking import become_child, close_fds, fork_child, receive_pickled, send_pickled, sigint_blocked

#: ``cores``' names, here too: what only decides whether to fork imports ``cores`` alone
__all__ = ["batches", "busy", "job_bytes", "run_parallel", "usable_workers"]


def _child(parent: int, tasks: int, results: int, watch: int, job: Callable[[int], Any]) -> None:
    become_child(parent, watch)
    # Forked before its parent counted the pool: a worker is one of the processes holding
    # the cores too (a huge row read here must fork no helper: ``sidepass``).
    pool_started()
    while True:
        batch = receive_pickled(tasks)
        if batch is None:
            return
        out = []
        for index in batch:
            try:
                out.append((index, True, job(index)))
            except Exception as exc:  # noqa: BLE001 - the parent parses this one itself
                out.append((index, False, repr(exc)))
        send_pickled(results, out)


class _Worker:
    __slots__ = ("pid", "tasks", "results", "busy")

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results, self.busy = pid, tasks, results, False


def batches(jobs: int, workers: int, most: int) -> list[range]:
    """Job indexes ``0..jobs-1`` in batches of at most ``most``, at least four a worker, so that
    the workers finish together though jobs differ in size."""
    size = max(1, min(most, jobs // (workers * 4)))
    return [range(start, min(start + size, jobs)) for start in range(0, jobs, size)]


def run_parallel(job: Callable[[int], Any], batches: Sequence[Sequence[int]], workers: int, *,
                 meanwhile: Callable[[], bool] | None = None,
                 hold: Callable[[], bool] | None = None) -> Generator[tuple[int, bool, Any], None, None]:
    """``(index, ok, result)`` of ``job(index)`` for every index of ``batches``, as they come.

    ``meanwhile``: work of the parent's own, a piece per call, done whenever no result
    is waiting (it returns ``False`` when none is left); the workers are handed their
    next batch between two pieces.

    ``hold``: while it returns ``True`` a worker that finished is handed no new batch
    (the caller has enough results waiting for their turn); it is asked again each time
    the caller takes a result.  Batches go out in order, so the one the caller waits for
    is never held back.

    ``ok`` is false when the job raised in the worker (``result`` is its
    ``repr``): the caller can run that one itself.  Batches go out one at a
    time to whichever worker is free.  However this ends (a fork refused, a
    Ctrl-C), every worker forked is stopped and every pipe closed.
    """
    parent = os.getpid()
    watch_read, watch_write = os.pipe()
    pool: list[_Worker] = []
    try:
        with sigint_blocked():
            for _ in range(min(workers, len(batches))):
                task_read, task_write = os.pipe()
                result_read, result_write = os.pipe()

                def child(task_read: int = task_read, result_write: int = result_write,
                          others: tuple[int, ...] = (task_write, result_read, watch_write,
                                                     *(fd for w in pool for fd in (w.tasks, w.results)))) -> None:
                    close_fds(*others)
                    _child(parent, task_read, result_write, watch_read, job)

                try:
                    pid = fork_child(child)
                except OSError:
                    close_fds(task_write, result_read)
                    raise
                finally:
                    close_fds(task_read, result_write)
                pool.append(_Worker(pid, task_write, result_read))
    except BaseException:
        close_fds(watch_read)
        _stop(pool, watch_write)
        raise
    # Only the children read it (EOF: the parent is gone); closed once, here, never again:
    # its number may belong to another file by the time this generator ends.
    close_fds(watch_read)
    pool_started()
    try:
        yield from _dispatch(pool, batches, meanwhile, hold)
    finally:
        pool_ended()
        _stop(pool, watch_write)


def _dispatch(pool: list[_Worker], batches: Sequence[Sequence[int]],
              meanwhile: Callable[[], bool] | None,
              hold: Callable[[], bool] | None = None) -> Iterator[tuple[int, bool, Any]]:
    pending = list(batches)
    pending.reverse()
    more = meanwhile is not None
    with selectors.DefaultSelector() as selector:
        for worker in pool:
            selector.register(worker.results, selectors.EVENT_READ, worker)
            _next(worker, pending)
        while True:
            if hold is not None and pending and not hold():
                for worker in pool:  # held back before: the caller has taken results since
                    if not worker.busy:
                        _next(worker, pending)
            if not any(worker.busy for worker in pool):
                break
            ready = selector.select(0 if more else None)
            if not ready and meanwhile is not None and more:
                more = meanwhile()
                continue
            for key, _ in ready:
                worker = key.data
                try:
                    results = receive_pickled(worker.results)
                except EOFError:
                    raise RuntimeError("a worker process died") from None
                worker.busy = False
                if hold is None or not hold():
                    _next(worker, pending)
                yield from results


def _next(worker: _Worker, pending: list[Sequence[int]]) -> None:
    if pending:
        send_pickled(worker.tasks, list(pending.pop()))
        worker.busy = True


def _stop(pool: list[_Worker], watch_write: int) -> None:
    """End every worker: politely when they are idle, at once otherwise; reap them all."""
    for worker in pool:
        try:
            if worker.busy:
                os.kill(worker.pid, signal.SIGKILL)
            else:
                send_pickled(worker.tasks, None)
        except OSError:
            pass
    close_fds(*(fd for worker in pool for fd in (worker.tasks, worker.results)), watch_write)
    for worker in pool:
        try:
            os.waitpid(worker.pid, 0)
        except ChildProcessError:
            pass
