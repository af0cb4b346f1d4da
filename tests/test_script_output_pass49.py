"""Pass 49 (a script author's report): what ``export`` and ``otlp`` say on stderr as ``list``
and ``tokens`` do: a mistyped ``TZ`` where local time is read."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke
from zones import in_each_zone

SESSION = "44444444-0000-4000-8000-000000000004"
NOTE = "note: TZ=Europe/Berln names no time zone this system knows (did you mean Europe/Berlin?), so local times are UTC"


@pytest.fixture
def one_session(isolated_home: Path) -> None:
    claude_session_file(isolated_home, SESSION, [
        claude_user(SESSION, "2026-11-07T23:30:00Z", "late"),
        claude_assistant(SESSION, "2026-11-07T23:30:00Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 10)),
    ])


@pytest.mark.usefixtures("one_session")
def test_a_mistyped_tz_is_said_by_export_and_otlp_where_they_read_local_time(tmp_path: Path) -> None:
    out = str(tmp_path / "out.jsonl")
    for _ in in_each_zone(["Europe/Berln"]):
        for argv in (["export", "-f", "jsonl", "--days", "--tz", "local", "-o", out],
                     ["export", "-f", "jsonl", "--since", "2026-11-02", "-o", out, "--json"],
                     ["export", "-f", "csv", "--days", "--since", "2026-11-02", "-o", out],
                     ["otlp", "--since", "2026-11-02", "-o", str(tmp_path / "t.otlp")]):
            result = invoke(*argv)
            assert result.exit_code == 0, result.output
            assert result.stderr.count(NOTE) == 1, (argv, result.stderr)
        # Not where no local time is read (UTC days, a zone given), nor under --quiet.
        for argv in (["export", "-f", "jsonl", "-o", out], ["export", "-f", "jsonl", "--days", "-o", out],
                     ["export", "-f", "jsonl", "--days", "--tz", "Asia/Tokyo", "--since", "2026-11-02", "-o", out],
                     ["-q", "export", "-f", "jsonl", "--since", "2026-11-02", "-o", out],
                     ["otlp", "-o", str(tmp_path / "t.otlp")]):
            result = invoke(*argv)
            assert result.exit_code == 0 and "TZ=" not in result.stderr, (argv, result.output)


# --- -v --json: every warning on stderr too, the document unchanged ------------------------------

@pytest.mark.parametrize("command", [["list"], ["tokens"], ["export", "-f", "csv", "-o", "{tmp}/x.csv"],
                                     ["otlp", "-o", "{tmp}/x.otlp"]])
def test_verbose_json_says_every_warning_on_stderr(isolated_home: Path, tmp_path: Path, command: list[str]) -> None:
    import os

    loop = isolated_home / ".codex" / "sessions"
    loop.parent.mkdir(parents=True)
    os.symlink("sessions", loop)
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in command]
    plain, verbose = invoke(*argv, "--json"), invoke("-v", *argv, "--json")
    assert plain.exit_code == verbose.exit_code == 0, verbose.output
    line = f"warning: {loop}: cannot list directory: "
    assert line not in plain.stderr and line in verbose.stderr, verbose.stderr
    if command[0] in ("list", "tokens"):
        assert plain.stdout == verbose.stdout
    assert line not in invoke("-v", "-q", *argv, "--json").stderr  # --quiet still drops them


def test_verbose_json_says_prices_warnings_on_stderr() -> None:
    result = invoke("-v", "--demo", "prices", "no-such-model-zz", "--json")
    assert result.exit_code == 0, result.output
    assert "warning: model no-such-model-zz: no price for" in result.stderr, result.stderr


def test_verbose_json_says_trace_warnings_on_stderr(isolated_home: Path) -> None:
    import os

    from hooks_builders import CONVERSATION, Replay, failed_then_retried_shell

    failed_then_retried_shell(Replay(Path(os.environ["AGENTSCAN_DATA_DIR"])), delivered_twice_at_ms=240)
    plain, verbose = invoke("trace", CONVERSATION, "--json"), invoke("-v", "trace", CONVERSATION, "--json")
    assert plain.exit_code == verbose.exit_code == 0, verbose.output
    assert "delivered twice" not in plain.stderr and "delivered twice" in verbose.stderr, verbose.stderr
    assert plain.stdout == verbose.stdout


def test_verbose_json_says_hooks_install_warnings_on_stderr(isolated_home: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert invoke("hooks", "install", "claude").exit_code == 0
    plain = invoke("hooks", "install", "claude", "--scope", "project", "--dry-run", "--json")
    verbose = invoke("-v", "hooks", "install", "claude", "--scope", "project", "--dry-run", "--json")
    assert plain.exit_code == verbose.exit_code == 0, verbose.output
    said = "agentscan's hook is also installed in this file"
    assert said not in plain.stderr and said in verbose.stderr, verbose.stderr
    assert said in orjson.loads(verbose.stdout)["warnings"][0]["message"]
