"""Pass 52, the export persona's mend (a team lead's cron job, a library caller, hooks, OTLP)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from agentscan.providers.claude.provider import ClaudeProvider
from builders import claude_sessions


def test_an_older_fingerprint_is_asked_for_not_faked(isolated_home: Path) -> None:
    """``scan.upgraded`` set ``parser_version`` on the scan's own provider (shared by every
    thread of the run) to take a session's fingerprint as an older parser took it, and put
    it back after: ``Provider.fingerprint(version=)`` asks for it instead."""
    from agentscan.scan import upgraded
    from agentscan.scan.scanner import Scanner

    claude_sessions(isolated_home, 1)
    scanner = Scanner()
    ref = scanner.refs()[0]
    provider = scanner.provider(ref.provider)
    now = provider.fingerprint(ref, scanner.ctx)

    class Older(ClaudeProvider):
        parser_version = "1"

    older = Older().fingerprint(ref, scanner.ctx)
    assert provider.fingerprint(ref, scanner.ctx, version="1") == older != now

    class Frozen:
        """A provider whose version cannot be set: the old way raised here."""
        name = "claude"

        @property
        def parser_version(self) -> str:
            return "5"

        def fingerprint(self, ref: object, ctx: object, *, version: str | None = None) -> str:
            return f"as {version}"

    frozen = SimpleNamespace(ctx=None)
    assert upgraded._fingerprint_as(Frozen(), ref, frozen, "3") == "as 3"  # type: ignore[arg-type]


def test_the_live_senders_hint_names_the_program_that_runs_this_agentscan(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The detached sender (``python -m agentscan.otlp.live``) told ``hooks status`` "`agentscan
    otlp` exports them" where no ``agentscan`` on ``PATH`` runs this one (a venv's)."""

    import agentscan.otlp.live as live
    from agentscan.invocation import program_word
    from agentscan.otlp import livetail

    monkeypatch.setattr(sys, "argv", [live.__file__, "root"])
    monkeypatch.setenv("PATH", str(tmp_path))  # no agentscan there
    told: list[str] = []
    monkeypatch.setattr(live, "count_outcome", lambda root, outcome, message, **kwargs: told.append(message))
    monkeypatch.setattr(livetail, "load_mark", lambda *args: None)
    monkeypatch.setattr(livetail, "skip_mark", lambda *args: ("mark", 123))
    monkeypatch.setattr(livetail, "save_mark", lambda *args: None)
    session = SimpleNamespace(agent="claude", session_id="s1", path=tmp_path / "events.jsonl")
    assert live._move_past(str(tmp_path), session, None) == "mark"
    word = program_word()
    assert word != "agentscan"
    assert f"(`{word} otlp` exports them)" in told[0], told


def test_the_output_lock_says_whether_it_is_the_caches(tmp_path: Path) -> None:
    """``usable_lock`` was a wrapper dropping what its one caller needed (in the cache or not)."""
    from agentscan.export.locks import lock_path, usable_lock

    env = {"AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    assert usable_lock(tmp_path / "out.csv", env) == (lock_path(tmp_path / "out.csv", env), True)


def test_the_library_reads_since_and_until_as_the_cli_does(isolated_home: Path) -> None:
    """``ListFilter(since="7d")`` and ``token_report(since="7d")`` were refused ("since must
    be a datetime") while ``--since 7d`` works: a cron script's window is the same words."""
    from datetime import datetime, timedelta, timezone

    from agentscan import ListFilter, Scanner, token_report
    from agentscan.errors import UsageProblem
    from agentscan.whentext import parse_when

    before = datetime.now(timezone.utc)
    month = f"{before + timedelta(days=1):%Y-%m}"  # (this month, or the next near its end: after "7d" always)
    week = ListFilter(since="7d", until=month)
    assert week.since is not None and abs(week.since - (before - timedelta(days=7))) < timedelta(minutes=1)
    assert week.until == parse_when(month, end_of_day=True)  # the month counts whole, as --until's
    assert ListFilter(since="2026-11-01") == ListFilter(since=parse_when("2026-11-01"))
    with pytest.raises(UsageProblem, match='since: cannot read the time .3.: .*since="3d" for days') as raised:
        ListFilter(since="3")
    assert raised.value.parameter == "since"
    claude_sessions(isolated_home, 2)
    with Scanner(home=isolated_home) as scanner:
        kept = token_report(scanner, since="2000-01-01", until="2999-12", tz="UTC")
        assert kept.rows and kept.to_json() == token_report(
            scanner, since=datetime(2000, 1, 1, tzinfo=timezone.utc),
            until=datetime(3000, 1, 1, tzinfo=timezone.utc)).to_json()
        assert not token_report(scanner, until="1999-01-01").rows
        with pytest.raises(UsageProblem, match="^until: ") as raised:
            token_report(scanner, until="soon")
        assert raised.value.parameter == "until"


# --- an output that is one of this process's descriptors: one rule (``atomicfile.own_descriptor``) ---

on_proc = pytest.mark.skipif(not os.path.isdir(f"/proc/{os.getpid()}/fd"), reason="Linux's /proc")


def _export_into(fd: int, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "agentscan", "--demo", *args, "-o", f"/dev/fd/{fd}"], pass_fds=(fd,),
                          capture_output=True, timeout=120, check=False)


@on_proc
@pytest.mark.parametrize("command", [["export", "-f", "csv"], ["otlp"]])
def test_a_descriptor_open_on_a_file_is_written_into(tmp_path: Path, command: list[str]) -> None:
    """``-o /dev/fd/5 5>>all.csv`` (or ``-o /dev/stderr 2>>log``) was refused ("a descriptor of
    this process open on …: not replaced") while the same descriptor on a pipe was written
    into: written into either way now, the file's lines kept, as ``-o /dev/stdout >>`` is."""
    kept = tmp_path / "all.out"
    kept.write_bytes(b"earlier\n")
    before = kept.stat().st_ino
    fd = os.open(kept, os.O_WRONLY | os.O_APPEND)
    try:
        done = _export_into(fd, *command)
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    assert kept.stat().st_ino == before
    text = kept.read_bytes()
    assert text.startswith(b"earlier\n") and text.count(b"\n") > 2
    assert f"to /dev/fd/{fd}".encode() in done.stdout  # the summary on stdout, not in the file


@on_proc
def test_sqlite_into_a_descriptor_is_refused_in_one_words(tmp_path: Path) -> None:
    """A pipe said "not a regular file", a file "a descriptor … not replaced": one reason now."""
    read, write = os.pipe()
    index = tmp_path / "x.db"
    fd = os.open(index, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for number in (write, fd):
            done = _export_into(number, "export", "-f", "sqlite")
            assert done.returncode == 1
            assert b"is a descriptor of this process" in done.stderr and b"give that file's path" in done.stderr
    finally:
        for number in (read, write, fd):
            os.close(number)
    assert index.stat().st_size == 0


@on_proc
def test_own_descriptor_is_the_one_rule(tmp_path: Path) -> None:
    from agentscan.export.files import names_stdout
    from agentscan.toolkit.atomicfile import atomic_write, own_descriptor

    log = tmp_path / "log.txt"
    log.write_bytes(b"old\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        mine = tmp_path / "mine"
        mine.symlink_to(f"/dev/fd/{fd}")  # a user's own link to one, as to /dev/stdout
        assert own_descriptor(Path(f"/dev/fd/{fd}")) == own_descriptor(mine) == fd
        assert own_descriptor(Path("/dev/stdout")) == 1
        assert own_descriptor(log) is None and own_descriptor(tmp_path / "none") is None
        atomic_write(mine, lambda handle: handle.write(b"new\n"))
        assert log.read_bytes() == b"old\nnew\n"
        assert not names_stdout(str(mine))
        other = os.dup(fd)  # not open on stdout's file: no stdout
        assert not names_stdout(f"/dev/fd/{other}")
    finally:
        os.close(fd)
        os.close(other)
    assert own_descriptor(Path(f"/dev/fd/{other}")) is None  # closed: not a descriptor of this process


@on_proc
def test_stderr_on_stdouts_file_is_stdout(tmp_path: Path) -> None:
    """``-o /dev/stderr >out.csv 2>&1``: stdout's own file, so the summary line (printed on stdout
    for a file) would have landed in the export: taken as ``-o -``."""

    out = tmp_path / "out.csv"
    with out.open("wb") as handle:
        done = subprocess.run([sys.executable, "-m", "agentscan", "--demo", "export", "-f", "csv", "-o", "/dev/stderr"],
                              stdout=handle, stderr=subprocess.STDOUT, timeout=120, check=False)
    assert done.returncode == 0
    text = out.read_text()
    assert text.startswith("id,") and "wrote " not in text and text.count("\n") > 3


@pytest.mark.parametrize(("why", "mend"), [
    ("read-only file system", "mount it read-write, or give another --output"),
    ("permission denied: owned by uid 1234, mode 0644", "(permission denied: owned by uid 1234, mode 0644): give another"),
    ("permission denied: mode 0444", "make it writable (chmod u+w), or give another --output"),
])
def test_a_file_that_cannot_be_written_is_told_the_mend_that_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   why: str, mend: str) -> None:
    """A CSV on a read-only mount (a backup disk, a ``ProtectSystem`` unit) was told "make it
    writable (chmod u+w)", which no chmod can do there, nor on another user's file."""
    from agentscan.export import target

    out = tmp_path / "idx.csv"
    out.write_text("id\n")
    monkeypatch.setattr(target, "_access", lambda path, mode: path != out)
    monkeypatch.setattr(target, "_refusal", lambda path, found: why)
    said = target.writable_problem("csv", out) or ""
    assert mend in said and said.endswith("it is left as it is")
    assert ("chmod" in said) == why.endswith("0444")


@on_proc
def test_a_full_disk_under_a_descriptors_file_is_not_said_to_leave_it_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Written into (``-o /dev/stderr 2>>log``, a FIFO), the output got part of the export: "log
    was left as it was; free space in /dev" said what is true of a file renamed into place."""
    import errno

    from agentscan.errors import ExportFailed
    from agentscan.export import run

    def full(handle: object, rows: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(run, "csv_lines", full)
    log = tmp_path / "log.txt"
    log.write_text("old\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        with pytest.raises(ExportFailed) as raised:
            run.export("csv", Path(f"/dev/fd/{fd}"), [], [])
    finally:
        os.close(fd)
    said = str(raised.value)
    assert f"the export added to {log} is cut short; free space in {tmp_path} " in said, said
    assert "left as it was" not in said and "/dev " not in said
    kept = tmp_path / "kept.csv"
    kept.write_text("old\n")
    with pytest.raises(ExportFailed, match="kept.csv was left as it was; free space in "):
        run.export("csv", kept, [], [])


def test_a_library_export_waits_for_another_only_as_long_as_it_is_told(isolated_home: Path, tmp_path: Path) -> None:
    """``export_sessions`` had no ``lock_timeout``: a request handler exporting the file a cron job
    was writing waited 30 s, the CLI's default, with no way to say less."""
    import time

    from filelock import FileLock

    from agentscan import Scanner, demo_home, export_sessions
    from agentscan.errors import ExportFailed, UsageProblem
    from agentscan.export.locks import usable_lock

    out = tmp_path / "idx.csv"
    env = {"AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    with Scanner(home=demo_home(), env=env) as scanner:
        for bad in (-1, float("nan"), float("inf"), "5", True):
            with pytest.raises(UsageProblem) as raised:
                export_sessions(scanner, out, "csv", lock_timeout=bad)  # type: ignore[arg-type]
            assert raised.value.parameter == "lock_timeout"
        with FileLock(str(usable_lock(out, env)[0])):
            began = time.monotonic()
            with pytest.raises(ExportFailed, match="another agentscan export of .* is running"):
                export_sessions(scanner, out, "csv", lock_timeout=0.2)
            assert time.monotonic() - began < 10
        assert export_sessions(scanner, out, "csv", lock_timeout=0).sessions > 0


def test_an_export_of_a_home_with_no_sessions_says_so(isolated_home: Path, tmp_path: Path) -> None:
    """A cron job whose ``HOME`` is another's wrote ``wrote 0 sessions to … (csv)`` and no more,
    night after night, while ``-o -`` said "no sessions found; `agentscan doctor` shows …"."""
    from builders import invoke

    out = tmp_path / "x.csv"
    result = invoke("export", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote 0 sessions to {out} (csv): no sessions found (`")
    assert "doctor` shows where agentscan looked)" in result.stdout
    claude_sessions(isolated_home, 1)
    assert invoke("export", "-o", str(out)).stdout == f"wrote 1 session to {out} (csv)\n"


@on_proc
@pytest.mark.parametrize("command", [["export", "-f", "csv"], ["otlp"]])
def test_a_closed_descriptor_is_refused_before_anything_takes_its_number(tmp_path: Path, command: list[str]) -> None:
    """``-o /dev/stdout >&-``: descriptor 1 was closed, so the export's lock file, opened next,
    got number 1, and the export was written into the lock file (or refused as "open on …lock"
    by luck).  Said at once now, nothing written."""
    cache = tmp_path / "cache"
    env = {**os.environ, "AGENTSCAN_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-m", "agentscan", "--demo", *command, "-o", "/dev/stdout"],
                          preexec_fn=lambda: os.close(1), stderr=subprocess.PIPE, env=env, timeout=120, check=False)
    assert done.returncode == 1
    assert b"/dev/stdout names descriptor 1 of this process, which is not open" in done.stderr
    assert not any(path.stat().st_size for path in cache.rglob("*.lock"))


def test_the_library_refuses_a_closed_descriptor(tmp_path: Path) -> None:
    from agentscan import Scanner, demo_home, export_sessions
    from agentscan.errors import ExportFailed

    unused = 1000
    while True:
        try:
            os.fstat(unused)
        except OSError:
            break
        unused += 1
    with Scanner(home=demo_home(), env={"AGENTSCAN_CACHE_DIR": str(tmp_path)}) as scanner, \
            pytest.raises(ExportFailed, match=f"names descriptor {unused} of this process, which is not open"):
        export_sessions(scanner, f"/dev/fd/{unused}", "csv")


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="no /dev/stdout")
def test_json_with_dev_stdout_names_the_output_given() -> None:
    """``-o /dev/stdout --json`` was told "(no --output, or -)", of an --output it had."""
    from builders import invoke

    export = invoke("--demo", "export", "-f", "csv", "-o", "/dev/stdout", "--json")
    assert export.exit_code == 2
    assert "--json and the export would both write to stdout (--output /dev/stdout is stdout)" in export.stderr
    otlp = invoke("--demo", "otlp", "-o", "/dev/stdout", "--json")
    assert otlp.exit_code == 2 and "--json and the spans would both write to stdout (--output /dev/stdout is stdout)" in otlp.stderr


def test_hooks_status_names_the_collector_before_the_first_span(isolated_home: Path) -> None:
    """With ``--otlp-endpoint`` added to the installed hook, ``hooks status`` said nothing of live
    export until a span had gone: a setup could not be checked before a session ran.  The
    endpoint is masked as ``otlp`` masks one (its userinfo and query may hold a token)."""
    from builders import invoke

    assert invoke("hooks", "install", "claude").exit_code == 0
    assert "live OTLP export" not in invoke("hooks", "status").stdout  # none asked for: nothing said
    settings = isolated_home / ".claude" / "settings.json"
    text = settings.read_text()
    settings.write_text(text.replace("hook --agent claude", "hook --agent claude --otlp-endpoint "
                                                            "https://me:s3cret@otel.example:4318?key=abc"))
    status = invoke("hooks", "status")
    assert status.exit_code == 0, status.output
    assert "live OTLP export: to https://***@otel.example:4318?***; nothing sent yet" in status.stdout
    assert "s3cret" not in status.stdout and "abc" not in status.stdout
