"""A review of pass 52's export rule and newcomer guesses found guesses that misled and
descriptors said too late (pass 52, mendB).

- ``--tz CST`` offered Chicago to a machine in Shanghai (``PST``: Manila's; ``AEST``:
  Brisbane's too): the local zone when it prints the abbreviation, else its zones listed;
  ``TZ=CST``'s note never offers the broken local zone.
- ``--tz UTC-13`` offered ``Etc/GMT+13``, which is no zone and was then "corrected" to
  ``Etc/GMT+3`` (ten hours off): only names that exist, never one offset for another
  (``UTC+0`` is offered ``utc``); ``--tz Europe``, a folder of zones, was a traceback.
- ``Samoa`` was American Samoa's zone, ``eastern`` Canada's; ``-p claude-desktop`` was offered
  claude (Claude Desktop is not read), ``-p openai`` codex alone (Cursor runs GPT models);
  ``list --count`` was sent to ``--limit``, docker's ``--filter`` to ``--grep``.
- ``export -o /dev/stderr 2>out.jsonl`` wrote the warnings into the export (``otlp`` too).
- An empty ``HOME`` with ``--since`` said "no session updated since …" (a quiet day).
- A folder under a linked ``~/.claude`` typed by its real path was no folder of sessions;
  ``show .`` in one was "too short" (in a project: ``list --cwd .`` is named).
- ``-o /dev/fd/²`` was a traceback; ``-o /dev/fd/3 3</dev/null`` failed after the whole scan.
- ``hooks status`` listed every ``--otlp-endpoint`` the hook command has; the hook sends to
  the first.
- ``export_sessions(tz=…, filters=ListFilter(since="2026-11-01"))`` read the date locally.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


def _error(*argv: str) -> tuple[int, str]:
    result = runner.invoke(app, list(argv))
    return result.exit_code, result.stderr.partition("\n")[0]


@pytest.mark.parametrize("machine, typed, offered", [
    ("Asia/Shanghai", "CST", "local (this machine's zone, which prints CST)"),
    ("Asia/Manila", "PST", "local (this machine's zone, which prints PST)"),
    ("Europe/Paris", "CST", "America/Chicago, Asia/Shanghai, Asia/Taipei or America/Havana"),
    ("Europe/Paris", "PST", "America/Los_Angeles or Asia/Manila"),
    ("Europe/Paris", "AEST", "Australia/Sydney or Australia/Brisbane"),
    ("Europe/Paris", "JST", "Asia/Tokyo"),
    ("Asia/Kolkata", "IST", "local (this machine's zone, which prints IST)"),  # (in no table: the machine's own)
    ("CST", "CST", "America/Chicago, Asia/Shanghai, Asia/Taipei or America/Havana"),  # (TZ=CST is UTC named CST)
])
def test_a_zones_abbreviation_is_never_guessed_onto_another_continent(
        local_zone: Callable[[str], None], machine: str, typed: str, offered: str) -> None:
    local_zone(machine)
    code, line = _error("--demo", "list", "--tz", typed)
    assert code == 2
    assert line.startswith(f"error: unknown time zone {typed!r}: did you mean {offered}?")


def test_a_tz_variable_that_sets_no_zone_is_never_offered_the_local_zone() -> None:
    from agentscan.localzone import problem

    said = problem({"TZ": "CST"})
    assert said is not None and "America/Chicago, Asia/Shanghai" in said and "local (" not in said


@pytest.mark.parametrize("typed", ["UTC-13", "utc-14", "Etc/GMT+13", "etc/gmt-15"])
def test_an_offset_no_zone_has_is_offered_nothing(typed: str) -> None:
    code, line = _error("--demo", "list", "--tz", typed)
    assert code == 2
    assert "did you mean" not in line and "Etc/GMT+3" not in line


@pytest.mark.parametrize("typed", ["UTC+0", "+00:00"])
def test_a_zero_offset_is_offered_utc(typed: str) -> None:
    assert _error("--demo", "list", "--tz", typed)[1].startswith(f"error: unknown time zone {typed!r}: did you mean utc?")


def test_the_last_offsets_that_exist_are_still_offered() -> None:
    assert _error("--demo", "list", "--tz", "UTC-12")[1].startswith("error: unknown time zone 'UTC-12': did you mean Etc/GMT+12?")
    assert _error("--demo", "list", "--tz", "UTC+14")[1].startswith("error: unknown time zone 'UTC+14': did you mean Etc/GMT-14?")


@pytest.mark.parametrize("typed, offered", [("Samoa", "Pacific/Apia"), ("eastern", None), ("pacific", None)])
def test_a_country_or_region_word_gets_its_own_zone_or_none(typed: str, offered: str | None) -> None:
    line = _error("--demo", "list", "--tz", typed)[1]
    assert ("did you mean" in line) is (offered is not None)
    if offered:
        assert f"did you mean {offered}?" in line
    assert "Canada/" not in line and "US/" not in line


@pytest.mark.parametrize("typed", ["Pacific", "Europe", "America/Argentina"])
def test_a_folder_of_zones_is_an_unknown_zone_not_a_traceback(typed: str) -> None:
    result = runner.invoke(app, ["--demo", "list", "--tz", typed])
    assert result.exit_code == 2 and result.stderr.startswith(f"error: unknown time zone {typed!r}")


def test_claude_desktop_is_said_to_be_unread_not_offered_claude() -> None:
    code, line = _error("--demo", "list", "-p", "claude-desktop")
    assert code == 2
    assert "did you mean" not in line and "Claude Desktop's chats are not read" in line


@pytest.mark.parametrize("typed, providers", [("openai", "codex and cursor"), ("anthropic", "claude and cursor")])
def test_a_vendor_names_every_provider_that_runs_its_models(typed: str, providers: str) -> None:
    result = runner.invoke(app, ["--demo", "list", "-p", typed])
    assert result.exit_code == 2
    line = result.stderr.partition("\n")[0]
    assert "did you mean" not in line and f"models run in {providers} sessions" in line
    assert "hint: -p is the provider" not in result.stderr  # (said already: no project hint)


def test_count_is_not_sent_to_limit_and_filter_names_the_filters() -> None:
    assert "--limit" not in _error("--demo", "list", "--count", "3")[1]
    line = _error("--demo", "list", "--filter", "status=running")[1]
    assert line.endswith("(list picks sessions with --grep TEXT, --running, --provider, --since and --cwd)")


def _export_stderr(tmp_path: Path, mode: str, *extra: str, command: tuple[str, ...] = ("export", "-f", "jsonl")
                   ) -> tuple[int, bytes]:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"earlier\n" if "a" in mode else b"")
    env = {**os.environ, "HOME": str(tmp_path / "nohome")}  # a warning-free run is not the point
    with open(out, mode) as handle:
        done = subprocess.run([sys.executable, "-m", "agentscan", *extra, "--demo", *command, "-o", "/dev/stderr"], stdout=subprocess.DEVNULL, stderr=handle, env=env,
                              timeout=120, check=False)
    return done.returncode, out.read_bytes()


def test_an_export_into_stderrs_file_is_refused_unless_quiet(tmp_path: Path) -> None:
    code, written = _export_stderr(tmp_path, "wb")
    assert code == 1 and b"stderr's file" in written and b'"schema"' not in written
    code, written = _export_stderr(tmp_path, "wb", "--quiet")
    assert code == 0 and written and all(line.startswith(b'{"schema"') for line in written.splitlines())


def test_otlp_into_stderrs_file_is_refused_too(tmp_path: Path) -> None:
    code, written = _export_stderr(tmp_path, "wb", command=("otlp", "--since", "2000-01-01"))
    assert code == 1 and b"stderr's file" in written and b"resourceSpans" not in written


def test_an_export_after_a_logs_lines_is_still_written(tmp_path: Path) -> None:
    code, written = _export_stderr(tmp_path, "ab")  # ``-o /dev/stderr 2>>log``: docs/cli.md's
    assert code == 0 and written.startswith(b"earlier\n") and b'"schema"' in written


def test_an_empty_home_is_said_whatever_the_window(tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", "-o", str(tmp_path / "e.jsonl"), "--since", "1d"])
    assert result.exit_code == 0
    assert ": no sessions found (`agentscan doctor` shows where agentscan looked)" in result.stdout


def _linked_home(tmp_path: Path) -> tuple[Path, Path]:
    real = tmp_path / "real" / "claude"
    home = tmp_path / "linked"
    native = "0000aaaa-2222-4000-8000-000000000000"
    claude_session_file(tmp_path / "real-home", native, [
        claude_user(native, "2026-11-02T09:00:00.000Z", "task"),
        claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id="m", request_id="r", usage=claude_usage(100, 10)),
    ], project="-home-me-app")
    real.parent.mkdir(parents=True)
    (tmp_path / "real-home" / ".claude").rename(real)
    home.mkdir()
    (home / ".claude").symlink_to(real)
    return home, real / "projects" / "-home-me-app"


def test_a_folder_typed_by_its_real_path_under_a_linked_claude_dir(tmp_path: Path) -> None:
    home, folder = _linked_home(tmp_path)
    result = runner.invoke(app, ["--home", str(home), "show", str(folder)])
    assert result.exit_code == 1
    linked = home / ".claude" / "projects" / "-home-me-app"
    assert "it is a folder that holds 1 session" in result.stderr and f"--grep {linked}` lists them" in result.stderr
    listed = runner.invoke(app, ["--home", str(home), "list", "--all", "--grep", str(linked)])
    assert "claude:0000aaaa" in listed.stdout


def test_show_dot_in_a_folder_of_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, folder = _linked_home(tmp_path)
    monkeypatch.chdir(folder)
    result = runner.invoke(app, ["--home", str(home), "show", "."])
    assert result.exit_code == 1
    assert "too short" not in result.stderr and "it is a folder that holds 1 session" in result.stderr


def test_show_dot_in_a_project_names_list_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "app"
    project.mkdir()
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["show", "."])
    assert result.exit_code == 1
    assert result.stderr == ("error: no session matches '.': it is a folder, not a session's transcript: "
                             "`agentscan list --cwd .` lists the sessions run in it\n")


def test_a_descriptor_named_with_other_digits_is_no_descriptor() -> None:
    from agentscan.toolkit.atomicfile import named_descriptor

    assert named_descriptor(Path("/dev/fd/\u00b2")) is None
    result = runner.invoke(app, ["--demo", "export", "-f", "jsonl", "-o", "/dev/fd/\u00b2"])
    assert result.exit_code == 1 and not isinstance(result.exception, ValueError)
    assert result.stderr.startswith("error: cannot write /dev/fd/\u00b2")


def test_a_descriptor_open_for_reading_is_refused_before_the_scan(tmp_path: Path) -> None:
    from agentscan.export.files import closed_descriptor

    fd = os.open(os.devnull, os.O_RDONLY)
    try:
        said = closed_descriptor(Path(f"/dev/fd/{fd}"))
    finally:
        os.close(fd)
    assert said is not None and f"descriptor {fd} of this process, which is open for reading only" in said
    writable = os.open(os.devnull, os.O_WRONLY)
    try:
        assert closed_descriptor(Path(f"/dev/fd/{writable}")) is None
    finally:
        os.close(writable)


def test_hooks_status_shows_the_one_endpoint_the_hook_sends_to() -> None:
    from agentscan.entry import _hook_option
    from agentscan.hooks.arguments import has_unknown, unknown_arguments
    from agentscan.hooks.status import live_endpoints

    argv = ["--agent", "claude", "--otlp-endpoint", "http://a:4318", "--otlp-endpoint=http://b:4318"]
    assert _hook_option(argv, "--otlp-endpoint") == "http://a:4318"
    command = "agentscan hook " + " ".join(argv)
    assert live_endpoints({"installed": [{"command": command}]}) == ["http://a:4318"]
    assert has_unknown(argv)
    assert unknown_arguments(argv)[0].startswith("option --otlp-endpoint given 2 times: only the first is used")
    # a value is never taken for an option: ``--otlp-endpoint --agent`` sends to "--agent", as click reads it
    assert _hook_option(["--otlp-endpoint", "--agent", "x"], "--agent") is None


def test_export_sessions_reads_a_filters_dates_in_its_tz(tmp_path: Path, local_zone: Callable[[str], None],
                                                        isolated_home: Path) -> None:
    from agentscan import Scanner
    from agentscan.export.api import export_sessions
    from agentscan.scan.listing import ListFilter

    local_zone("UTC")
    native = "0000cccc-2222-4000-8000-000000000000"
    claude_session_file(isolated_home, native, [  # 05:00 on 1 November in Tokyo; 31 October in UTC
        claude_user(native, "2026-10-31T20:00:00.000Z", "task"),
        claude_assistant(native, "2026-10-31T20:01:00.000Z", msg_id="m", request_id="r", usage=claude_usage(100, 10)),
    ])
    filters = ListFilter(since="2026-11-01")
    with Scanner() as scanner:
        assert export_sessions(scanner, tmp_path / "utc.jsonl", "jsonl", filters=filters).sessions == 0
        tokyo = export_sessions(scanner, tmp_path / "t.jsonl", "jsonl", filters=filters, days=True, tz="Asia/Tokyo")
    assert tokyo.sessions == 1
