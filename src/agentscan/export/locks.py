"""Where overlapping exports of one output meet: a lock file named after the output's real
path, in agentscan's cache directory (nothing is left beside the output), or, when that
cannot be written (a read-only cache, systemd's ``ProtectHome``), in a private folder of
the temporary directory."""

from __future__ import annotations

import os
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping

from agentscan.filemodes import DIR_MODE, FILE_MODE, make_private_dirs, open_private


def lock_path(output: Path, env: Mapping[str, str]) -> Path:
    """The lock of ``output`` in agentscan's cache dir."""
    import hashlib

    from agentscan.scan.cache import cache_dir

    real = os.path.realpath(output)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cache_dir(env) / "locks" / f"export-{digest}.lock"


def usable_lock(output: Path, env: Mapping[str, str]) -> Path:
    """``lock_path``, its folder made (0700) and the file openable for writing; else the same
    name in ``fallback_dir`` (a cron job under ``ProtectHome``; it and a run in a shell,
    which locks in the cache, meet at ``meeting_path``, when the temporary folder is ``/tmp``).
    ``OSError`` (naming the cache's folder) when neither can be made."""
    lock = lock_path(output, env)
    try:
        _make_dirs(lock.parent)
        # The lock file itself: a read-only mount says "exists" of a folder made before it
        # was mounted so, and refuses only the file.  Never through a link: in a cache folder
        # another user can write (a shared AGENTSCAN_CACHE_DIR) theirs would make a root run
        # create any file it names (/etc/nologin); refused, the private fallback is used.
        os.close(open_private(lock, os.O_WRONLY | os.O_CREAT))
        return lock
    except OSError as first:
        try:
            return fallback_dir() / lock.name
        except OSError:
            raise first from None


def fallback_dir(temp: str | None = None) -> Path:
    """``<tmp>/agentscan-<uid>/locks`` (``temp``: another temporary folder than the system's),
    only ever a folder of this user's that no one else may enter: another user could make the
    name first, or a symlink to their own folder."""
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else None
    base = Path(temp or tempfile.gettempdir()) / (f"agentscan-{uid}" if uid is not None else "agentscan")
    for folder in (base, base / "locks"):  # each checked before anything is made inside it
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass
        else:
            os.chmod(folder, DIR_MODE)  # mkdir's mode is masked by the umask
        found = os.lstat(folder)
        if not stat.S_ISDIR(found.st_mode) or found.st_mode & 0o077 or (uid is not None and found.st_uid != uid):
            raise PermissionError(f"{folder} is not a private folder of this user's")
    return base / "locks"


def meeting_path(cache_lock: Path) -> Path | None:
    """The lock every run of this user meets at (``export.meetlock``) for the output whose
    cache lock is ``cache_lock``, its folder made private; ``None`` when there is none to take:
    no such folder of this user's alone, or the cache's lock is already there."""
    from agentscan.export.meetlock import MEETING_BASE

    if os.name == "nt" or not os.path.isdir(MEETING_BASE):
        return None
    try:
        lock = fallback_dir(MEETING_BASE) / cache_lock.name
    except OSError:
        return None
    return None if os.path.realpath(lock) == os.path.realpath(cache_lock) else lock


def _make_dirs(folder: Path) -> None:
    """``folder`` and any missing parent (the cache dir, and those above it), private like
    the cache (0700 whatever the umask), made on first use."""
    make_private_dirs(folder)


@contextmanager
def output_lock(output: Path, env: Mapping[str, str] | None, lock_timeout: float) -> Iterator[None]:
    """The output's lock held: overlapping runs of one output wait for each other,
    the scan included (``run_export``), or fail after ``lock_timeout`` seconds."""
    from filelock import FileLock, Timeout

    from agentscan.errors import ExportFailed

    environ = os.environ if env is None else env
    try:
        lock_file = usable_lock(output, environ)
    except OSError as exc:
        folder = lock_path(output, environ).parent
        raise ExportFailed(f"cannot create the lock directory {folder}: {exc.strerror or exc}") from None
    began = time.monotonic()
    lock = FileLock(str(lock_file), timeout=lock_timeout, mode=FILE_MODE)
    try:
        lock.acquire()
    except Timeout:
        raise ExportFailed(
            f"another agentscan export of {output} is running (lock {lock_file}); gave up after {lock_timeout:g} s "
            "(--lock-timeout S waits longer)"
        ) from None
    except OSError as exc:
        raise ExportFailed(f"cannot write {output}: {exc.strerror or exc}") from None
    from agentscan.export.meetlock import MeetingBusy, meeting_lock

    try:
        # The cache's lock first, then the meeting one, in every run: no two wait for each
        # other in turn.  (A cron job and a shell of other AGENTSCAN_CACHE_DIRs take two
        # cache locks, and meet only there: ``export.meetlock``.)
        with meeting_lock(meeting_path(lock_file), max(0.0, lock_timeout - (time.monotonic() - began))):
            yield
    except MeetingBusy as exc:
        raise ExportFailed(
            f"another agentscan export of {output} is running (lock {exc}); gave up after {lock_timeout:g} s "
            "(--lock-timeout S waits longer)"
        ) from None
    finally:
        lock.release()
