"""Pass 53: after ``list --all`` kept every row, ``tokens``' table takes the facts of a kept row
out of the index (``scan.tablefacts._of_kept_rows``: its DATE, CWD, TITLE fields alone), not the
whole row decoded; a row the table needs more of (no usage, no project nor title, counts a pass
may complete, a damaged field) is still the row."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.model import SessionRow, TableFacts
from agentscan.scan import rowstore
from agentscan.scan import tablefacts as gathering
from agentscan.scan.cachefile import FILE_NAME
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from spies import record_calls

runner = CliRunner()


def _native(number: int) -> str:
    return f"{number:08x}-3333-4000-8000-000000000000"


def _call(native: str, minute: int, **extra) -> dict:
    return claude_assistant(native, f"2026-11-02T09:{minute:02d}:00.000Z", msg_id=f"m-{native}-{minute}",
                            request_id=f"r-{native}-{minute}", usage=claude_usage(100, 7), **extra)


def _home(home: Path) -> None:
    for number in range(6):  # plain sessions: a prompt (the title), a cwd, calls
        native = _native(number)
        claude_session_file(home, native, [claude_user(native, "2026-11-02T09:00:00.000Z", f"task {number}",
                                                       cwd=f"/src/p{number}"), _call(native, 1), _call(native, 2)])
    no_usage = _native(10)
    claude_session_file(home, no_usage, [claude_user(no_usage, "2026-11-02T08:00:00.000Z", "asked, never answered")])
    bare = _native(11)  # a call alone: no project, no title
    record = _call(bare, 3)
    del record["cwd"]
    claude_session_file(home, bare, [record])


def _gathered(home: Path) -> dict:
    with Scanner(home=home, use_cache=True) as scanner:
        refs = sorted(scanner.provider("claude").discover(scanner.ctx), key=lambda ref: ref.id)
        return gathering.gather(scanner, refs)


def _shown(found: dict) -> dict:
    return {key: (value.updated_at, value.cwd, value.title, value.archived) for key, value in found.items()}


def _index() -> sqlite3.Connection:
    return sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME)


def test_kept_rows_give_their_facts_without_being_decoded(isolated_home: Path, monkeypatch) -> None:
    _home(isolated_home)
    with Scanner(home=isolated_home, use_cache=False) as scanner:
        refs = sorted(scanner.provider("claude").discover(scanner.ctx), key=lambda ref: ref.id)
        rows = {ref.id: scanner.row(ref) for ref in refs}
    assert runner.invoke(app, ["list", "--all"]).exit_code == 0
    decoded = record_calls(monkeypatch, rowstore, "row_of_document", lambda document: document["native_id"])
    monkeypatch.setattr("agentscan.scan.rowreader.row_of_document", rowstore.row_of_document)
    found = _gathered(isolated_home)
    assert _shown(found) == _shown(rows)
    plain = {f"claude:{_native(number)}" for number in range(6)}
    assert {key for key, value in found.items() if isinstance(value, TableFacts)} == plain
    # The two the table asks more of are their rows, decoded: no usage, no project nor title.
    assert sorted(decoded) == sorted([_native(10), _native(11)])
    assert found[f"claude:{_native(10)}"] == rows[f"claude:{_native(10)}"]
    assert found[f"claude:{_native(11)}"].recorded_nothing is False


def test_a_row_with_partial_counts_or_a_damaged_field_is_the_row(isolated_home: Path) -> None:
    _home(isolated_home)
    assert runner.invoke(app, ["list", "--all"]).exit_code == 0
    partial, damaged = _native(1), _native(2)
    with _index() as connection:
        connection.execute("UPDATE rows SET row = json_set(row, '$.counts_partial', json('true')) WHERE session_id = ?",
                           (f"claude:{partial}",))
        connection.execute("UPDATE rows SET row = json_set(row, '$.title', 7) WHERE session_id = ?",
                           (f"claude:{damaged}",))
    connection.close()
    found = _gathered(isolated_home)
    assert isinstance(found[f"claude:{partial}"], SessionRow) and found[f"claude:{partial}"].counts_partial
    # A damaged row is a miss: the session is read again, and its title is its prompt.
    assert isinstance(found[f"claude:{damaged}"], SessionRow) and found[f"claude:{damaged}"].title == "task 2"
    assert isinstance(found[f"claude:{_native(3)}"], TableFacts)


def test_the_table_after_list_all_is_the_one_without_it(isolated_home: Path) -> None:
    _home(isolated_home)
    cold = runner.invoke(app, ["tokens", "--no-cache"])
    assert cold.exit_code == 0
    assert runner.invoke(app, ["list", "--all"]).exit_code == 0
    for args in (["tokens"], ["tokens", "--since", "2027-01-01"], ["tokens", "--by", "cwd"]):
        warm = runner.invoke(app, args)
        assert (warm.stdout, warm.stderr) == (runner.invoke(app, [*args, "--no-cache"]).stdout,
                                              runner.invoke(app, [*args, "--no-cache"]).stderr)
    assert runner.invoke(app, ["tokens"]).stdout == cold.stdout


def test_only_partial_counts_make_a_provider_with_facts_revise_its_row() -> None:
    """``_of_kept_rows`` leaves to the row what ``wants_refresh`` revises: Codex's partial counts
    alone, among the providers with facts; one that revises a row otherwise must be told there."""
    from agentscan.providers.base import Provider
    from agentscan.providers.claude.provider import ClaudeProvider
    from agentscan.providers.codex.provider import CodexProvider
    from agentscan.providers.cursor.provider import CursorProvider
    from agentscan.providers.gemini.provider import GeminiProvider

    with_facts = [kind for kind in (ClaudeProvider, CodexProvider, CursorProvider, GeminiProvider)
                  if kind.table_facts is not Provider.table_facts]
    assert with_facts == [ClaudeProvider, CodexProvider]
    assert ClaudeProvider.wants_refresh is Provider.wants_refresh
    row = SessionRow("codex", "x", None)
    assert not CodexProvider().wants_refresh(row) and CodexProvider().wants_refresh(row.with_changes(counts_partial=True))


def test_one_query_says_both_the_facts_and_which_rows_are_kept(isolated_home: Path, monkeypatch) -> None:
    """Pass 54: ``gather`` asked the index for the fingerprints of the rows ``row_fields`` had
    just returned (``Scanner.rows_kept``): one query of the ``rows`` table now."""
    from agentscan.scan.cache import Cache

    _home(isolated_home)
    assert runner.invoke(app, ["list", "--all"]).exit_code == 0
    fields = record_calls(monkeypatch, Cache, "row_fields", lambda cache, ids, paths: len(ids))
    fingerprints = record_calls(monkeypatch, Cache, "row_fingerprints", lambda cache, ids: len(ids))
    found = _gathered(isolated_home)
    assert (fields, fingerprints) == ([8], [])
    assert {key for key, value in found.items() if isinstance(value, TableFacts)} == {
        f"claude:{_native(number)}" for number in range(6)}


def test_a_row_that_is_no_json_is_read_again_and_the_others_keep_their_facts(isolated_home: Path) -> None:
    """Pass 54: such a row made ``json_extract`` fail the whole query, so no kept row gave its
    facts; now it alone is a miss (read again by its pass)."""
    _home(isolated_home)
    assert runner.invoke(app, ["list", "--all"]).exit_code == 0
    broken = _native(4)
    with _index() as connection:
        connection.execute("UPDATE rows SET row = '{not json' WHERE session_id = ?", (f"claude:{broken}",))
    connection.close()
    found = _gathered(isolated_home)
    assert isinstance(found[f"claude:{broken}"], SessionRow) and found[f"claude:{broken}"].title == "task 4"
    assert {key for key, value in found.items() if isinstance(value, TableFacts)} == {
        f"claude:{_native(number)}" for number in range(6) if number != 4}
