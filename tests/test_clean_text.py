"""What reaches a terminal: control characters and bidi overrides neutralised (U+FFFD), but
the zero-width joiner and non-joiner kept, as Persian, Indic scripts and emoji need them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.term import clean
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

PERSIAN = "می\u200cخواهم"  # "I want": the non-joiner keeps the two parts of the word apart
CODER = "👨\u200d💻"  # one emoji made of two by the joiner
HINDI = "क्\u200dष"


def test_joiners_are_kept_and_controls_and_overrides_are_not() -> None:
    assert clean(f"{PERSIAN} {CODER} {HINDI}") == f"{PERSIAN} {CODER} {HINDI}"
    assert clean("a\x1b[31mb\u202ec\u2066d\x07") == "a\ufffd[31mb\ufffdc\ufffdd\ufffd"
    assert clean(" two\n lines\t") == "two lines"


def test_list_and_show_print_joined_text_as_recorded(isolated_home: Path) -> None:
    native = "fa00fa00-0000-4000-8000-000000000001"
    prompt = f"{PERSIAN} {CODER} {HINDI} \x1b]52;c;ZXZpbA==\x07"
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", prompt),
        claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1)),
    ])
    for args in (["list"], ["show", native[:8]], ["show", native[:8], "--full", "--no-pager"]):
        out = CliRunner().invoke(app, args).stdout
        assert f"{PERSIAN} {CODER} {HINDI}" in out, (args, out)
        assert "\x1b" not in out and "\x07" not in out, args


def test_show_wraps_wide_text_to_the_terminal_s_columns(isolated_home: Path, tty) -> None:  # noqa: ANN001
    from agentscan.cli.term import width_of

    native = "c1c1c1c1-0000-4000-8000-000000000001"
    title = "这是一个很长的中文标题没有空格但是需要被折行显示在终端里面" * 2  # two columns a character, no space
    claude_session_file(isolated_home, native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", f"{title}\n第二行 {'很长' * 60}"),
        claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id="m", request_id="r", usage=claude_usage(1, 1),
                         blocks=[{"type": "text", "text": "回答" * 80}]),
    ])
    tty(80, color=False)
    for args in (["show", native[:8]], ["show", native[:8], "--full", "--no-pager"]):
        lines = CliRunner().invoke(app, args).stdout.splitlines()
        # (the transcript's path, whole, on a line of its own under its label: pass 47)
        wide = [line for at, line in enumerate(lines) if width_of(line) > 80 and lines[at - 1] != "  path"]
        assert not wide, (args, wide)
        assert sum("这是一个很长" in line for line in lines) >= 1 and sum("回答" in line for line in lines) >= (4 if "--full" in args else 0)


def test_show_never_splits_a_path_with_spaces_or_wide_characters(isolated_home: Path, tty) -> None:  # noqa: ANN001
    # A cwd is copied from the card: split at its space (or inside a CJK word), it no
    # longer names the directory.
    for native, cwd in (("c2c2c2c2-0000-4000-8000-000000000001", "/home/dev/我的 项目/很长的目录名字/" + "子目录" * 12),
                        ("c3c3c3c3-0000-4000-8000-000000000001", "/home/dev/my projects/" + "deep-dir/" * 8)):
        claude_session_file(isolated_home, native, [
            claude_user(native, "2026-11-02T09:00:00.000Z", "hi", cwd=cwd),
            claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id="m", request_id="r",
                             usage=claude_usage(1, 1), cwd=cwd),
        ])
        tty(60, color=False)
        out = CliRunner().invoke(app, ["show", native[:8]]).stdout
        assert f"  cwd\n    {cwd}\n" in out, out  # (whole, under its label as the path is: pass 50)


@pytest.mark.parametrize(("text", "columns"), [
    ("👨\u200d👩\u200d👧\u200d👦", 2),  # a family: one glyph
    ("🧑🏽\u200d💻", 2),  # a technologist with a skin tone
    ("👍🏽", 2),  # a tone is drawn into its emoji
    ("fix 👩\u200d🔧 it", 4 + 2 + 3),
    ("क्\u200dष", 2),  # a joiner between letters shapes them: their width stays
    ("a\u200db", 2),
    ("❤️", 2),  # a narrow character drawn as an emoji (U+FE0F)
    ("⚠️ careful", 2 + 8),
    ("1️⃣", 2),  # a keycap
    ("🏳️\u200d🌈", 2),
    ("🏽", 2),  # a tone alone is an emoji of its own
])
def test_an_emoji_sequence_takes_the_columns_of_one_glyph(text: str, columns: int) -> None:
    from agentscan.cli.charset import width_of

    assert width_of(text) == columns
