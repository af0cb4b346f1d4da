"""doctor's notes on a terminal are wrapped at spaces only: a path stays whole, to be copied."""

from __future__ import annotations

from agentscan.cli.doctor_text import _lines
from agentscan.cli.term import Terminal

LONG = "/opt/agents/home/.config/Cursor/User/globalStorage/state.vscdb"


def test_a_path_longer_than_the_line_is_never_broken() -> None:
    lines = _lines(f"finding: state DB: {LONG} (read-only; used)", Terminal(tty=True, width=40, color=False))
    assert any(line.strip() == LONG for line in lines), lines
    assert " ".join(line.strip() for line in lines) == f"finding: state DB: {LONG} (read-only; used)"


def test_a_path_with_a_space_in_a_folder_s_name_stays_whole() -> None:
    spaced = "~/Library/Application Support/Cursor/User/globalStorage/state.vscdb"
    lines = _lines(f"finding: state DB: {spaced} (read-only; used)", Terminal(tty=True, width=40, color=False))
    assert any(line.strip() == spaced for line in lines), lines
