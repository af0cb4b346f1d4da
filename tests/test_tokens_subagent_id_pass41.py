"""``tokens <a subagent's id>`` totals its session, as ``show`` opens it: the table says so on
stderr, or a user takes the session's total for the run's."""

from __future__ import annotations

from builders import invoke


def test_a_subagents_id_is_told_its_session_is_totalled() -> None:
    by_run = invoke("--demo", "tokens", "a1b2c3d")
    by_session = invoke("--demo", "tokens", "7f3c9a12")
    assert by_run.exit_code == 0 and by_run.stdout == by_session.stdout
    assert "a1b2c3d is a subagent of claude:7f3c9a12-4b8e-4d21-9c5a-1e2f3a4b5c6d: its session is totalled" in by_run.stderr
    assert "subagent" not in by_session.stderr
    assert invoke("--demo", "tokens", "a1b2c3d", "--json").stderr == ""  # --json: its document alone


def test_the_note_points_a_pipe_where_the_runs_part_is(tty) -> None:  # noqa: ANN001
    """A pipe gets a line a row, no ``↳`` line: the note sends it to --json."""
    piped = invoke("--demo", "tokens", "a1b2c3d")
    assert "↳" not in piped.stdout
    assert piped.stderr.rstrip().endswith("the run's own part in --json")  # --json alone (pass 42b)
    tty(200)
    shown = invoke("--demo", "tokens", "a1b2c3d")
    assert "↳ a1b2c3d" in shown.stdout
    assert "the run's own part on its ↳ a1b2c3d line" in shown.stderr
