"""Pass 49 (a script author's report): arguments a script may pass that ended in a traceback.
An argument with bytes that are not UTF-8 (the shell passes any bytes: ``$'\\xff'``) names no
session (``no session matches``, exit 1), and a document that echoes one (``tokens --cwd``,
``prices MODEL``, ``export -o PATH``) prints it with U+FFFD for each such byte, as a file name
that is not UTF-8 is printed; ``--lock-timeout nan`` (or ``inf``) is a usage error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builders import invoke


def _run(*argv: str | bytes) -> subprocess.CompletedProcess[bytes]:
    """The console entry as a shell runs it: argv as bytes (``fastpath`` included)."""
    return subprocess.run([sys.executable, "-m", "agentscan", *(os.fsencode(arg) for arg in argv)],
                          capture_output=True, timeout=120, env=os.environ)


@pytest.mark.parametrize("command", ["show", "tokens"])
@pytest.mark.parametrize("as_json", [False, True])
def test_an_id_that_is_not_utf8_matches_no_session(command: str, as_json: bool) -> None:
    done = _run("--demo", command, b"7f3c9a\xff", *(["--json"] if as_json else []))
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    assert (done.returncode, done.stdout) == (1, b""), done
    assert done.stderr.decode().startswith("error: no session matches '7f3c9a\ufffd': it holds bytes that are not UTF-8")


def test_a_path_that_is_not_utf8_matches_no_session(tmp_path: Path) -> None:
    done = _run("--demo", "show", os.fsencode(tmp_path) + b"/\xfe.jsonl")
    assert (done.returncode, done.stdout) == (1, b""), done
    assert b"it holds bytes that are not UTF-8" in done.stderr, done.stderr


def test_find_session_says_it_without_asking_the_index() -> None:
    from agentscan import Scanner
    from agentscan.errors import SessionNotFound

    with pytest.raises(SessionNotFound, match="not UTF-8"):
        Scanner(use_cache=True).find("claude:7f3c9a\udcff")


def test_tokens_cwd_that_is_not_utf8_is_printed_legibly() -> None:
    done = _run("--demo", "tokens", "--cwd", b"/x\xff", "--json")
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["cwd"] == "/x\ufffd"


def test_prices_of_a_model_that_is_not_utf8_is_printed_legibly() -> None:
    done = _run("--demo", "prices", b"x\xff", "--json")
    assert done.returncode == 0, done.stderr
    (model,) = orjson.loads(done.stdout)["models"]
    assert (model["query"], model["prices"]) == ("x\ufffd", None)


def test_export_to_a_path_that_is_not_utf8_says_it_wrote_it(tmp_path: Path) -> None:
    """The file was written, then printing the JSON failed: exit 1 for an export that worked."""
    output = os.fsencode(tmp_path) + b"/\xfe.csv"
    done = _run("--demo", "export", "-f", "csv", "-o", output, "--json")
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["path"] == f"{tmp_path}/\ufffd.csv"
    assert os.path.getsize(output) > 0


def test_dumps_makes_each_string_legible_only_when_one_is_not() -> None:
    from agentscan.toolkit.legiblejson import dumps

    document = {"a\udcff": ["/x\udcfe", ("b", 1)], "n": None}
    assert orjson.loads(dumps(document)) == {"a\ufffd": ["/x\ufffd", ["b", 1]], "n": None}
    assert dumps({"ok": "é"}) == orjson.dumps({"ok": "é"})
    with pytest.raises(TypeError):  # another reason than text stays an error
        dumps({"x\udcff": object()})


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e400"])
def test_a_lock_timeout_that_is_no_finite_number_is_a_usage_error(tmp_path: Path, value: str) -> None:
    result = invoke("--demo", "export", "-f", "csv", "-o", str(tmp_path / "x.csv"), "--lock-timeout", value)
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.startswith("error: --lock-timeout must be 0 or more seconds (a finite number), not ")
    assert not (tmp_path / "x.csv").exists()


# --- a shared database given as a session's path ------------------------------------------------

def test_show_of_cursor_s_database_says_it_holds_many_sessions() -> None:
    """A Cursor IDE chat with no transcript has the database as its ``path``: passed back, it
    says to give the id, not that the file is no session's."""
    rows = orjson.loads(invoke("--demo", "list", "--all", "-p", "cursor", "--json").stdout)["sessions"]
    database = next(row["path"] for row in rows if row["path"].endswith("state.vscdb"))
    for command in ("show", "tokens"):
        result = invoke("--demo", command, database)
        assert (result.exit_code, result.stdout) == (1, ""), result.output
        assert result.stderr.startswith(f"error: no session matches '{database}': it is Cursor's database, which "
                                        "holds many sessions"), result.stderr
        assert "give the session's id (`agentscan --demo list -p cursor` shows them)" in result.stderr


def test_a_file_that_is_no_transcript_names_doctor_of_the_home_read(tmp_path: Path) -> None:
    home = tmp_path / "my home"
    home.mkdir()
    stray = tmp_path / "notes.jsonl"
    stray.write_text("{}\n")
    result = invoke("--home", str(home), "show", str(stray))
    assert result.exit_code == 1
    assert f"(`agentscan --home '{home}' doctor` lists them)" in result.stderr, result.stderr


def test_messages_that_quote_an_argument_show_its_bad_bytes_as_the_replacement_character(tmp_path: Path) -> None:
    # (review of pass 49: ``list --grep`` and ``prices`` quoted them as ``'\udcff'``)
    import subprocess
    import sys

    env = {**os.environ, "HOME": str(tmp_path), "AGENTSCAN_CACHE_DIR": str(tmp_path / "c"), "AGENTSCAN_DATA_DIR": str(tmp_path / "d")}
    for args in ([b"--demo", b"list", b"--grep", b"\xff"], [b"prices", b"gpt\xff"]):
        done = subprocess.run([sys.executable, "-m", "agentscan", *args], env=env, capture_output=True)
        said = done.stdout.decode() + done.stderr.decode()
        assert "\\udcff" not in said and "'\ufffd'" in said or "gpt\ufffd'" in said, said
