"""A Ctrl-C while ``show --full``'s pager runs is the pager's (pass 52): agentscan waits for it
to quit, then exits 130, as git does.  It exited at once: the shell's prompt came back with
``less`` still reading the terminal, and the keys typed next went half to each."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agentscan.cli import show_full
from agentscan.cli.term import Terminal


def test_the_pager_is_waited_for_then_the_interrupt_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = tmp_path / "shown.txt"
    # The Ctrl-C reaches every process of the terminal's group: agentscan's too, sent here by
    # the pager, which then goes on reading (as ``less`` does) and writes what it was given.
    monkeypatch.setenv("PAGER", f"kill -INT {os.getpid()}; sleep 0.3; cat > {shown}")
    lines = [f"line {number}" for number in range(2000)]
    with pytest.raises(KeyboardInterrupt):
        show_full.page(iter(lines), Terminal(tty=True, width=80, color=False), use_pager=True)
    assert shown.read_text() == "\n".join(lines) + "\n"  # the pager had quit: it wrote it all
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # and Ctrl-C is back


def test_no_interrupt_no_exit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = tmp_path / "shown.txt"
    monkeypatch.setenv("PAGER", f"cat > {shown}")
    show_full.page(iter(["a", "b"]), Terminal(tty=True, width=80, color=False), use_pager=True)
    assert shown.read_text() == "a\nb\n"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
