"""Pass 48: a transcript that cannot be read (mode 000: ``cannot read: Permission denied``) is
not a session that "recorded nothing".

``tokens --json`` gave it a row of ``"tokens": null`` (which means "the provider recorded no
usage at all"), the table named it among the sessions that "recorded nothing" (grouped: that
"recorded no usage"), and ``show`` of it exited 0 with an empty session.  Now its usage is
not known: no row, a note that it could not be read, and ``show`` fails (exit 1) saying why.
A readable empty transcript still recorded nothing, as before.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builders import claude_one_call, deny_access, invoke
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, write_rollout

READ = "1aaa0000-0000-4000-8000-000000000001"
DENIED = "06090cb1-0000-4000-8000-000000000002"
EMPTY = "3ccc0000-0000-4000-8000-000000000003"
CODEX = "019c4848-0000-7000-8000-0000000000c1"


@pytest.fixture
def denied(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two readable Claude sessions, one with usage and one empty, and one whose transcript
    cannot be opened; the unreadable one's path."""
    claude_one_call(isolated_home, READ)
    path = claude_one_call(isolated_home, DENIED)
    empty = path.with_name(f"{EMPTY}.jsonl")
    empty.write_bytes(b"")
    deny_access(monkeypatch, path)
    return path


def _tokens(*args: str) -> tuple[dict, str]:
    result = invoke("tokens", *args, "--json")
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout), result.stderr


@pytest.mark.parametrize("run", ["cold", "warm"])
def test_tokens_json_has_no_null_row_for_an_unreadable_transcript(denied: Path, run: str) -> None:
    if run == "warm":
        _tokens()
    document, _ = _tokens()
    rows = {row["key"]: row for row in document["rows"]}
    assert f"claude:{DENIED}" not in rows
    assert rows[f"claude:{READ}"]["tokens"]["total"] == 110
    # A readable empty transcript recorded nothing: its null row stays.
    assert rows[f"claude:{EMPTY}"]["tokens"] is None
    assert {"path": str(denied), "message": "cannot read: Permission denied"} in document["warnings"]
    assert document["total"]["total"] == 110


@pytest.mark.parametrize("by", ["session", "day", "model"])
def test_the_table_says_it_could_not_be_read(denied: Path, by: str) -> None:
    result = invoke("tokens", "--by", by)
    assert result.exit_code == 0, result.output
    said = result.stdout + result.stderr
    assert f"(+ 1 session that could not be read, not counted: claude:{DENIED})" in said, said
    assert DENIED not in said.replace(f"could not be read, not counted: claude:{DENIED}", "").replace(str(denied), "")
    assert f"{denied}: cannot read: Permission denied" in result.stderr


def test_strict_still_fails(denied: Path) -> None:
    result = invoke("--strict", "tokens")
    assert result.exit_code == 1 and "could not be read, not counted" in result.stderr, result.stderr


def test_show_of_it_fails_saying_why(denied: Path) -> None:
    for args in (["show", DENIED[:8]], ["show", DENIED[:8], "--json"]):
        result = invoke(*args)
        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        assert f"error: cannot read claude:{DENIED}: {denied}: Permission denied" in result.stderr, result.stderr
    # A readable empty transcript is still shown as one that recorded nothing.
    assert invoke("show", EMPTY[:8]).exit_code == 0


def test_tokens_of_it_alone_fails_as_show_does(denied: Path) -> None:
    # (final QA of pass 48: a total of 0 with exit 0 said nothing was spent, for a usage not known)
    for args in ((DENIED[:8], "--json"), (DENIED[:8],)):
        result = invoke("tokens", *args)
        assert result.exit_code == 1 and not result.stdout, result.output
        assert f"cannot read claude:{DENIED}" in result.stderr and "Permission denied" in result.stderr
    # Beside a readable one, it is left out and said, as in every session's report.
    table = invoke("tokens", DENIED[:8], READ[:8])
    assert table.exit_code == 0 and "could not be read, not counted" in table.stderr, table.stderr


def test_an_unreadable_codex_rollout(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_rollout(rollout_path(isolated_home / ".codex", CODEX, at(0)), [
        meta(CODEX, at(0)), turn_context(at(1)), token_count(at(2), usage(50, output=5), usage(50, output=5))])
    claude_one_call(isolated_home, READ)
    deny_access(monkeypatch, path)
    document, _ = _tokens()
    assert [row["key"] for row in document["rows"]] == [f"claude:{READ}"]
    assert f"could not be read, not counted: codex:{CODEX}" in invoke("tokens").stderr
    shown = invoke("show", CODEX[:13])
    assert shown.exit_code == 1 and f"{path}: Permission denied" in shown.stderr, shown.stderr


def test_a_transcript_deleted_after_it_was_found_is_not_found(isolated_home: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # (the slow race test: a file gone between discovery and its read said "cannot read … No such
    # file", where a session deleted before its discovery is "not found")
    from agentscan.scan import showing

    path = claude_one_call(isolated_home, READ)
    real = showing.find_all

    def found_then_deleted(*args: object, **kwargs: object) -> object:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        path.unlink()
        return found

    monkeypatch.setattr(showing, "find_all", found_then_deleted)
    result = invoke("show", READ)
    assert result.exit_code == 1 and "no session matches" in result.stderr and "cannot read" not in result.stderr
