"""File-system checks that never raise, and the one way provider files are opened.

``DirEntry.is_dir()``/``is_file()`` can raise ``OSError`` (a permission or a
vanished entry); during discovery that must mean "not one", never a crash.

``open_regular`` is how every provider file is opened, side files included.
A home is not trusted: a FIFO where a file should be blocks a plain
``open()`` forever, and a symlink to ``/dev/zero`` reads until memory runs
out.  So the path is checked with ``stat`` first, opened non-blocking (a
FIFO's open returns at once instead of waiting for a writer), and checked
again with ``fstat`` on the descriptor itself, which no rename in between
can fool.  Anything but a regular file is refused with ``NotRegularFile``,
an ``OSError`` whose message says what it was, so every caller's existing
"cannot read: …" warning covers it.  The descriptor stays non-blocking:
a regular file ignores that, and a ``/proc`` file that looks regular but
would wait for data fails with ``BlockingIOError`` (an ``OSError`` too).
"""

from __future__ import annotations

import errno
import io
import os
import stat
from typing import TYPE_CHECKING, BinaryIO, Iterator

if TYPE_CHECKING:
    import re
    from pathlib import Path

    from agentscan.context import ScanContext

# Added to what ``open()`` asks for.  ``open()`` itself (not ``os.open``) does
# the opening, so whatever watches ``open`` (the tests' spies) sees every file.
_EXTRA_FLAGS = (
    getattr(os, "O_NONBLOCK", 0)  # a FIFO's open must not wait for a writer
    | getattr(os, "O_NOCTTY", 0)  # a terminal device must never become ours
)


def _opener(path: str, flags: int) -> int:
    return os.open(path, flags | _EXTRA_FLAGS)


_BUFFER = 128 * 1024


class NotRegularFile(OSError):
    """A path that names a FIFO, a socket, a device or a directory, not a file."""


class FileTooLarge(OSError):
    """A small file (a side file, a whole-file JSON document) above its byte cap."""


def is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def special_kind(entry: os.DirEntry[str]) -> str | None:
    """What a directory entry is when it is not a regular file ("a directory", "a FIFO",
    "a socket", "a device"), following symlinks; else ``None``.

    Discovery uses it to warn about a session file that cannot be read as one: an entry
    named as a transcript (``<id>.jsonl``, ``session-….json``, ``rollout-….jsonl``) that
    is a directory is skipped too, and said.  Asked only of such an entry that
    ``DirEntry.is_file()`` (free after ``scandir``) said is no file: no ``stat`` on the
    way of the files that are.
    """
    try:
        mode = entry.stat().st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else describe_mode(mode)


def warn_special(entry: os.DirEntry[str], ctx: ScanContext) -> None:
    """Warn that a session file (matched by its name) is not a regular file, if so.

    Discovery skips such an entry in any case; this makes the skip visible.
    """
    kind = special_kind(entry)
    if kind is not None:
        ctx.warn(entry.path, f"not a regular file ({kind}); skipped")


def describe_mode(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _refuse(mode: int, path: str | os.PathLike[str]) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, f"not a regular file ({describe_mode(mode)})", os.fspath(path))


class _NeverWaits(io.RawIOBase):
    """A regular file's descriptor, opened non-blocking, that raises instead of returning
    ``None`` when a read would have to wait (``io`` would hand ``None`` to the caller)."""

    def __init__(self, raw: io.FileIO) -> None:
        self._raw = raw

    @property
    def name(self) -> object:
        return self._raw.name

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._raw.seekable()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def fileno(self) -> int:
        return self._raw.fileno()

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        count = self._raw.readinto(buffer)
        if count is None:
            raise BlockingIOError(errno.EAGAIN, "it would wait for data (not a plain file)", self._raw.name)
        return count

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


def open_regular(path: str | os.PathLike[str], buffer_size: int = _BUFFER) -> BinaryIO:
    """``path`` opened read-only, binary, only if it is a regular file (see the module doc).
    ``buffer_size``: what a read brings in at least (a head's reader wants little: each
    read of the buffer copies it, 128 KiB for a 300-byte header line)."""
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise _refuse(before.st_mode, path)
    raw = open(path, "rb", buffering=0, opener=_opener)  # noqa: SIM115 - handed to the caller
    try:
        after = os.fstat(raw.fileno())
        if not stat.S_ISREG(after.st_mode):
            raise _refuse(after.st_mode, path)
        # Left non-blocking: a regular file ignores it, and a pseudo-file that
        # would wait for data (``/proc/kmsg``) fails with BlockingIOError instead.
        return io.BufferedReader(_NeverWaits(raw), buffer_size=buffer_size)  # type: ignore[return-value]
    except BaseException:
        raw.close()
        raise


def read_regular_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of a regular file, its bytes as they are (CRLF kept): an agent's settings
    file, which is edited and read whole.  A FIFO or a device in its place raises
    ``NotRegularFile`` rather than waiting on its open (``hooks status`` hung on one)."""
    with open_regular(path) as handle:
        return handle.read().decode("utf-8")


def read_capped(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole of a small regular file; ``FileTooLarge`` past ``limit`` bytes.

    The read itself stops at ``limit + 1`` bytes, so a file that grows (or a
    ``/proc`` file that claims size 0) can never make it read more.
    """
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"larger than {_size(limit)}; skipped", os.fspath(path))
    return data


def _size(limit: int) -> str:
    if limit >= 1024 * 1024 and limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MiB"
    if limit >= 1024 and limit % 1024 == 0:
        return f"{limit // 1024} KiB"
    return f"{limit} bytes"


def stat_now(path: str | os.PathLike[str]) -> os.stat_result | None:
    """``os.stat`` as the file is now (not a scan's memoised one); ``None``: it cannot be."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def stamp_now(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """A file's ``(size, mtime_ns)`` as it is now (``stat_now``), to tell within a run whether it
    was written since a read (a Gemini chat replayed whole, a Cursor store found locked);
    ``None``: it cannot be stat'ed."""
    now = stat_now(path)
    return None if now is None else (now.st_size, now.st_mtime_ns)


def changed_since(path: str | os.PathLike[str], then: os.stat_result) -> bool:
    """Whether ``path`` is no longer the file ``then`` describes (appended to, rewritten, replaced, gone)."""
    now = stat_now(path)
    return now is None or (now.st_size, now.st_mtime_ns, now.st_ino, now.st_dev) != (
        then.st_size, then.st_mtime_ns, then.st_ino, then.st_dev)


def stale_own_files(folder: str | os.PathLike[str], pattern: re.Pattern[str],
                    cutoff: float) -> Iterator[tuple[Path, os.stat_result]]:
    """The files in ``folder`` named wholly by ``pattern`` that are this user's (anyone's where
    files have no owners) regular files, links not followed, untouched since ``cutoff`` (a
    time), each with its ``lstat``: left behind, for a caller to remove.  None when the
    folder cannot be listed; one that vanishes or changes meanwhile is skipped."""
    from pathlib import Path

    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    for entry in entries:
        if not pattern.fullmatch(entry.name):
            continue
        try:
            found = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(found.st_mode) and (uid is None or found.st_uid == uid) and found.st_mtime <= cutoff:
            yield Path(entry.path), found


__all__ = [
    "FileTooLarge",
    "NotRegularFile",
    "changed_since",
    "describe_mode",
    "is_dir",
    "is_file",
    "open_regular",
    "read_capped",
    "special_kind",
    "stale_own_files",
    "stamp_now",
    "stat_now",
    "warn_special",
]


def read_tail(path: str | os.PathLike[str], limit: int) -> tuple[bytes, bool]:
    """The last ``limit`` bytes of a plain file, and whether the start was cut (stdlib only:
    the hook reads its error log's tail with it on a mistyped command's every event)."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        start = max(0, size - limit)
        handle.seek(start)
        return handle.read(limit), start > 0

