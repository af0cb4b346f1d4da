"""``tokens --by session`` takes back the rows of sessions that did not change (``scan.rowmemo``)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import tokens as tokens_module
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user

runner = CliRunner()
S1 = "aaaaaaaa-1111-4222-8333-444444444444"
S2 = "bbbbbbbb-1111-4222-8333-444444444444"
S3 = "cccccccc-1111-4222-8333-444444444444"


def turn(native_id: str, day: int, tokens: int, n: int = 1, model: str = "claude-sonnet-4-5-20250929") -> list[dict]:
    return [
        claude_user(native_id, f"2026-11-{day:02d}T10:00:00Z", f"prompt of {native_id[:4]}"),
        claude_assistant(native_id, f"2026-11-{day:02d}T10:00:0{n}Z", msg_id=f"m-{native_id}-{n}",
                         request_id=f"r-{native_id}-{n}", usage=claude_usage(tokens, 10, cache_read=3), model=model),
    ]


def session(home: Path, native_id: str, day: int, tokens: int, **kwargs: object) -> Path:
    return claude_session_file(home, native_id, turn(native_id, day, tokens, **kwargs),  # type: ignore[arg-type]
                               mtime=1_790_000_000 + day * 86_400)


def append(path: Path, records: list[dict], mtime: float) -> None:
    with path.open("ab") as handle:
        for record in records:
            handle.write(orjson.dumps(record) + b"\n")
    os.utime(path, (mtime, mtime))


def tokens_bytes(*args: str) -> bytes:
    result = runner.invoke(app, ["tokens", "--json", *args])
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Keys of the rows a report computed (rows taken back are not computed)."""
    made: list[str] = []
    original = tokens_module.Bucket.row

    def counting(self: tokens_module.Bucket, key: str, book: object):  # noqa: ANN202
        made.append(key)
        return original(self, key, book)  # type: ignore[arg-type]

    monkeypatch.setattr(tokens_module.Bucket, "row", counting)
    return made


def test_only_the_changed_session_is_added_up_again(isolated_home: Path, computed: list[str]) -> None:
    first = session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    claude_subagent_file(isolated_home, S2, "a1", turn(S2, 2, 40, n=2))  # a row with a subagent part
    session(isolated_home, S3, 3, 300)
    tokens_bytes()
    assert sorted(computed) == [f"claude:{S}" for S in (S1, S2, S3)]
    computed.clear()
    append(first, turn(S1, 4, 7, n=5), 1_795_000_000)
    grown = tokens_bytes()
    assert computed == [f"claude:{S1}"]
    # Byte for byte what a report computed afresh prints.
    assert grown == tokens_bytes("--no-cache")
    rows = {row["key"]: row for row in orjson.loads(grown)["rows"]}
    assert rows[f"claude:{S1}"]["tokens"]["input"] == 107
    assert rows[f"claude:{S2}"]["subagents"][0]["tokens"]["input"] == 40


def test_a_kept_row_is_not_taken_back_once_its_calls_are_shared(isolated_home: Path, computed: list[str]) -> None:
    first = session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    tokens_bytes()
    computed.clear()
    # S1 now holds a copy of S2's call under its own sessionId (a fork that renames what it
    # copies): counted once, in S1 (it began first: ``sharing.session_order``), so S2's kept
    # row (200) is not taken back.
    append(first, [{**record, "sessionId": S1} for record in turn(S2, 2, 200)[1:]], 1_795_000_000)
    shared = tokens_bytes()
    assert f"claude:{S1}" in computed
    assert shared == tokens_bytes("--no-cache")
    document = orjson.loads(shared)
    assert document["total"]["input"] == 300
    rows = {row["key"]: row["tokens"]["input"] for row in document["rows"]}
    assert rows == {f"claude:{S1}": 300, f"claude:{S2}": 0}


def test_a_kept_row_keeps_a_copied_call_that_names_it(isolated_home: Path, computed: list[str]) -> None:
    # As Claude Code resumes: S1's file takes a copy of S2's record with S2's sessionId kept.
    # S1 began first, but the record names S2: the call stays S2's, patched or fresh.
    first = session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    tokens_bytes()
    computed.clear()
    append(first, turn(S2, 2, 200)[1:], 1_795_000_000)
    shared = tokens_bytes()
    assert f"claude:{S1}" in computed
    assert shared == tokens_bytes("--no-cache")
    rows = {row["key"]: row["tokens"]["input"] for row in orjson.loads(shared)["rows"]}
    assert rows == {f"claude:{S1}": 100, f"claude:{S2}": 200}


def test_a_row_with_an_unpriced_model_is_priced_again_with_its_warning(isolated_home: Path, computed: list[str]) -> None:
    first = session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200, model="mystery-model-9")
    document = orjson.loads(tokens_bytes())
    said = [w["message"] for w in document["warnings"]]
    assert any("mystery-model-9" in message for message in said)
    computed.clear()
    append(first, turn(S1, 4, 7, n=5), 1_795_000_000)
    again = orjson.loads(tokens_bytes())
    assert sorted(computed) == [f"claude:{S1}", f"claude:{S2}"]
    assert [w["message"] for w in again["warnings"]] == said
    assert again["rows"] == orjson.loads(tokens_bytes("--no-cache"))["rows"]


def test_other_prices_take_back_nothing(isolated_home: Path, computed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import answers

    session(isolated_home, S1, 1, 100)
    second = session(isolated_home, S2, 2, 200)
    tokens_bytes()
    computed.clear()
    real = answers.price_identity
    monkeypatch.setattr(answers, "price_identity", lambda scanner: (real(scanner) or "") + "\0other")
    append(second, turn(S2, 4, 7, n=5), 1_795_000_000)
    assert tokens_bytes() == tokens_bytes("--no-cache")
    assert sorted(computed) == sorted([f"claude:{S1}", f"claude:{S2}"] * 2)  # the cached run and the fresh one


def test_a_damaged_kept_row_is_computed_again(isolated_home: Path, tmp_path: Path, computed: list[str]) -> None:
    first = session(isolated_home, S1, 1, 100)
    session(isolated_home, S2, 2, 200)
    tokens_bytes()
    with sqlite3.connect(tmp_path / "agentscan-cache" / "index.sqlite") as conn:
        conn.execute("UPDATE report_rows SET data=? WHERE session_id=?", (b"[1,", f"claude:{S2}"))
    computed.clear()
    append(first, turn(S1, 4, 7, n=5), 1_795_000_000)
    assert tokens_bytes() == tokens_bytes("--no-cache")
    assert f"claude:{S2}" in computed


def test_a_kept_rows_warnings_are_said_when_its_calls_come_from_the_index(isolated_home: Path) -> None:
    # S1's sums carry a warning (a broken line); S3 later holds a copy of S1's call.
    first = session(isolated_home, S1, 1, 100)
    with first.open("ab") as handle:
        handle.write(b'{"type":"assistant","message":{"usage":{"input_tokens":\n')
    second = session(isolated_home, S2, 2, 200)
    said = orjson.loads(tokens_bytes())["warnings"]
    assert any("invalid JSON" in warning["message"] for warning in said)
    claude_session_file(isolated_home, S3, turn(S1, 3, 100)[1:], mtime=1_790_300_000)
    assert tokens_bytes() == tokens_bytes("--no-cache")  # S1 parsed again for its calls: they are kept
    # Another change: S1's calls come from the index, which says nothing; its kept row is dropped.
    append(second, turn(S2, 4, 7, n=5), 1_795_000_000)
    shared = orjson.loads(tokens_bytes())
    assert shared == orjson.loads(tokens_bytes("--no-cache"))
    assert [w for w in shared["warnings"] if "invalid JSON" in w["message"]] == [w for w in said if "invalid JSON" in w["message"]]


def test_the_rows_of_sessions_gone_are_dropped(isolated_home: Path, tmp_path: Path) -> None:
    first = session(isolated_home, S1, 1, 100)
    second = session(isolated_home, S2, 2, 200)
    session(isolated_home, S3, 3, 300)
    tokens_bytes()
    second.unlink()
    append(first, turn(S1, 4, 7, n=5), 1_795_000_000)
    assert tokens_bytes() == tokens_bytes("--no-cache")
    with sqlite3.connect(tmp_path / "agentscan-cache" / "index.sqlite") as conn:
        kept = {row[0] for row in conn.execute("SELECT session_id FROM report_rows")}
    assert kept == {f"claude:{S1}", f"claude:{S3}"}
