"""Pass 54: the words agreeing with a count (``it was``/``they were``, ``its``/``their``,
``is``/``are``, ``has its file``/``have their files``) come from one helper,
``toolkit.words.agreeing``, not from a ``'it was' if count == 1 else 'they were'`` written
again at each message; the messages read as they did, word for word."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.export import unread
from agentscan.toolkit.words import agreeing, plural


def test_agreeing_is_plural_s_number() -> None:
    for count in (0, 1, 2, 1000):
        they = agreeing(count)
        many = not plural(count, "row").endswith(" row")
        assert (they.s, they.it_was, they.it_is, they.its, they.has) == (
            ("s", "they were", "they are", "their", "have") if many else ("", "it was", "it is", "its", "has"))


class _Ctx:
    def __init__(self) -> None:
        self.said: list[str] = []

    def warn(self, path: str, message: str, line: int | None = None) -> None:
        self.said.append(message)

    def command(self, name: str) -> str:
        return f"agentscan {name}"


_DOCTOR = "(`agentscan doctor` shows where it looked)"
_OUTSIDE = ("outside the Cursor roots this run read (`agentscan doctor` shows them; a cron job may lack a variable "
            "your shell sets)")


@pytest.mark.parametrize(("count", "expected"), [
    (1, [f"no Cursor root found {_DOCTOR}: its 1 session in the index is left as it was, not marked gone",
         f"1 Cursor session in the index still has its file, {_OUTSIDE}: left as it was, not marked gone",
         "1 Cursor session in the index was not found, and Cursor's discovery could not read everything this run "
         "(see its warnings): left as it was, not marked gone",
         f"no Cursor root found {_DOCTOR}: the 1 Cursor session the last export held is not in this one"]),
    (2, [f"no Cursor root found {_DOCTOR}: its 2 sessions in the index are left as they were, not marked gone",
         f"2 Cursor sessions in the index still have their files, {_OUTSIDE}: left as they were, not marked gone",
         "2 Cursor sessions in the index were not found, and Cursor's discovery could not read everything this run "
         "(see its warnings): left as they were, not marked gone",
         f"no Cursor root found {_DOCTOR}: the 2 Cursor sessions the last export held are not in this one"]),
])
def test_left_as_they_were_reads_as_before(count: int, expected: list[str]) -> None:
    ctx = _Ctx()
    for reason in (unread.NO_ROOT, unread.ELSEWHERE, unread.UNLISTED):
        unread.say_left_as_they_were(ctx, Path("out.db"), "sqlite", {unread.LeftAsTheyWere("cursor", reason): count})
    unread.say_left_as_they_were(ctx, Path("out.db"), "jsonl", {unread.LeftAsTheyWere("cursor"): count})
    assert ctx.said == expected


def test_unread_and_held_read_as_before() -> None:
    ctx = _Ctx()
    unread.say_unread(ctx, Path("out.db"), "sqlite", {"a": "claude", "b": "claude", "c": "codex"})
    unread.say_unread(ctx, Path("out.jsonl"), "jsonl", {"a": "claude", "b": "claude", "c": "codex"})
    unread.say_held(ctx, Path("out.db"), {"a": ("cursor", "/db", "locked", False)})
    unread.say_held(ctx, Path("out.db"), {"a": ("cursor", "/db", "locked", False), "b": ("cursor", "/db", "locked", False)})
    cannot = "could not be read this run (see the warnings naming their files)"
    # (one session's warning names its file: "their files" until the end of pass 54)
    one = "could not be read this run (see the warnings naming its file)"
    assert ctx.said == [
        f"2 Claude Code sessions {cannot}: their rows in the index (and token_days) are left as they were",
        f"1 Codex CLI session {one}: its row in the index (and token_days) is left as it was",
        f"2 Claude Code sessions {cannot}: they are not in this export",
        f"1 Codex CLI session {one}: it is not in this export",
        "1 Cursor session left as it was in the index (its row and token_days): its usage is kept in /db, "
        "which could not be read this run (locked)",
        "2 Cursor sessions left as they were in the index (their row and token_days): their usage is kept in /db, "
        "which could not be read this run (locked)"]


def test_unknown_lines_read_as_before() -> None:
    from agentscan.scan.liveness import OFF_LINUX, unknown_lines

    assert unknown_lines([{"provider": "gemini", "sessions": 1, "reason": "r"},
                          {"provider": "cursor", "sessions": 1000, "reason": "r"}], "--archived", "x") == [
        "--archived: 1 Gemini CLI session left out, its x: r", "--archived: 1,000 Cursor sessions left out, their x: r"]
    assert unknown_lines([{"provider": "gemini", "sessions": 1, "reason": OFF_LINUX}], "--running") == [
        f"--running: 1 session left out, its `running` not known (null): {OFF_LINUX}"]
