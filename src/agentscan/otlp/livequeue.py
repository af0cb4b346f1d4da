"""The live senders' slots and their queue (``live``): a bound on how many send at once that
loses no span while the collector answers.

At most ``SLOTS`` senders work at a time, each holding a slot file.  A sender that finds
every slot taken (a parallel batch of more calls than that, each closing at once) does not
drop its span: it leaves its job in the queue (``pending/``, one small file each) and looks
for a free slot once more.  A sender holding a slot takes the queued jobs before it lets
its slot go, and looks at the queue again after, taking a slot for what it finds: so
whichever of the two looks last sees the job, and none is left behind while senders run.

The queue is bounded (``MAX_PENDING``, a job older than ``PENDING_STALE_S`` is dropped),
and a sender whose send failed takes no more of it: with a slow or dead collector the
senders do not pile up, and what could not be sent is counted (``otlp-live.json``).

A job keeps the ``OTEL_*`` variables of the agent's environment (its headers, its resource),
so whichever sender sends it does so as its own sender would have.  Imported with ``live``
by the hook process: ``os``, ``json``, ``time`` and ``typing`` at import time (no dataclasses:
its import alone costs the hook milliseconds).
"""

from __future__ import annotations

import json
import os
import time
from typing import Mapping, NamedTuple

from agentscan.filemodes import make_private_dirs, open_private

SLOTS = 4
SLOT_STALE_S = 30.0  # a slot older than this belongs to a sender that died; it is reclaimed
SPOOL_DIR = "otlp"
PENDING_DIR = "pending"
MAX_PENDING = 256  # jobs queued at once; one more is dropped (and counted)
PENDING_STALE_S = 600.0  # a job queued this long ago is dropped: its collector was down meanwhile


class Job(NamedTuple):
    """What one sender was started for: ``live.main``'s arguments after the data directory."""

    args: tuple[str, ...]  # agent, session id, received_at_ns, event, turn id, endpoint
    env: Mapping[str, str]  # the OTEL_* variables it was started with


def take_slot(root: str) -> str | None:
    folder = os.path.join(root, SPOOL_DIR)
    make_private_dirs(folder)
    for index in range(SLOTS):
        path = os.path.join(folder, f"sender-{index}.slot")
        for _ in range(2):
            try:
                fd = open_private(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            except FileExistsError:
                try:
                    if time.time() - os.path.getmtime(path) > SLOT_STALE_S:
                        os.unlink(path)
                        continue
                except OSError:
                    continue
                break
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            return path
    return None


def keep(slot: str) -> None:
    """Say the slot is still in use (a sender working through the queue outlives ``SLOT_STALE_S``)."""
    try:
        os.utime(slot)
    except OSError:
        pass


def release(slot: str) -> None:
    try:
        os.unlink(slot)
    except OSError:
        pass


def busy_slots(root: str) -> int:
    """The senders at work now (slots taken, not stale)."""
    found = 0
    for index in range(SLOTS):
        try:
            found += time.time() - os.path.getmtime(os.path.join(root, SPOOL_DIR, f"sender-{index}.slot")) <= SLOT_STALE_S
        except OSError:
            continue
    return found


def defer(root: str, job: Job) -> bool:
    """Queue ``job`` for a sender that holds a slot; ``False`` when the queue is full."""
    folder = _folder(root)
    make_private_dirs(folder)
    if len(_entries(folder)) >= MAX_PENDING:
        return False
    name = f"{time.time_ns():020d}-{os.getpid()}"
    temp = os.path.join(folder, f".{name}.tmp")  # whole once renamed: a reader never sees half a job
    with os.fdopen(open_private(temp), "w", encoding="utf-8") as handle:
        json.dump({"args": list(job.args), "env": dict(job.env)}, handle)
    os.replace(temp, os.path.join(folder, f"{name}.json"))
    return True


def waiting(root: str) -> int:
    """How many jobs are queued."""
    return len(_entries(_folder(root)))


def claim(root: str) -> tuple[Job | None, int]:
    """The oldest queued job, taken off the queue (another sender cannot take it too), and how
    many jobs too old to send were dropped on the way."""
    folder = _folder(root)
    stale = 0
    for name in _entries(folder):
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            os.unlink(path)  # taken: only the sender whose unlink succeeds sends it
        except OSError:
            continue  # another sender took it first
        try:
            job = _job(json.loads(text))
        except ValueError:
            job = None
        if job is None or time.time_ns() - _queued_ns(name) > PENDING_STALE_S * 1e9:
            stale += 1  # too old to send now, or not a job at all: dropped
            continue
        return job, stale
    return None, stale


def otel_env(env: Mapping[str, str]) -> dict[str, str]:
    """What of an environment a job keeps: the OTLP exporter's and resource's settings."""
    return {key: value for key, value in env.items() if key.startswith("OTEL_")}


def _job(doc: object) -> Job | None:
    if not isinstance(doc, dict):
        return None
    args, env = doc.get("args"), doc.get("env")
    if not (isinstance(args, list) and len(args) == 6 and all(isinstance(arg, str) for arg in args)):
        return None
    if not isinstance(env, dict):
        env = {}
    return Job(tuple(args), {key: value for key, value in env.items() if isinstance(value, str)})


def _queued_ns(name: str) -> int:
    stamp = name.partition("-")[0]
    return int(stamp) if stamp.isdigit() else 0


def _folder(root: str) -> str:
    return os.path.join(root, SPOOL_DIR, PENDING_DIR)


def _entries(folder: str) -> list[str]:
    try:
        return sorted(name for name in os.listdir(folder) if name.endswith(".json"))
    except OSError:
        return []
