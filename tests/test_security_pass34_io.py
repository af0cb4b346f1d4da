"""A provider database whose writer quits mid-open (F4), a cache index this user may not open
(F7), and a secret in the ``--endpoint`` query string (F8)."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.errors import SendFailed, UsageProblem
from agentscan.otlp import sender
from agentscan.otlp.spans import ExportTrace, Span
from otlp_builders import Receiver, claude_delegating_session, no_proxy  # noqa: F401 - no_proxy is a fixture

runner = CliRunner()
SECRET = "sk-SECRETQUERY"


# --- F4: the writer quits between the look at -wal/-shm and the open ---------------------------


def wal_database_left_by_a_writer(folder: Path) -> Path:
    """A WAL database with its -wal and -shm, as a live Codex or Cursor leaves them."""
    folder.mkdir()
    path = folder / "s.sqlite"
    code = ("import os, sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA journal_mode=WAL'); c.execute('CREATE TABLE t(x)')\n"
            "c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.execute('INSERT INTO t VALUES (1)')\n"
            "os._exit(0)\n")  # no clean close: -wal and -shm stay
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)
    assert sorted(p.name for p in folder.iterdir()) == ["s.sqlite", "s.sqlite-shm", "s.sqlite-wal"]
    return path


def test_a_writer_that_quits_during_the_open_is_retried_immutable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.toolkit import sqlite_ro

    path = wal_database_left_by_a_writer(tmp_path / "codex")
    looked = sqlite_ro._needs_immutable

    def writer_quits(db: Path, header: bytes) -> bool:
        answer = looked(db, header)
        for suffix in ("-wal", "-shm"):  # its clean close deletes both, after we looked
            os.unlink(f"{db}{suffix}")
        return answer

    monkeypatch.setattr(sqlite_ro, "_needs_immutable", writer_quits)
    opened = len(sqlite_ro.OPENED_URIS)
    with sqlite_ro.readonly(path) as conn:
        assert sqlite_ro.has_table(conn, "t")
    uris = sqlite_ro.OPENED_URIS[opened:]
    assert [uri.rpartition("&")[2] for uri in uris] == ["readonly_shm=1", "immutable=1"]
    # What is left is at most the empty -wal SQLite made before it gave up (docs/security.md).
    assert {p.name: p.stat().st_size for p in path.parent.iterdir() if p != path} in ({}, {"s.sqlite-wal": 0})


def test_a_database_that_cannot_be_opened_is_not_retried_for_another_fault(tmp_path: Path) -> None:
    from agentscan.errors import DatabaseUnavailable
    from agentscan.toolkit import sqlite_ro

    path = tmp_path / "bad.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)  # the magic, then garbage
    opened = len(sqlite_ro.OPENED_URIS)
    with pytest.raises(DatabaseUnavailable):
        sqlite_ro.connect_readonly(path)
    assert len(sqlite_ro.OPENED_URIS) == opened + 1


# --- F7: an index this user may not open is not corrupt ---------------------------------------


def build_index() -> Path:
    assert runner.invoke(app, ["--demo", "list"]).exit_code == 0
    from agentscan.scan import cachefile

    index = Path(os.environ["AGENTSCAN_CACHE_DIR"]) / cachefile.FILE_NAME
    assert index.is_file()
    return index


def cache_messages(result: Any) -> list[str]:
    assert result.exit_code == 0, result.output
    return [w["message"] for w in orjson.loads(result.stdout)["warnings"] if "cache" in w["message"]]


def test_an_index_this_user_may_not_open_is_left_alone(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another user's index (a `sudo agentscan` that kept HOME): it was called unreadable, renamed
    ``.corrupt`` and rebuilt.  Root passes any permission check, so as root the kernel's answer
    is simulated: SQLite's own error for EACCES, and ``access()`` saying no."""
    from agentscan.scan import cachefile

    index = build_index()
    kept = index.read_bytes()
    index.chmod(0)
    if os.geteuid() == 0:
        def denied(path: Path) -> sqlite3.Connection:
            error = sqlite3.OperationalError("unable to open database file")
            error.sqlite_errorcode = 14  # type: ignore[attr-defined]  # SQLITE_CANTOPEN, as SQLite says EACCES
            raise error

        real_access = os.access
        monkeypatch.setattr(cachefile, "connect", denied)
        monkeypatch.setattr(cachefile.os, "access",
                            lambda path, mode, **kw: False if Path(path) == index else real_access(path, mode, **kw))
    messages = cache_messages(runner.invoke(app, ["--demo", "list", "--json"]))
    assert messages == ["cache disabled: permission denied on index.sqlite (unable to open database file); "
                        "left as it is"]
    index.chmod(0o600)
    assert index.read_bytes() == kept and not list(index.parent.glob("*.corrupt*"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="root dropping its capabilities with setpriv")
def test_an_index_this_user_may_not_open_is_left_alone_with_the_kernels_own_answer(isolated_home: Path) -> None:
    """The same with no simulation: root without CAP_DAC_OVERRIDE meets DAC as any user does."""
    index = build_index()
    kept = index.read_bytes()
    index.chmod(0)
    command = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", sys.executable, "-m", "agentscan",
               "--demo", "list", "--json"]
    done = subprocess.run(command, capture_output=True, timeout=120, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    messages = [w["message"] for w in orjson.loads(done.stdout)["warnings"] if "cache" in w["message"]]
    assert messages == ["cache disabled: permission denied on index.sqlite (unable to open database file); "
                        "left as it is"]
    index.chmod(0o600)
    assert index.read_bytes() == kept and not list(index.parent.glob("*.corrupt*"))


def test_a_corrupt_index_is_still_moved_aside(isolated_home: Path) -> None:
    index = build_index()
    index.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    messages = cache_messages(runner.invoke(app, ["--demo", "list", "--json"]))
    assert len(messages) == 1 and "rebuilt" in messages[0]
    assert (index.parent / "index.sqlite.corrupt").is_file()


# --- F8: the endpoint's query string is never shown --------------------------------------------


@pytest.fixture
def session(isolated_home: Path, no_proxy: None) -> Path:  # noqa: F811 - the fixture imported above
    claude_delegating_session(isolated_home)
    return isolated_home


def otlp(*args: str) -> Any:
    return runner.invoke(app, ["otlp", *args])


def test_a_refused_send_does_not_echo_the_query_string(session: Path) -> None:
    with Receiver([400]) as receiver:
        result = otlp("--endpoint", f"{receiver.url}/v1/traces?token={SECRET}", "--retries", "0", "--json")
    assert result.exit_code == 1
    assert SECRET not in result.output and f"{receiver.url}/v1/traces?***: HTTP 400" in result.stderr
    assert orjson.loads(result.stdout)["sent"]["endpoint"] == f"{receiver.url}/v1/traces?***"


def test_an_unreachable_endpoint_does_not_echo_the_query_string(session: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = otlp("--endpoint", f"http://127.0.0.1:{port}/v1/traces?api_key={SECRET}&x=1", "--retries", "0",
                  "--timeout", "1")
    assert result.exit_code == 1 and SECRET not in result.output
    assert f"http://127.0.0.1:{port}/v1/traces?***" in result.stderr


def test_a_sent_export_shows_the_url_masked_and_sends_it_whole(session: Path) -> None:
    reply = orjson.dumps({"partialSuccess": {"rejectedSpans": 1, "errorMessage": "one too old"}})
    with Receiver(reply=reply) as receiver:
        result = otlp("--endpoint", f"{receiver.url}/v1/traces?token={SECRET}", "--protocol", "json", "--json")
        text = otlp("--endpoint", f"{receiver.url}?token={SECRET}", "--protocol", "json")
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert doc["sent"]["endpoint"] == f"{receiver.url}/v1/traces?***"
    assert {w["path"] for w in doc["warnings"] if "rejected" in w["message"]} == {f"{receiver.url}/v1/traces?***"}
    assert SECRET not in result.output and SECRET not in text.output
    assert f"to {receiver.url}/v1/traces?***" in text.stdout
    assert {request.path for request in receiver.received} == {f"/v1/traces?token={SECRET}"}


def test_a_usage_error_does_not_echo_the_query_string() -> None:
    with pytest.raises(UsageProblem) as raised:
        sender.traces_url(f"http://127.0.0.1:99999/v1/traces?token={SECRET}")
    assert "'http://127.0.0.1:99999/v1/traces?***'" in str(raised.value)
    result = otlp("--endpoint", f"http://127.0.0.1:4318/v1/tr aces?token={SECRET}")
    assert result.exit_code == 2 and SECRET not in result.output and "?***" in result.stderr


def test_the_live_senders_failure_does_not_hold_the_query_string(no_proxy: None) -> None:  # noqa: F811
    """``hook --otlp-endpoint``'s sender logs the failure's text in the data directory."""
    span = Span("0" * 31 + "1", "0" * 15 + "1", None, "invoke_agent claude-code", 1, 1, 2)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SendFailed) as raised:
        sender.send([ExportTrace({"service.name": "claude-code"}, [span], "claude:s")],
                    f"http://127.0.0.1:{port}?token={SECRET}", retries=0, timeout=1)
    assert SECRET not in str(raised.value) and f"127.0.0.1:{port}/v1/traces?***" in str(raised.value)
