"""In a window, the sessions that recorded no usage are named by their rows' times, as
``list --since`` finds them, not by their files' mtimes: a copied or restored transcript
(the installed demo's every file) is new on disk and old in what it holds."""

from __future__ import annotations

from pathlib import Path

from test_tokens_pass28 import UNRECORDED, prompt_only, run

NOW = 1_800_000_000.0  # 2027-01-15: every file was copied then
CC = "cccccccc-1111-4222-8333-444444444444"  # its one prompt on 2026-11-01


def _named(made: tuple[str, str]) -> str:
    """The line naming them: on stderr, in a pipe (pass 42)."""
    return made[1].splitlines()[-1]


def test_a_file_copied_later_is_not_named_in_a_window_after_its_time(isolated_home: Path) -> None:
    prompt_only(isolated_home, CC, NOW)
    out = "".join(run("tokens", "--since", "2026-12-01", "--by", "day"))
    assert "recorded no usage" not in out
    # (pass 60: the only session in the window, said once, its ``show`` named whole)
    assert _named(run("tokens", "--since", "2026-10-01", "--by", "day")).endswith(
        f" show claude:{CC}` says)")


def test_a_window_ending_before_the_file_was_copied_names_it(isolated_home: Path) -> None:
    prompt_only(isolated_home, CC, NOW)
    assert _named(run("tokens", "--since", "2026-10-01", "--until", "2026-11-02", "--by", "day")).endswith(
        f" show claude:{CC}` says)")
    out = "".join(run("tokens", "--since", "2026-10-01", "--until", "2026-10-31", "--by", "day"))
    assert "recorded no usage" not in out  # it began after the window


def test_the_demo_names_only_the_sessions_list_shows_for_the_same_since(isolated_home: Path) -> None:
    # The demo's Cursor sessions were updated on 2026-11-28 and 2026-11-26; its files are as
    # new as the test.
    assert "recorded no usage" not in "".join(run("--demo", "tokens", "--since", "2026-11-29", "--by", "day"))
    assert _named(run("--demo", "tokens", "--since", "2026-11-27", "--by", "day")) == (
        f"(+ 1 session that recorded no usage, not counted: {UNRECORDED[0]})")
    listed = run("--demo", "list", "--since", "2026-11-27")[0]
    assert UNRECORDED[0] in listed and UNRECORDED[1] not in listed
