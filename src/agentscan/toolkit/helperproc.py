"""A long-lived helper process: one forked child that answers the parent's questions.

Where the parse workers (``workers``) each take a share of one job and end
with it, a helper prepares something while the parent works and then answers
its questions one at a time: prices (``scan/priceahead.py``), the lighter
providers' censuses (``scan/stamps.py``), their discoveries (``scan/aside.py``),
a huge transcript's token sums (``claude/sidepass.py``).  It is forked and
stops as the workers do (``forking``).
"""

from __future__ import annotations

import os
import signal
from typing import Any, Callable

from agentscan.toolkit.forking import become_child, close_fds, fork_child, receive_pickled, send_pickled, sigint_blocked

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
            close_fds(*fds)
            raise
        watch_read, self._watch, task_read, self._tasks, self._results, result_write = fds

        def child() -> None:
            close_fds(self._watch, self._tasks, self._results)
            _helper(parent, task_read, result_write, watch_read, self._setup, self._serve)

        with sigint_blocked():
            try:
                pid = fork_child(child)
            except OSError:  # EAGAIN, ENOMEM: no helper, and no pipes left open
                close_fds(*fds)
                raise
            close_fds(watch_read, task_read, result_write)
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
            send_pickled(self._tasks, question)
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
            return receive_pickled(self._results)
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
        close_fds(*fds)
        if pid is not None:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def last_answer(helper: Helper | None) -> Any:
    """The answer to the question sent last, ``None`` when there is no helper or it is gone
    (its caller then does the work itself); the helper is stopped either way."""
    if helper is None:
        return None
    try:
        return helper.receive()
    except HelperGone:
        return None
    finally:
        helper.stop()


def _helper(parent: int, tasks: int, results: int, watch: int, setup: Callable[[], None],
            serve: Callable[[Any], Any]) -> None:
    become_child(parent, watch)
    setup()
    import select

    while True:
        if not select.select([tasks], [], [], HELPER_IDLE_SECONDS)[0]:
            return
        question = receive_pickled(tasks)
        if question is None:
            return
        send_pickled(results, serve(question))
