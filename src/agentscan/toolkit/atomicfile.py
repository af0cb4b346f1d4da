"""The one way agentscan replaces a file it writes whole: a temp file in the same
directory, fsynced, renamed over the file, the rename made durable.

Readers see the old file or the new one, never half of one; a failure leaves the
old one as it was.  Used by the exports (JSON Lines, CSV, OTLP), the price data
an update fetches, and the agent configs ``hooks install`` changes.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable

from agentscan.errors import UnsafeOutput

#: in every temp file's name (``.<name>.agentscan-XXXXXXXX.tmp``): a killed run's is then
#: told from a user's own ``.<name>.backup01.tmp`` by its name (``export.files.remove_stale_temps``)
TEMP_MARK = "agentscan-"

#: links one output may lead through, as the kernel allows (then ``ELOOP``)
_MAX_LINKS = 40


def atomic_write(path: Path, write: Callable[[io.BufferedWriter], object], before_rename: Callable[[], None] | None = None,
                 *, mode: int | None = None) -> Path:
    """Write via a temp file in the same dir, fsync, then rename over ``path``; returns the
    file written (``path``, or where its links led).

    A ``path`` that is a symlink (an export kept in a synced folder, a config a dotfile
    manager links) is written through when ``output_target`` trusts it: its target is
    replaced and the link stays.  One that is no regular file (a FIFO a reader waits on,
    ``/dev/null``) is written into, never renamed over (a root cron job would have replaced
    ``/dev/null`` with a file); so is one of this process's descriptors, whatever it is open
    on (``own_descriptor``).  ``mode``: the new file's (else the mode of the file it
    replaces, the link's target for a link, which its owner chose; else the temp file's
    0600); ``before_rename``: a last check, which may raise to leave ``path`` as it is.
    ``UnsafeOutput`` for a link or file another user planted.
    """
    path = output_target(path)
    number = _number_of(path)
    if number is not None and descriptor_open(number):  # (not open: written by name)
        _write_into_descriptor(number, write)
        return path
    try:
        found = os.stat(path)
    except OSError:
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode) and not stat.S_ISDIR(found.st_mode):
        _write_into(path, found, write)
        return path
    if mode is None and found is not None and stat.S_ISREG(found.st_mode):
        # Never the set-id or sticky bits: a set-uid export of root's would be a gift.
        mode = stat.S_IMODE(found.st_mode) & ~(stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX)
    directory = path.parent
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.{TEMP_MARK}", suffix=".tmp", dir=directory)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
            # On the descriptor, never the name: whoever may write the directory could
            # swap the temp for a link, and a chown/chmod by name would follow it.
            if found is not None and stat.S_ISREG(found.st_mode):
                _keep_owner(handle.fileno(), found)
            if mode is not None:
                _set_mode(handle.fileno(), temp, mode)  # (after the chown, which may clear set-id bits)
            written = os.fstat(handle.fileno())
        if hasattr(os, "geteuid") and not _same_file(temp, written):  # (Windows: no owners, no one to fear)
            # Renamed into place, what was swapped in (their link) would stand as the output.
            raise UnsafeOutput(f"{temp} was replaced while being written (by someone else who can write "
                               f"{directory}): {path} is left as it was")
        if before_rename is not None:
            before_rename()
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return path
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    except OSError:
        pass
    finally:
        os.close(dir_fd)
    return path


def _write_into(path: Path, found: os.stat_result, write: Callable[[io.BufferedWriter], object]) -> None:
    """Write into the FIFO or device ``found`` at ``path``, never through a link or into a
    file swapped in since it was found: ``open(path, "wb")`` would follow a link planted
    after the checks and truncate what it leads to.  No ``O_CREAT``/``O_TRUNC``; the file
    opened must be the very one found."""
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeOutput(f"{path} became a symbolic link while being written: not followed; try again") from error
        raise
    try:
        opened = os.fstat(fd)
        if (not (stat.S_ISFIFO(opened.st_mode) or stat.S_ISCHR(opened.st_mode))
                or (opened.st_dev, opened.st_ino) != (found.st_dev, found.st_ino)):
            raise UnsafeOutput(f"{path} was replaced while being written (it is no longer the FIFO or device "
                               "it was): not written into; try again")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "wb") as handle:
        write(handle)


def _write_into_descriptor(number: int, write: Callable[[io.BufferedWriter], object]) -> None:
    """Write into this process's descriptor ``number`` itself, as the shell that opened it
    would: a pipe (bash's ``-o >(gzip > x.gz)``, ``/dev/fd/63``: followed by name, its link
    to ``pipe:[N]`` names no file), a terminal, or a file (``-o /dev/stderr 2>>log.txt``:
    replaced by name, the log's lines were lost and the shell's later writes went to the old
    file; written into, the export is added where the shell's next line would go).  A copy
    of the descriptor, closed after: the caller's stays open."""
    with os.fdopen(os.dup(number), "wb") as handle:
        write(handle)


def own_descriptor(path: Path) -> int | None:
    """The number of this process's open descriptor that ``path`` names (``/dev/stdout``,
    ``/dev/fd/N``, ``/proc/self/fd/N``, or a link of the user's to one), else ``None``: the
    one rule for such an output, which ``atomic_write`` writes into (never replaces) and an
    export asks about (``export.files.names_stdout``, SQLite's refusal, its checks)."""
    number = named_descriptor(path)
    return number if number is not None and descriptor_open(number) else None


def named_descriptor(path: Path) -> int | None:
    """The number of the descriptor of this process that ``path`` names, open or not.  One
    not open when a command begins must be refused then (``export.files.closed_descriptor``):
    the next file agentscan opens takes its number (``>&-``, then ``-o /dev/stdout``: the
    export went into the lock file opened as descriptor 1)."""
    if os.name == "nt":
        return None
    try:
        target = output_target(path)
    except (OSError, UnsafeOutput):
        return None
    return _number_of(target)


def _number_of(target: Path) -> int | None:
    """``target`` (``output_target``'s) as the number of this process's descriptor it names.
    ASCII digits only: ``str.isdigit`` takes ``²`` too, which ``int`` refuses (a traceback)."""
    name = target.name
    return int(name) if name.isascii() and name.isdigit() and _own_fd(target) else None


def descriptor_open(number: int) -> bool:
    """Descriptor ``number`` of this process is open (``named_descriptor``'s, asked again)."""
    try:
        os.fstat(number)
    except (OSError, OverflowError):
        return False
    return True


def _own_fd(link: Path) -> bool:
    """``link`` is one of this process's descriptors in ``/proc`` (``/dev/stderr``, ``/dev/fd/N``)."""
    folder = os.path.realpath(os.path.dirname(link))
    own = f"/proc/{os.getpid()}"
    return folder == f"{own}/fd" or (folder.startswith(f"{own}/task/") and folder.endswith("/fd"))


def _same_file(name: Path, written: os.stat_result) -> bool:
    try:
        found = os.lstat(name)
    except OSError:
        return False
    return os.path.samestat(found, written)


def _keep_owner(fd: int, found: os.stat_result) -> None:
    """Give the new file the replaced one's owner and group, as far as this user may (as
    ``sed -i`` does): a CSV in a team folder, ``chgrp team`` and ``chmod 640`` once, was
    the user's primary group's after the next run, and the team could no longer read it.
    Root keeps both; anyone else a group they belong to; else it is left as made."""
    if not hasattr(os, "fchown"):
        return
    for owner in (found.st_uid, -1):
        try:
            os.fchown(fd, owner, found.st_gid)
            return
        except OSError:
            continue


def _set_mode(fd: int, temp: Path, mode: int) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # Windows: no descriptor call (before 3.13), and no other user's links to fear there
        os.chmod(temp, mode)


def output_target(path: Path) -> Path:
    """The file a write to ``path`` lands on: ``path`` itself, or where its symlinks lead.

    ``os.replace`` never follows a link, so the links of the last component are followed
    here, in user space, where the kernel's ``fs.protected_symlinks`` does not apply: a
    link another user planted in ``/tmp`` would let a root cron job replace any file.  So
    each link is followed only when no one else can have made it, a rule stricter than
    the kernel's: it is the running user's or root's, and in a sticky world-writable
    directory (``/tmp``) the running user's or that directory's owner's.  The file
    reached, in such a directory, must be theirs too (as ``fs.protected_regular`` and
    ``protected_fifos`` say): another user's file there would be replaced with one that
    keeps their mode, or their FIFO fed the export.  Anything else raises
    ``UnsafeOutput`` naming it.  The directories above are resolved by the kernel, under
    its own rules.
    """
    if not hasattr(os, "geteuid"):  # Windows: no owners to compare; links as before
        return Path(os.path.realpath(path)) if path.is_symlink() else path
    current = path
    for _ in range(_MAX_LINKS + 1):
        try:
            found = os.lstat(current)
        except OSError:
            return current  # none yet (a dangling link's target is created), or the write says why
        if not stat.S_ISLNK(found.st_mode):
            _check_planted(current, found)
            return current
        refuse_planted_link(current, found)
        if _own_fd(current):
            # A descriptor the shell opened (a pipe, ``2>>log.txt``): written into, never
            # followed to a file to replace (``own_descriptor``); its link may name no file.
            return current
        leads = os.readlink(current)
        # Not normalised: ``..`` after a linked directory is the kernel's to resolve.
        current = Path(os.path.join(os.path.dirname(current), leads))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))


def refuse_planted_beside(target: Path, suffixes: tuple[str, ...]) -> None:
    """``UnsafeOutput`` when a file SQLite opens by name beside ``target`` (its ``-journal``,
    ``-wal``, ``-shm``) is another user's in a sticky world-writable directory (``/tmp``).
    SQLite opens them ``O_RDWR|O_CREAT`` without ``O_EXCL``: a ``-journal`` planted there
    (0666, or a hard link its maker keeps) would receive the index's pages, titles and paths
    included, and a planted hot journal would be rolled back into the index.  The kernel's
    ``fs.protected_regular`` refuses such an open, but it is off on some systems and absent
    from macOS.  ``O_NOFOLLOW`` already keeps SQLite off a planted link; any file type is
    checked here all the same."""
    if not hasattr(os, "geteuid"):
        return
    holder = sticky_owner(target)
    if holder is None:
        return
    for suffix in suffixes:
        side = Path(f"{target}{suffix}")
        try:
            found = os.lstat(side)
        except OSError:
            continue
        if found.st_uid not in (os.geteuid(), holder):
            raise UnsafeOutput(f"{side} belongs to another user (uid {found.st_uid}) in {os.path.dirname(side) or '.'}, "
                               "a sticky world-writable directory: SQLite would write the index's pages into it "
                               "(or read a planted journal back into the index); give another path, or have it removed")


def sticky_owner(path: Path) -> int | None:
    """The owner of ``path``'s directory when it is sticky and world-writable (``/tmp``): any
    user may put a file there, and only its owner (or the directory's) may remove it."""
    try:
        folder = os.stat(os.path.dirname(path) or ".")
    except OSError:
        return None
    if folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH:
        return folder.st_uid
    return None


def refuse_planted_link(link: Path, found: os.stat_result) -> None:
    """``UnsafeOutput`` for a link another user may have made (``output_target``'s rule; the
    lock folder a user names follows it too)."""
    me = os.geteuid()
    if found.st_uid not in (me, 0):
        raise UnsafeOutput(f"{link} is a symbolic link of another user's (uid {found.st_uid}): not followed, "
                           "since it could lead to any file; give the file it leads to, or remove the link")
    holder = sticky_owner(link)
    if holder is not None and found.st_uid not in (me, holder):
        raise UnsafeOutput(f"{link} is a symbolic link in {os.path.dirname(link) or '.'}, a sticky world-writable "
                           f"directory, made by neither you nor that directory's owner (uid {found.st_uid}): not "
                           "followed, as the kernel's fs.protected_symlinks would not; give the file it leads to")


def _check_planted(path: Path, found: os.stat_result) -> None:
    if stat.S_ISDIR(found.st_mode):
        return  # the caller says a directory is no output
    holder = sticky_owner(path)
    if holder is not None and found.st_uid not in (os.geteuid(), holder):
        raise UnsafeOutput(f"{path} belongs to another user (uid {found.st_uid}) in {os.path.dirname(path) or '.'}, "
                           "a sticky world-writable directory: not replaced or written into, since its owner "
                           "chose its mode and could read what is written; give another path")
