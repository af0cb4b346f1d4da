"""The ``(+ …)`` lines under a tokens table are wrapped to the terminal's columns, not its
characters: a CJK directory is two columns a character."""

from __future__ import annotations

import pytest

from agentscan.cli import tokens_notes
from agentscan.cli.term import Terminal, width_of


def test_a_line_of_wide_keys_fits_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    keys = ["/home/me/项目/天气应用", "/home/me/项目/食谱接口", "/home/me/项目/库存服务", "/home/me/项目/账单"]
    tokens_notes._print_named("4 directories with 0 tokens", keys, Terminal(tty=True, width=40, color=False))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(width_of(line) <= 40 for line in lines), lines
    assert all(any(key in line for line in lines) for key in keys)  # no key cut


def test_a_key_wider_than_the_terminal_is_printed_whole(capsys: pytest.CaptureFixture[str]) -> None:
    key = "/home/me/" + "非常长的目录名" * 6
    tokens_notes._print_named("1 directory with 0 tokens", [key], Terminal(tty=True, width=40, color=False))
    assert key in capsys.readouterr().out.splitlines()[1]
