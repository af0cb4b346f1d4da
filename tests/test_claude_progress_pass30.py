"""A subagent known only from its parent's progress records: its count is short of its final
reply (Claude Code copies none of it there), and the text outputs say so."""

from __future__ import annotations

import shutil
from pathlib import Path

from builders import PROGRESS_SESSION, REAL, invoke, lay_out_progress_session



def test_a_progress_only_subagent_is_said_to_lack_its_final_reply(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(400, color=False)  # a subagent's line is a terminal's (a pipe gets a line a row: pass 42)
    lay_out_progress_session(isolated_home)
    result = invoke("tokens", PROGRESS_SESSION)
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if "↳ afb92ff" in line]
    assert "(no transcript: from progress records, final response not in them)" in line


def test_a_subagent_with_its_transcript_says_nothing_of_the_kind(isolated_home: Path, tty) -> None:  # noqa: ANN001
    tty(400, color=False)
    shutil.copytree(REAL / "claude" / "projects", isolated_home / ".claude" / "projects", copy_function=shutil.copyfile)
    result = invoke("tokens", "258c7280")
    assert result.exit_code == 0, result.output
    assert "↳ a881341" in result.stdout and "progress records" not in result.stdout
