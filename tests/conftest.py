"""Every test runs against a temporary home: the real one is never read."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from agentscan.providers import provider_env_vars
from spies import record_calls

# The providers' own variables come from the registry, so a new provider's
# settings can never leak the real home into a test.
PROVIDER_ENV = provider_env_vars() + (
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "USERPROFILE",
    "AGENTSCAN_CACHE_DIR",
    "AGENTSCAN_DATA_DIR",
    "NO_COLOR",
    # a CI runner's FORCE_COLOR would colour the tests' pipes (``term.colored``)
    "FORCE_COLOR",
    "CLICOLOR_FORCE",
    "CLICOLOR",
)


#: the process pytest runs the tests in, and SIGINT as it began (``default_sigint``)
SESSION_PID = os.getpid()
SESSION_SIGINT = (signal.getsignal(signal.SIGINT), signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))
#: tests that found ``SIGINT`` not as Python sets it (``default_sigint``), said at the end
SIGINT_FOUND: list[str] = []


def pytest_report_header(config: pytest.Config) -> str:
    return f"sqlite: {sqlite3.sqlite_version}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for found in SIGINT_FOUND:  # (pytest started in the background, or a test that left it so)
        terminalreporter.write_line(f"note: {found}")


#: HOME as the session began (the real one): no test may end with it back (``isolated_home``)
REAL_HOME = os.environ.get("HOME")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME and every provider variable at an empty temporary dir.  A test that undid
    it (``monkeypatch.undo()`` under any name: ``tests/test_no_monkeypatch_undo_pass56`` finds
    the literal call only) ran what followed in the real home: it fails here, at its teardown
    (before ``monkeypatch``'s own, which comes after this fixture's).  A test may point HOME
    elsewhere, with ``monkeypatch.setenv`` or ``monkeypatch.context()``, never at the real home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTSCAN_CACHE_DIR", str(tmp_path / "agentscan-cache"))
    monkeypatch.setenv("AGENTSCAN_DATA_DIR", str(tmp_path / "agentscan-data"))
    # An export's second lock (``toolkit.meetlock``) is taken in /tmp whatever TMPDIR says:
    # the variable for the CLI run as a subprocess, which must not write the real /tmp either.
    monkeypatch.setattr("agentscan.toolkit.meetlock.MEETING_BASE", str(tmp_path))
    monkeypatch.setenv("AGENTSCAN_LOCK_DIR", str(tmp_path / "agentscan-locks"))
    # Gemini CLI's system settings (``geminionce.system_settings_path``), never the machine's /etc
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(tmp_path / "gemini-system-settings.json"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    # Tests write their files just before they read them: without this, nothing
    # would be "settled" (scan.memo.SETTLE_NS) and the warm shortcuts never kept.
    # tests/test_discovery_memo.py checks the rule itself.
    monkeypatch.setattr("agentscan.scan.memo.SETTLE_NS", 0)
    # A CI machine on WSL must not list its real Windows profiles in ``doctor``'s report.
    monkeypatch.delenv("WSL_DISTRO_NAME", raising=False)
    monkeypatch.setattr("agentscan.scan.wslhomes.WINDOWS_USERS", tmp_path / "windows-users")
    # ``--quiet`` is process state (``cli.term``): a test that invoked the CLI with it left the
    # next test's direct calls of a renderer quiet (test_show_card_pass30 after
    # test_shared_helpers_pass57 lost its hint): every test starts loud.
    monkeypatch.setattr("agentscan.cli.term._quiet", False)
    yield home
    assert os.environ.get("HOME") != REAL_HOME or REAL_HOME == str(home), (
        f"HOME is the real home ({REAL_HOME}) again at the end of the test: the isolation was undone "
        "(monkeypatch.undo(), however it is called); use `with monkeypatch.context() as patch:`")


@pytest.fixture
def only_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scan Cursor alone (``cursor_builders.cursor_only``): a Cursor test file marks itself
    ``pytestmark = pytest.mark.usefixtures("only_cursor")``."""
    from cursor_builders import cursor_only

    cursor_only(monkeypatch)


@pytest.fixture
def short_sqlite_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """A locked database given up on after 200 ms, not the busy timeout a user's run waits
    (``sqlite_ro.BUSY_TIMEOUT_MS``): a test that holds one locked marks itself
    ``pytest.mark.usefixtures("short_sqlite_wait")``."""
    from agentscan.toolkit import sqlite_ro

    monkeypatch.setattr(sqlite_ro, "BUSY_TIMEOUT_MS", 200)


@pytest.fixture
def tty(monkeypatch: pytest.MonkeyPatch):
    """Make stdout (and, unless ``stderr=False``, stderr) a terminal ``width`` columns wide:
    ``tty(80)``; ``color`` True or False sets NO_COLOR accordingly (default: as it is)."""
    from agentscan.cli import term

    def make(width: int = 100, *, stderr: bool = True, color: bool | None = None) -> None:
        monkeypatch.setattr(term, "stdout_is_tty", lambda: True)
        monkeypatch.setattr(term, "stderr_is_tty", lambda: stderr)
        monkeypatch.setenv("COLUMNS", str(width))
        if color is True:
            monkeypatch.delenv("NO_COLOR", raising=False)
        elif color is False:
            monkeypatch.setenv("NO_COLOR", "1")

    return make


@pytest.fixture
def discoveries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the providers whose real discovery ran (Claude's, counted)."""
    from agentscan.providers.claude.provider import ClaudeProvider

    return record_calls(monkeypatch, ClaudeProvider, "discover", lambda self, ctx: self.name)


@pytest.fixture
def default_sigint(request: pytest.FixtureRequest) -> Iterator[None]:
    """A Ctrl-C raises ``KeyboardInterrupt`` in this test, as in a user's shell, however pytest
    was started: a shell without job control starts a background command (``cmd &``, as a
    CI runner or a script may) with ``SIGINT`` ignored, and Python then installs no handler,
    so a test of what a Ctrl-C during a fork does saw none ("DID NOT RAISE").  Only that
    starting state is put right (and said at the end of the run); SIGINT otherwise than the
    session began with was left so by an earlier test, and fails this one, as a test in
    another process than pytest's does (a forked child went back into the parent's code)."""
    if os.getpid() != SESSION_PID:
        pytest.fail(f"running in process {os.getpid()}, not pytest's {SESSION_PID}: a forked child escaped")
    handler = signal.getsignal(signal.SIGINT)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    if (handler, signal.SIGINT in mask) != SESSION_SIGINT:
        pytest.fail(f"SIGINT is {handler!r} (blocked: {signal.SIGINT in mask}), the session began with "
                    f"{SESSION_SIGINT[0]!r} (blocked: {SESSION_SIGINT[1]}): an earlier test left it so")
    if handler is not signal.default_int_handler or signal.SIGINT in mask:
        SIGINT_FOUND.append(f"SIGINT was {handler!r} (blocked: {signal.SIGINT in mask}) when {request.node.nodeid} began")
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler if handler is not None else signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@pytest.fixture
def pages(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """The limit of each ``list`` page really made (``Scanner.list_page``), not printed again."""
    from agentscan.scan.scanner import Scanner

    made: list[int | None] = []
    original = Scanner.list_page

    def counting(self: Scanner, *, limit: int | None = 25, filters=None, **more):  # noqa: ANN001, ANN003, ANN202
        made.append(limit)
        return original(self, limit=limit, filters=filters, **more)

    monkeypatch.setattr(Scanner, "list_page", counting)
    return made


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Worker processes fork even on one core (``otlp.parallel``); the list counts the
    sessions handed to each pool started."""
    from agentscan.toolkit import cores, workers

    started: list[int] = []
    real = workers.run_parallel

    def counting(job, batches, count, **kw):  # type: ignore[no-untyped-def]
        started.append(sum(len(batch) for batch in batches))
        return real(job, batches, count, **kw)

    monkeypatch.setattr(workers, "run_parallel", counting)
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    return started


@pytest.fixture
def table_ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each ``tokens`` text table was made: ``patched``, or ``whole`` (a basis that could
    not patch it: ``cli.tablepatch``)."""
    from agentscan.cli import tablepatch
    from spies import record_results

    return record_results(monkeypatch, tablepatch, "patched", lambda done: "patched" if done else "whole")


@pytest.fixture
def table_splices(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each patched table was printed from the kept text (``True``) or laid out again."""
    from agentscan.cli import tablepatch
    from spies import record_results

    return record_results(monkeypatch, tablepatch, "_print_spliced")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder, the current directory (where a project-scope hook config is written)."""
    where = tmp_path / "project"
    where.mkdir()
    monkeypatch.chdir(where)
    return where


@pytest.fixture
def facts_for_a_few(monkeypatch: pytest.MonkeyPatch) -> None:
    """``list``'s window of a few sessions is searched by its facts (``scan.factfilter``), as a
    heavy user's home of thousands is: a home of thousands, in small."""
    from agentscan.scan import factfilter

    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 4)


@pytest.fixture
def local_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """``local_zone("Europe/Berlin")`` makes it the process's zone (``TZ`` and ``tzset``);
    the zone the process had is put back after the test."""
    with monkeypatch.context() as patch:
        def make(name: str) -> None:
            patch.setenv("TZ", name)
            time.tzset()

        yield make
    time.tzset()
