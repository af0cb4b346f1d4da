"""stdout and stderr made safe to print anything to, as a command starts (``settle``).

A stream closed before the process began (``>&-``, ``2>&-``) is ``None``, and a stream
whose encoding cannot hold all of Unicode (``PYTHONIOENCODING=ascii``, ``LC_ALL=C``, a
latin-1 terminal) fails on the first ``…`` or ``↳`` with a ``UnicodeEncodeError``.  Every
writer (``term.write_out``, ``print``, ``render.note``, the progress line, ``say_error``)
goes through ``sys.stdout`` and ``sys.stderr``, so they are made safe here, in one place
(``term.settle_streams`` imports this module only for a stream that needs it).
"""

from __future__ import annotations

import functools
import io
import os
import sys
from typing import TYPE_CHECKING, Any

from agentscan.cli.charset import cannot_encode_all, width_of

if TYPE_CHECKING:
    from agentscan.errors import StdoutUnwritable


def settle() -> None:
    """Make stdout and stderr safe to print anything to, once, as a command starts.

    A stream closed before the process began (``>&-``, ``2>&-``) is ``None``: ``print``
    to a ``None`` stderr writes to stdout, in the middle of the answer.  A closed stderr
    drops what is said on it (the answer, on stdout, is whole: exit 0); a closed stdout
    fails the first write of the command's output with ``StdoutClosed`` (exit 1), as
    ``export -o -`` does, where the answer was lost with exit 0.  A stream whose encoding
    cannot hold all of Unicode (``PYTHONIOENCODING=ascii``, ``LC_ALL=C``, a latin-1
    terminal) writes the rest as stand-ins (``_stand_in``), not a ``UnicodeEncodeError``
    and no output; a UTF-8 stream is left as it is, its bytes unchanged."""
    if sys.stdout is None:
        sys.stdout = _Closed(fails=True)  # type: ignore[assignment]  # what print and click use of a stream
    if sys.stderr is None:
        sys.stderr = _Closed(fails=False)  # type: ignore[assignment]
    for stream in (sys.stdout, sys.stderr):
        _stand_ins_for(stream)


def _stand_ins_for(stream: Any) -> None:
    if not cannot_encode_all(stream):
        return
    stream.reconfigure(errors=_stand_in_handler(stream.errors))


def _stand_in_handler(errors: str) -> str:
    """The name of ``_stand_in`` registered as a codec error handler, for a stream whose
    handler was ``errors``."""
    import codecs

    name = f"agentscan-stand-in-{errors}"
    codecs.register_error(name, functools.partial(_stand_in, escaped=errors == "surrogateescape"))
    return name


#: ASCII for marks agentscan prints itself, a column each as they are.  ``…`` ends a cut
#: (a title, a model, a file's name): ``?`` there read as a question (``Upgrade to Python
#: 3.?``); ``~`` reads as "and more", as in a short DOS name.  A path cut from its start is
#: given ``...`` by the cut itself (``charset.left_mark``), never this ``~`` (``~/…``: home).
_STAND_INS = {"\u21b3": ">", "\u00d7": "x", "\u2265": ">", "\u2026": "~"}


def _stand_in(error: UnicodeError, *, escaped: bool) -> tuple[str | bytes, int]:
    """What an encoding cannot hold: ``?`` for each column a character takes (a table stays
    aligned), ``>`` for ``↳``, ``~`` for a cut's ``…``.  Under ``surrogateescape`` (``LC_ALL=C``: a path's bytes
    past ASCII are read as lone surrogates) such a byte is written back as it was read, as
    the stream did before."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    ch = error.object[error.start]
    if escaped and 0xDC80 <= ord(ch) <= 0xDCFF:
        return bytes([ord(ch) - 0xDC00]), error.start + 1
    return _STAND_INS.get(ch) or "?" * width_of(ch), error.start + 1


def stood_in(text: str, stream: Any) -> str:
    """``text`` with each character ``stream``'s encoding cannot hold written as a table's is
    (``_stand_in``: ``>`` for ``≥``, a ``?`` a column): for stderr, whose ``backslashreplace``
    never fails, so the stream is left as it is (``settle``), and a note under a table said
    ``REASONING \\u2265N`` where the table showed ``>2,117,717``.  A lone surrogate (a path's
    byte under ``LC_ALL=C``) is left to the stream's own handler, as before."""
    encoding = getattr(stream, "encoding", None)
    try:
        text.encode(encoding or "utf-8")
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:
        return text
    assert encoding is not None  # (a missing one is UTF-8, which holds every non-surrogate)
    import re

    handler = _stand_in_handler("strict")
    # The odd parts: runs of lone surrogates, kept as they are (the stream's own handler's).
    parts = re.split(r"([\ud800-\udfff]+)", text)
    return "".join(part if i % 2 else part.encode(encoding, handler).decode(encoding) for i, part in enumerate(parts))


class _Closed:
    """``sys.stdout`` or ``sys.stderr`` when it was closed before the process began: nothing
    is written.  ``fails``: the first text printed raises ``StdoutClosed`` (stdout: the
    answer cannot be given); else it is dropped (stderr).  Writing ``""`` never fails: click
    writes ``b""`` and ``""`` to tell a text stream from a binary one."""

    encoding = "utf-8"
    errors = "strict"
    closed = False

    def __init__(self, *, fails: bool) -> None:
        self._fails = fails

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        return self.written(len(text))

    def written(self, size: int) -> int:
        if size and self._fails:
            from agentscan.errors import StdoutClosed

            raise StdoutClosed
        return size

    @property
    def buffer(self) -> _ClosedBytes:
        return _ClosedBytes(self)

    def flush(self) -> None:
        pass  # the interpreter flushes both as it exits

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise io.UnsupportedOperation("closed before agentscan began")

    def writable(self) -> bool:
        return True


class _ClosedBytes(io.RawIOBase):
    """A ``_Closed`` stream's ``buffer``: JSON and ``export -o -`` write bytes (the CSV
    through a ``TextIOWrapper``, which asks what a file can do)."""

    def __init__(self, text: _Closed) -> None:
        super().__init__()
        self._text = text

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return self._text.written(len(memoryview(data).cast("B")))


def reader_closed(exc: BaseException) -> bool:
    """Whether ``exc`` is stdout's reader having closed its pipe (``agentscan list | head``),
    not a socket's or another file's ``EPIPE``: the pipe is asked (``poll`` says
    ``POLLERR`` once its reading end is gone); where it cannot be asked (Windows), the
    error's number is taken at its word."""
    import errno

    if not isinstance(exc, OSError):
        return False
    # (Windows says a closed pipe with EINVAL as often as with EPIPE)
    if exc.errno != errno.EPIPE and not (os.name == "nt" and exc.errno == errno.EINVAL):
        return False
    return _gone(sys.__stdout__)


def _gone(stream: Any) -> bool:
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    import select

    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


#: what a write to stdout fails with when the file behind it cannot take it (its reader
#: leaving is ``reader_closed``): a full disk or quota, a file too large, an I/O error
_REFUSED = frozenset({"ENOSPC", "EDQUOT", "EFBIG", "EIO"})


def stdout_refused(exc: BaseException) -> bool:
    """Whether ``exc`` is a write to stdout that its file refused (``/dev/full``, a full
    disk): an ``OSError`` of ``_REFUSED`` naming no file (a file agentscan opened by its
    name would be named), and stdout refusing again what it still holds.  The error of a
    read (an unreadable price file's ``EIO``) is not said as stdout's: stdout takes its
    output, and the error is raised as it was."""
    import errno

    if not isinstance(exc, OSError) or exc.filename is not None:
        return False
    if errno.errorcode.get(exc.errno or 0) not in _REFUSED:
        return False
    stream = sys.__stdout__
    if stream is None:
        return False
    try:
        # What the failed write left in the buffer (a refused write may keep it), tried again.
        stream.flush()
    except OSError as again:
        return again.errno == exc.errno
    except ValueError:  # closed
        return False
    # Emptied by the failed write: whether stdout is a file that can take no more.
    return _full(stream, exc.errno or 0)


def _full(stream: Any, code: int) -> bool:
    """Whether ``stream`` is a file that refuses writes with ``code``, told by the file alone:
    a device that is full (``/dev/full``: not a terminal, not the null device, which takes
    everything), or a regular file on a file system with no room left.  A pipe or a terminal
    takes output, and so does a file with room: an error then is another file's (an agent's
    file that could not be read), left to say itself."""
    import errno
    import stat

    if code == errno.EFBIG:
        return _at_size_limit(stream)
    if code != errno.ENOSPC:
        return False  # an EIO or a quota tells nothing of which file failed
    try:
        fd = stream.fileno()
        found = os.fstat(fd)
        if stat.S_ISCHR(found.st_mode):
            return not os.isatty(fd) and found.st_rdev != os.stat(os.devnull).st_rdev
        if stat.S_ISREG(found.st_mode):
            return os.fstatvfs(fd).f_bavail == 0
    except (OSError, ValueError):
        return False
    return False


def _at_size_limit(stream: Any) -> bool:
    """Whether ``stream`` is a regular file as large as the file-size limit lets one grow
    (``ulimit -f`` in a cron job's shell, ``LimitFSIZE=`` of a systemd unit): a write to it
    fails with ``EFBIG``.  ``list --json > out.json`` under such a limit ended in a traceback
    (``show``'s write, retried, said it)."""
    import stat

    try:
        import resource
    except ImportError:  # (Windows: no such limit)
        return False
    try:
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        found = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return False
    return limit != resource.RLIM_INFINITY and stat.S_ISREG(found.st_mode) and found.st_size >= limit


def refused(exc: BaseException) -> StdoutUnwritable | None:
    """The error to say when ``exc`` is stdout refusing the output (``stdout_refused``), what
    it still holds dropped (the exit's flush would fail again, with a traceback); ``None``
    for any other error, which is raised as it was."""
    if not stdout_refused(exc):
        return None
    drop_stdout()
    from agentscan.errors import StdoutUnwritable

    assert isinstance(exc, OSError)  # (``stdout_refused`` said so)
    return StdoutUnwritable(exc.strerror or str(exc))


def drop_stdout() -> None:
    """What stdout still holds, and anything written to it later, to the null device: the
    interpreter's flush at exit would fail as the write did."""
    if sys.__stdout__ is not None:
        _to_null(sys.__stdout__)


def drop_closed_output() -> None:
    """After a reader closed stdout's pipe (and stderr's, when it is the same pipe:
    ``2>&1 | head``): what is still buffered, or written later, goes to the null device.
    The interpreter flushes stdout as it exits, and the pipe's error there printed
    ``Exception ignored … BrokenPipeError`` and ended the process with 120."""
    for stream in (sys.__stdout__, sys.__stderr__):
        if stream is not None and _gone(stream):
            _to_null(stream)


def _to_null(stream: Any) -> None:
    """``stream``'s descriptor made the null device's (nothing to do where that fails)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)
    except (OSError, ValueError):
        pass
