"""stdout and stderr as a script or an old terminal gives them (``cli.streams``): an encoding
that cannot hold the output's characters writes stand-ins, never a traceback; a closed stderr
drops what would go there (exit 0, the answer whole); a closed stdout is an error (exit 1)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import claude_session_file, claude_user

TRACEBACK = "Traceback"
CLOSED = "error: cannot write to stdout: it is closed\n"
SESSION = "aaaaaaaa-1111-4111-8111-111111111111"


#: ``agentscan`` as the console script runs it (``python -m`` never prints the static help)
AS_CONSOLE_SCRIPT = "import sys; sys.argv[0] = 'agentscan'; from agentscan.entry import main; main()"


def _run(*argv: str, encoding: str | None = None, close: str = "", **env: str) -> subprocess.CompletedProcess[bytes]:
    """``agentscan ARGV`` in its own process; ``encoding``: PYTHONIOENCODING; ``close``: a
    shell redirection (``>&-``, ``2>&-``) closing a stream before the process begins."""
    environ = {**os.environ, **env}
    if encoding is not None:
        environ["PYTHONIOENCODING"] = encoding
    command = [sys.executable, "-c", AS_CONSOLE_SCRIPT, *argv]
    if close:  # only a shell's redirection leaves the descriptor closed (DEVNULL is open)
        command = ["sh", "-c", f'"$0" "$@" {close}', *command]
    return subprocess.run(command, capture_output=True, timeout=120, env=environ)


def _on_a_terminal(*argv: str, **env: str) -> tuple[subprocess.CompletedProcess[bytes], bytes]:
    """``agentscan ARGV`` in its own process, its stdout a terminal (a pty): the process, and
    what it printed there (``\r\n`` a line).  A piped table has no ``↳`` line (pass 42)."""
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-c", AS_CONSOLE_SCRIPT, *argv], stdout=follower, stderr=subprocess.PIPE,
                              timeout=120, env={**os.environ, "COLUMNS": "200", **env})
        os.close(follower)
        printed = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            printed += chunk
    finally:
        os.close(leader)
    return done, printed


def _untitled_home(home: Path, title: str) -> None:
    claude_session_file(home, SESSION, [claude_user(SESSION, "2026-11-30T12:00:00Z", title, cwd="/home/me/café")])


# --- an encoding that cannot hold every character ------------------------------------


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_tokens_with_its_subagent_runs_prints_them_in_ascii(encoding: str) -> None:
    """``write_out`` on the fast path: ``↳`` was a UnicodeEncodeError, exit 1, nothing printed."""
    done, printed = _on_a_terminal("--demo", "tokens", PYTHONIOENCODING=encoding)
    assert done.returncode == 0 and TRACEBACK.encode() not in done.stderr, done.stderr
    assert b"\n  > " in printed and b"TOTAL" in printed
    by = _run("--demo", "tokens", "--by", "model", encoding=encoding)
    assert by.returncode == 0 and b"TOTAL" in by.stdout, by.stderr


def test_a_replaced_control_character_and_wide_characters_keep_the_columns(isolated_home: Path) -> None:
    """A title's escape (shown as U+FFFD) in a pipe; a wide character is ``??``: as wide."""
    _untitled_home(isolated_home, "fix \x1b[31m the 日本 parser")
    done = _run("list", encoding="ascii")
    assert done.returncode == 0, done.stderr
    assert b"/home/me/caf?  fix ?[31m the ???? parser" in done.stdout
    utf8 = _run("list", encoding="utf-8")  # unchanged, byte for byte
    assert "/home/me/café  fix \ufffd[31m the 日本 parser".encode() in utf8.stdout


def test_a_cut_title_on_a_terminal_ends_in_a_stand_in(isolated_home: Path) -> None:
    """``list`` on a terminal cuts with ``…`` (``cut``): a tty whose encoding is ASCII gets
    ``~`` (pass 54: ``?`` read as a question, ``Upgrade to Python 3.?``)."""
    _untitled_home(isolated_home, "a title much longer than the narrow terminal can show whole " * 3)
    done, printed = _on_a_terminal("list", PYTHONIOENCODING="ascii", COLUMNS="60")
    assert done.returncode == 0 and TRACEBACK.encode() not in done.stderr, done.stderr
    assert b"a title much" in printed and b"~\r\n" in printed and b"?" not in printed


def test_typer_commands_and_print_write_stand_ins(tmp_path: Path) -> None:
    """``doctor`` (a Typer command, ``write_out``: a rich traceback before) with a ``--home``
    named with an é and a warning's ``×``, and ``export``'s summary (``print``)."""
    home = tmp_path / "café"
    path = claude_session_file(home, SESSION, [claude_user(SESSION, "2026-11-30T12:00:00Z", "hello", cwd="/x")])
    with path.open("ab") as handle:
        handle.write(b"{bad json\n")
    doctor = _run("--home", str(home), "doctor", "--no-redact", encoding="ascii")
    assert doctor.returncode == 0 and TRACEBACK.encode() not in doctor.stderr, doctor.stderr
    assert b"/caf? (from --home)" in doctor.stdout and b"warning: 1 x invalid JSON" in doctor.stdout
    exported = _run("--demo", "export", "-f", "csv", "-o", str(home / "out.csv"), encoding="ascii")
    assert exported.returncode == 0, exported.stderr
    assert b"caf?/out.csv (csv)" in exported.stdout


def test_c_locale_writes_a_path_s_bytes_back_as_they_were_read(tmp_path: Path) -> None:
    """``LC_ALL=C``: ASCII, and ``surrogateescape``: ``…`` and ``↳`` are stand-ins, and a path
    named in UTF-8 is printed as given (its bytes past ASCII were read as lone surrogates,
    and written back so, as before), not as ``??``."""
    demo, printed = _on_a_terminal("--demo", "tokens", LC_ALL="C", PYTHONUTF8="0")
    assert demo.returncode == 0 and b"\n  > " in printed, demo.stderr
    target = tmp_path / "josé"
    target.mkdir()
    done = _run("--demo", "export", "-f", "csv", "-o", str(target / "out.csv"), LC_ALL="C", PYTHONUTF8="0")
    assert done.returncode == 0 and TRACEBACK.encode() not in done.stderr, done.stderr
    assert "josé/out.csv (csv)".encode() in done.stdout


def test_an_error_quoting_what_was_typed_is_said_in_ascii() -> None:
    done = _run("--demo", "show", "\u2603" * 8, encoding="ascii")
    assert done.returncode == 1 and done.stderr.startswith(b"error: no session matches"), done.stderr


def test_stderr_that_cannot_encode_writes_stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's own stderr never fails (``backslashreplace``), but one that is strict
    (``render.note``, a warning, the progress line, ``say_error`` all print to it) must not either."""
    from agentscan.cli import render
    from agentscan.cli.progress import StderrProgress
    from agentscan.cli.term import settle_streams

    err, out = io.BytesIO(), io.BytesIO()
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding="ascii", errors="strict"))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="ascii", errors="strict"))
    settle_streams()
    settle_streams()  # once more (the fast path hands over to Typer): the same
    render.note("25 of 90 sessions; … 3 × 日本 ↳ ≥$1")
    progress = StderrProgress()
    progress.cleared()
    print("x … y", flush=True)
    sys.stderr.flush()
    # ``…`` is ``~`` (pass 54: ``?`` read as a question), a column as it is
    assert err.getvalue() == b"25 of 90 sessions; ~ 3 x ???? > >$1\n"
    assert out.getvalue() == b"x ~ y\n"


def test_a_utf8_stream_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli.term import settle_streams

    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    settle_streams()
    assert sys.stdout is stream and stream.errors == "strict"


# --- a closed stderr -----------------------------------------------------------------


@pytest.mark.parametrize("argv", [["list"], ["tokens"], ["show", "c2d4e6f8"], ["prices"]])
def test_a_closed_stderr_loses_nothing_of_the_answer(argv: list[str]) -> None:
    """Exit 1 after a whole answer (``list``, ``tokens``): their notes were written to ``None``."""
    whole = _run("--demo", *argv)
    closed = _run("--demo", *argv, close="2>&-")
    assert (closed.returncode, closed.stdout) == (0, whole.stdout) and whole.returncode == 0


def test_an_error_with_stderr_closed_is_not_printed_on_stdout() -> None:
    """``print(file=None)`` writes to stdout: the error's message was read as the answer."""
    for argv in (["show", "zzzzzzzz"], ["nosuch"]):
        done = _run("--demo", *argv, close="2>&-")
        assert done.returncode in (1, 2) and done.stdout == b"", (argv, done.stdout)


# --- a closed stdout -----------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["--demo", "list"], ["--demo", "tokens"], ["--demo", "list", "--json"], ["--demo", "show", "c2d4e6f8"],
    ["--demo", "doctor"], ["--demo", "prices", "--json"], ["--demo", "export", "-f", "csv", "-o", "-"],
    ["--version"], ["--help"], ["tokens", "--help"],
])
def test_a_closed_stdout_is_an_error(argv: list[str]) -> None:
    """A traceback (``list``, ``tokens``, ``--json``, the static ``--help``), or exit 0 with
    the answer lost (``show``, ``doctor``, ``prices``): now as ``export -o -`` said it."""
    done = _run(*argv, close=">&-")
    assert (done.returncode, done.stderr.decode()) == (1, CLOSED)


def test_a_command_with_nothing_to_print_does_not_need_stdout(tmp_path: Path) -> None:
    done = _run("--demo", "-q", "export", "-f", "csv", "-o", str(tmp_path / "out.csv"), close=">&-")
    assert (done.returncode, done.stderr) == (0, b"") and (tmp_path / "out.csv").exists()
