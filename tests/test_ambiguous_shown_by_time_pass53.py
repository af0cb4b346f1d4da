"""An ambiguous id's ten lines are the newest by the time they say (pass 53).

They were chosen by file mtime and only then sorted by their rows' times: after ``cp -r`` or
a restore (every mtime the copy's), the newest matching session could be left in "… and 5
more" while older ones were listed."""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke


def test_the_newest_session_by_its_time_is_shown_whatever_its_mtime(isolated_home: Path) -> None:
    for number in range(1, 16):
        native = f"{number:08x}-0000-4000-8000-000000000000"
        # session 1 is the newest by its records, yet its file the oldest (the others "copied" later)
        day = 28 if number == 1 else number
        claude_session_file(isolated_home, native, [
            claude_user(native, f"2026-11-{day:02d}T09:00:00.000Z", f"task {number}"),
            claude_assistant(native, f"2026-11-{day:02d}T09:01:00.000Z", msg_id=f"msg-{number}",
                             request_id=f"req-{number}", usage=claude_usage(100, 10)),
        ], mtime=1_800_000_000 + (0 if number == 1 else number))
    result = invoke("show", "0000000")
    assert result.exit_code != 0
    lines = [line.strip() for line in result.stderr.splitlines()]
    listed = [line.split()[0] for line in lines if line.startswith("claude:")]
    assert len(listed) == 10 and "… and 5 more" in lines, result.stderr
    assert listed[0] == "claude:00000001-0000-4000-8000-000000000000", result.stderr
    # the rest newest first by their time: 15 .. 7, sessions 2 .. 6 counted
    assert listed[1:] == [f"claude:{n:08x}-0000-4000-8000-000000000000" for n in range(15, 6, -1)], result.stderr
