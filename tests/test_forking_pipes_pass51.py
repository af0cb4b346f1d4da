"""The values a forked helper sends back are unpickled as they are read (pass 51).

``forking.receive_pickled`` read a value's bytes whole, then unpickled them: a 1 GB
``show``'s helper's answer (4.8 MB) was held beside the objects made from it, at the
parent's peak.  Now ``pickle.load`` reads the bytes from the pipe, never past the value's,
and a large ``bytes`` goes straight into the object made for it.
"""

from __future__ import annotations

import os
import pickle
import struct
import threading
import tracemalloc

import pytest

from agentscan.toolkit.forking import receive_pickled, send_pickled

BIG = 4 << 20


def _writing(data: bytes) -> tuple[int, threading.Thread]:
    """A pipe's read end, ``data`` written into it by a thread (a pipe holds 64 KB)."""
    read_end, write_end = os.pipe()

    def write() -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view):]
        os.close(write_end)

    thread = threading.Thread(target=write)
    thread.start()
    return read_end, thread


def _framed(value: object) -> bytes:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("!Q", len(payload)) + payload


def test_values_back_to_back_are_read_apart() -> None:
    values = [{"sums": [[None, "m", 900, 0, False, 1, 2]] * 300, "hashes": os.urandom(BIG)}, ["small", 1], b"", None]
    read_end, thread = _writing(b"".join(_framed(value) for value in values))
    try:
        assert [receive_pickled(read_end) for _ in values] == values
        with pytest.raises(EOFError):
            receive_pickled(read_end)
    finally:
        thread.join()
        os.close(read_end)


def test_a_damaged_value_leaves_the_next_one_whole() -> None:
    damaged = bytearray(_framed(["a", "b" * 1000]))
    damaged[12:] = b"\xff" * (len(damaged) - 12)  # its bytes garbage, its length right
    read_end, thread = _writing(bytes(damaged) + _framed("next"))
    try:
        with pytest.raises(Exception):  # noqa: B017, PT011 - whatever pickle says of garbage
            receive_pickled(read_end)
        assert receive_pickled(read_end) == "next"
    finally:
        thread.join()
        os.close(read_end)


def test_a_value_cut_short_is_the_other_end_gone() -> None:
    read_end, thread = _writing(_framed(os.urandom(1 << 20))[:-100])
    try:
        with pytest.raises(EOFError):
            receive_pickled(read_end)
    finally:
        thread.join()
        os.close(read_end)


def test_a_large_answer_is_not_held_twice() -> None:
    data = _framed({"hashes": os.urandom(BIG)})
    read_end, thread = _writing(data)
    tracemalloc.start()
    try:
        value = receive_pickled(read_end)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        thread.join()
        os.close(read_end)
    assert len(value["hashes"]) == BIG
    assert peak < BIG * 1.25  # read whole first, it was twice that


def test_send_and_receive_over_a_pipe() -> None:
    read_end, write_end = os.pipe()
    value = {"offset": 5, "said": [("p", "m", 3)]}
    send_pickled(write_end, value)
    os.close(write_end)
    try:
        assert receive_pickled(read_end) == value
    finally:
        os.close(read_end)
