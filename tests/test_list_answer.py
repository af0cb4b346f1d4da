"""``list`` over unchanged files prints the page it made last time (``cli.list_answer``)."""

from __future__ import annotations

import os
import sqlite3
import sys
import zlib
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.list_answer import KEPT
from agentscan.cli.recorded import stored_text, text_of
from agentscan.scan import answers
from agentscan.sealing import framed, seal, unframed, unseal
from builders import claude_assistant, claude_usage, forget_remembered_answers
from test_discovery_memo import S1, S2, session

runner = CliRunner()
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="liveness is read from /proc")


def two_sessions(home: Path) -> Path:
    path = session(home, S1, 1, 100)
    session(home, S2, 2, 200)
    return path


def run(*argv: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(argv))
    return result.exit_code, result.stdout, result.stderr


def running_of(native_id: str) -> bool | None:
    (row,) = [row for row in orjson.loads(run("list", "--json")[1])["sessions"] if row["native_id"] == native_id]
    return row["running"]


def test_an_unchanged_home_prints_the_page_it_made_byte_for_byte(isolated_home: Path, pages: list[int | None]) -> None:
    two_sessions(isolated_home)
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / "cccccccc-1111-4222-8333-444444444444.jsonl"
     ).write_bytes(b"{not json\n")  # a warning, said again with the page
    text = [run("list") for _ in range(3)]
    assert pages == [25]
    assert text[0] == text[1] == text[2] and text[0][0] == 0 and S2[:8] in text[0][1]
    assert "warning:" in text[0][2]
    documents = [run("list", "--json") for _ in range(3)]
    assert pages == [25, 25]  # JSON is another answer
    assert documents[0] == documents[1] == documents[2]
    assert orjson.loads(documents[0][1])["warnings"]
    assert run("--no-cache", "list") == text[0] and run("--no-cache", "list", "--json") == documents[0]


def test_each_set_of_options_keeps_its_own_page(isolated_home: Path, pages: list[int | None]) -> None:
    two_sessions(isolated_home)
    asked = [["list"], ["list", "--all"], ["list", "--limit", "1"], ["list", "-p", "claude"], ["list", "--grep", "prompt"]]
    first = [run(*argv) for argv in asked]
    assert len(pages) == len(asked)
    assert [run(*argv) for argv in asked] == first
    assert len(pages) == len(asked)  # none pushed another out
    assert first[2][1].count("claude:") == 1 and first[1][1].count("claude:") == 2


def test_only_the_pages_asked_for_last_are_kept(isolated_home: Path, pages: list[int | None]) -> None:
    two_sessions(isolated_home)
    limits = range(1, KEPT + 3)
    for limit in limits:
        run("list", "--limit", str(limit))
    stored = [key for key, _ in _answer_rows()]
    assert len(stored) == KEPT and all(key.startswith("answer:list-text:") for key in stored)
    run("list", "--limit", str(limits[-1]))
    assert len(pages) == len(limits)  # kept
    run("list", "--limit", "1")
    assert len(pages) == len(limits) + 1  # the first asked for was forgotten
    run("list", "--json")
    assert len(_answer_rows()) == KEPT + 1  # JSON pages are kept apart


def test_a_gemini_row_without_a_cwd_is_remembered_until_another_file_reveals_it(isolated_home: Path,
                                                                                 pages: list[int | None]) -> None:
    """Gemini revises such a row from files only (its registry, another provider's sessions),
    which the page's key counts; a Codex count made exact by a full pass is kept in the index
    instead, and such a page is made every time (tests/test_codex_recovery.py)."""
    from gemini_builders import hash_named_chat, write_claude_transcript

    cwd = "/home/dev/secret-project"
    hash_named_chat(isolated_home, cwd)

    def gemini_cwd() -> str | None:
        (row,) = [row for row in orjson.loads(run("list", "--json")[1])["sessions"] if row["provider"] == "gemini"]
        return row["cwd"]

    assert gemini_cwd() is None and gemini_cwd() is None
    assert len(pages) == 1
    write_claude_transcript(isolated_home, cwd, "99999999-2222-4333-8444-555555555555")
    assert gemini_cwd() == cwd and gemini_cwd() == cwd
    assert len(pages) == 2


def test_a_changed_file_makes_the_page_again(isolated_home: Path, pages: list[int | None]) -> None:
    path = two_sessions(isolated_home)
    before = orjson.loads(run("list", "--json")[1])["sessions"]
    with path.open("ab") as handle:
        handle.write(orjson.dumps(claude_assistant(S1, "2026-11-03T11:00:00Z", msg_id="m-more", request_id="r-more",
                                                   usage=claude_usage(7, 1))) + b"\n")
    after = orjson.loads(run("list", "--json")[1])["sessions"]
    assert len(pages) == 2
    assert after[0]["native_id"] == S1 and before[0]["native_id"] == S2  # S1 is now the newest
    assert after[0]["tokens"]["input"] == 107


@linux_only
def test_pages_that_depend_on_the_clock_or_on_processes_are_always_made(isolated_home: Path,
                                                                         pages: list[int | None]) -> None:
    path = two_sessions(isolated_home)
    with path.open("ab"):  # this process runs S1: the process filters show it
        for argv in (["list", "--since", "2000-01-01"], ["list", "--running"], ["list", "--pid", str(os.getpid())]):
            before = len(pages)
            made = run(*argv)
            assert made == run(*argv) and S1[:8] in made[1], argv
            assert len(pages) == before + 2, argv


def test_an_empty_page_is_always_made(isolated_home: Path, pages: list[int | None]) -> None:
    """Its explanation looks at the other providers' sessions (text); in JSON too, as said."""
    two_sessions(isolated_home)
    empty = [run("list", "--grep", "nowhere") for _ in range(2)]
    assert empty[0] == empty[1] and empty[0][2] and not empty[0][1]
    assert len(pages) == 2
    documents = [run("list", "--grep", "nowhere", "--json") for _ in range(2)]
    assert documents[0] == documents[1] and orjson.loads(documents[0][1])["sessions"] == []
    assert len(pages) == 4


def test_fetched_prices_make_the_page_again(isolated_home: Path, pages: list[int | None]) -> None:
    from agentscan.pricing import source

    two_sessions(isolated_home)
    first = run("list")
    assert run("list") == first and len(pages) == 1
    folder = source.prices_dir(os.environ)
    folder.mkdir(parents=True)
    (folder / source.META_FILE).write_text('{"library_version": "0.0.1", "sha256": "ab"}')  # for another version
    assert run("list") == first and len(pages) == 2
    assert run("list") == first and len(pages) == 2
    (folder / source.DATA_FILE).write_text("[]")  # the data alone, fetched again
    assert run("list") == first and len(pages) == 3
    (folder / source.META_FILE).chmod(0o644)  # its change time: unreadable, it would mean the bundled data
    assert run("list") == first and len(pages) == 4


def test_a_page_larger_than_the_cap_is_made_every_time(isolated_home: Path, pages: list[int | None],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import list_answer

    witnesses: list[bytes | None] = []
    original = list_answer._witness

    def counting(rows, refs):  # noqa: ANN001, ANN202
        witnesses.append(original(rows, refs))
        return witnesses[-1]

    monkeypatch.setattr(list_answer, "_witness", counting)
    two_sessions(isolated_home)
    monkeypatch.setattr(list_answer, "PAGE_BYTES", 100)
    assert run("list") == run("list") and len(pages) == 2
    assert _answer_rows() == []
    assert witnesses == []  # the size is told first: no witness made for a page not kept
    monkeypatch.setattr(list_answer, "PAGE_BYTES", 100_000)
    body = run("list")
    assert body == run("list") and len(pages) == 3
    assert len(_answer_rows()) == 1 and len(witnesses) == 1
    # The cap holds for the page as kept, its witness framed in and compressed: a frame that
    # does not compress under it is made every time.
    witness = witnesses[0]
    assert witness is not None
    monkeypatch.setattr(list_answer, "KEPT_BYTES", 20)
    forget_remembered_answers()
    assert run("list") == body and run("list") == body and len(pages) == 5
    assert _answer_rows() == []


def test_a_page_whose_frame_is_over_the_cap_is_kept_compressed(isolated_home: Path, pages: list[int | None],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A heavy user's ``list --all`` (4 MB of text, 16 MB of JSON at the bench's scale 10) was
    over the cap, and made in 1.3 s every time: compressed, it is kept and printed again."""
    from agentscan.cli import list_answer

    two_sessions(isolated_home)
    made = {argv: run(*argv) for argv in (("list", "--all"), ("list", "--all", "--json"))}
    frames = {key: _kept_of(value) for key, value in _answer_rows()}
    assert len(frames) == 2 and all(frame[:1].isdigit() for frame in frames.values())  # under the cap: as framed
    monkeypatch.setattr(list_answer, "KEPT_BYTES", min(len(frame) for frame in frames.values()) - 1)
    forget_remembered_answers()
    for argv, first in made.items():
        assert run(*argv) == first
        assert run(*argv) == first  # printed again, byte for byte
    assert len(pages) == 4  # two made at first, two after the cap changed: none since
    for key, value in _answer_rows():
        kept = _kept_of(value)
        assert kept.startswith(list_answer.PACKED) and len(kept) <= list_answer.KEPT_BYTES
        assert zlib.decompress(kept[1:]) == frames[key]


def test_a_damaged_compressed_page_is_made_again(isolated_home: Path, pages: list[int | None],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import list_answer

    two_sessions(isolated_home)
    first = run("list", "--all")
    ((_, value),) = _answer_rows()
    monkeypatch.setattr(list_answer, "KEPT_BYTES", len(_kept_of(value)) - 1)
    forget_remembered_answers()
    assert run("list", "--all") == first and len(pages) == 2
    # Sealed again over the damage (its CRC right): only the compressed stream is wrong.
    _replace_answers(lambda kept: list_answer.PACKED + b"not zlib" if kept.startswith(list_answer.PACKED) else kept)
    assert run("list", "--all") == first and len(pages) == 3


def _kept_of(value: bytes) -> bytes:
    """The page a stored answer keeps (its warnings' frame taken off)."""
    payload = unseal(value)
    assert payload is not None
    parts = unframed(payload)
    assert parts is not None
    return parts[1]


@linux_only
def test_a_session_that_starts_or_stops_running_makes_the_json_page_again(isolated_home: Path,
                                                                          pages: list[int | None]) -> None:
    """A process holding a transcript open (this one) is what ``running`` tells: the census
    cannot see it, so the page keeps what it was told by and asks again."""
    path = two_sessions(isolated_home)
    (isolated_home / ".claude" / "sessions").mkdir()  # (its registry: a Claude session is told not running)
    assert running_of(S1) is False and running_of(S1) is False
    assert len(pages) == 1
    with path.open("ab"):
        assert running_of(S1) is True
        assert len(pages) == 2
        assert running_of(S1) is True  # still running: the page just made is printed again
        assert len(pages) == 2
    assert running_of(S1) is False
    assert len(pages) == 3


@linux_only
def test_a_terminal_page_shows_a_session_that_starts_running(isolated_home: Path) -> None:
    """On a terminal a running session's id has a ``*``: the page is made again when one starts."""
    import pty
    import subprocess

    path = two_sessions(isolated_home)

    def on_a_terminal() -> str:
        leader, follower = pty.openpty()
        env = dict(os.environ, COLUMNS="120", TERM="dumb", NO_COLOR="1")
        script = ("import sys, agentscan.scan.memo\n"
                  "agentscan.scan.memo.SETTLE_NS = 0  # the home was just written: as conftest does in-process\n"
                  "from agentscan.entry import main\n"
                  "sys.argv[0] = 'agentscan'\n"
                  "sys.exit(main())\n")
        done = subprocess.run([sys.executable, "-c", script, "list"], stdout=follower, stderr=subprocess.PIPE, env=env,
                              timeout=60)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: all is read
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert done.returncode == 0, done.stderr
        return b"".join(chunks).decode()

    def marked(text: str) -> bool:
        (line,) = [line for line in text.splitlines() if S1[:8] in line]
        return line.split()[0].endswith("*")

    assert not marked(on_a_terminal())
    assert len(_answer_rows()) == 1  # the page was kept
    assert not marked(on_a_terminal())  # printed again
    with path.open("ab"):
        assert marked(on_a_terminal())
    assert not marked(on_a_terminal())


@linux_only
def test_a_piped_text_page_shows_no_liveness_and_is_printed_again(isolated_home: Path, pages: list[int | None]) -> None:
    path = two_sessions(isolated_home)
    before = run("list")
    with path.open("ab"):
        assert run("list") == before
    assert len(pages) == 1


def _index() -> sqlite3.Connection:
    from agentscan.scan.cachefile import FILE_NAME

    return sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)


def _answer_rows() -> list[tuple[str, bytes]]:
    database = _index()
    try:
        return database.execute("SELECT key, value FROM snapshots WHERE key LIKE 'answer:list%'").fetchall()
    finally:
        database.close()


def _replace_answers(change) -> None:  # noqa: ANN001 - a test's helper
    """Each remembered page (``scan.answers``: its warnings framed before it) changed by ``change``."""
    database = _index()
    try:
        for key, value in database.execute("SELECT key, value FROM snapshots WHERE key LIKE 'answer:list%'").fetchall():
            payload = unseal(value)
            parts = unframed(payload) if payload is not None else None
            assert parts is not None
            warnings, answer = parts
            database.execute("UPDATE snapshots SET value=? WHERE key=?", (seal(framed(warnings, change(answer))), key))
        database.commit()
    finally:
        database.close()


@pytest.mark.parametrize("damage", [
    lambda answer: b"x" + answer,  # no length first
    lambda answer: answer[:40],  # cut short
    lambda answer: framed(b"?" + unframed(answer)[0][1:], unframed(answer)[1]),  # a running state that is not one
])
def test_a_remembered_page_of_another_shape_is_made_again(isolated_home: Path, pages: list[int | None],
                                                          damage) -> None:  # noqa: ANN001
    two_sessions(isolated_home)
    made = run("list", "--json")
    assert _answer_rows()
    _replace_answers(damage)
    assert run("list", "--json") == made
    assert len(pages) == 2
    assert run("list", "--json") == made and len(pages) == 2  # kept whole again


def test_framing_takes_back_exactly_what_it_was_given() -> None:
    for head, rest in ((b"", b""), (b"\0\n12", b"{\n}"), (b"x" * 1000, b"\n")):
        assert unframed(framed(head, rest)) == (head, rest)
    assert unframed(b"3\nab") is None and unframed(b"\nab") is None and unframed(b"-1\nab") is None
    assert unframed(b"1 \nab") is None and unframed(b"") is None
    for out, err in (("", ""), ("ID  TITLE\n\udcff\n", "25 of 30\n"), ("\ud800é", "x")):
        assert text_of(stored_text(out, err)) == (out, err)
    assert text_of(framed(b"\xff", b"")) is None


def test_a_question_identity_tells_json_values_apart() -> None:
    identity = answers._identity_text
    assert identity({"a": 1, "b": [1, "x"]}) == identity({"b": [1, "x"], "a": 1})
    texts = {identity(value) for value in ({"a": 1}, {"a": "1"}, {"a": True}, {"a": 1.0}, {"a": None}, {"a": [1]},
                                           {"a": {"b": 1}}, {"a": [["b", 1]]}, {"a": ["{", [["b", 1]]]}, {"b": 1})}
    assert len(texts) == 10 and None not in texts
    assert identity({"a": object()}) is None and identity({1: "a"}) is None


def test_a_remembered_answers_warnings_read_back_as_they_were_kept() -> None:
    from agentscan.scan.answers import _told_blob, _told_of
    from agentscan.toldwarnings import Counted

    warnings = (("/a:b", "bad: 1", 3, False), ("", "", None, False), ("\udcff/é", "x" * 300, 0, False),
                Counted("/+", 12, 40), ("/p", "m", -2, False))
    blob = _told_blob(warnings)
    assert _told_of(blob) == warnings and _told_of(b"") == ()
    for damaged in (blob[:-1], b"x" + blob, blob.replace(b"1:3", b"1:a"), b"2:ab1:c", b"1:-1:m2:--", b"+1:a1:2",
                    blob.replace(b"2:12", b"2:-1")):
        assert _told_of(damaged) is None
