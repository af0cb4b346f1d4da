"""A program using the library keeps its own garbage collector's state across the
processes a scan forks (``toolkit.forking.fork_child``): its frozen heap stays frozen,
a disabled collector stays disabled; the child still freezes what it was handed."""

from __future__ import annotations

import gc
import os
from typing import Iterator

import pytest

from agentscan.toolkit.forking import fork_child, sigint_blocked


@pytest.fixture
def gc_as_it_was() -> Iterator[None]:
    enabled = gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
        else:
            gc.disable()


def _fork_and_ask() -> tuple[int, bool]:
    """Fork a child that answers its freeze count and whether its collector runs."""
    read, write = os.pipe()

    def child() -> None:
        os.write(write, f"{gc.get_freeze_count()} {int(gc.isenabled())}".encode())

    try:
        with sigint_blocked():
            pid = fork_child(child)
        os.close(write)
        write = -1
        answer = os.read(read, 64).decode().split()
        assert os.waitpid(pid, 0)[1] == 0
    finally:
        os.close(read)
        if write != -1:
            os.close(write)
    return int(answer[0]), answer[1] == "1"


def test_a_hosts_frozen_heap_stays_frozen(gc_as_it_was: None) -> None:
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    in_child, collecting = _fork_and_ask()
    assert gc.get_freeze_count() == frozen  # was 0: fork_child unfroze the host's heap too
    assert in_child >= frozen and collecting


def test_the_child_freezes_what_the_parent_held_and_the_parent_keeps_collecting(gc_as_it_was: None) -> None:
    gc.unfreeze()
    held = [[] for _ in range(100)]  # tracked objects the parent holds when it forks
    in_child, collecting = _fork_and_ask()
    assert in_child >= len(held) and collecting
    assert gc.get_freeze_count() == 0 and gc.isenabled()


def test_a_disabled_collector_stays_disabled_in_both(gc_as_it_was: None) -> None:
    gc.disable()
    in_child, collecting = _fork_and_ask()
    assert not gc.isenabled() and not collecting and in_child > 0
