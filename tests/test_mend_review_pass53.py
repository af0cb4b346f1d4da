"""Review findings of pass 53, mended.

- ``prices "gpt-4o (mini)"`` said "'mini' is not a service tier agentscan knows … did you mean
  gpt-4o?" and dropped gpt-4o-mini: a bracketed word that makes a model's name joined on
  (``gpt-4o-mini``, ``o1-preview``) or whose guesses are that model's family is a model's name
  typed with brackets, not a tier (``prices_commands._names_a_model``).
- ``list --help`` and the docs said only Codex archives (Cursor's ``isArchived`` is read too),
  and ``list``'s synopsis left ``--archived | --no-archived`` out.
- ``export -o -`` and ``otlp`` of nothing under a corrupt or locked Cursor DB sent the reader
  to doctor (``list_answer.unread_said``).
- ``show --strict`` of a Gemini chat failed on a damaged ``logs.json`` read only to mark slash
  commands, and a huge one was parsed whole for them: a card note (``commands_unmarked``).
- ``list --no-archived`` listed a Cursor chat read without its state DB, archived or not, and
  ``--archived`` missed it: left out by either, ``archived_unknown`` (``unreadrows.ShelfUnknown``);
  a row ``--grep`` found by its calls' models skipped the archived test (``settle_held``).
- ``hooks status`` on a config the install refuses said to run that install: fix it first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builders import cli_json, invoke


def test_prices_a_bracketed_model_word_is_no_tier(isolated_home: Path) -> None:
    for asked, meant in (("gpt-4o (mini)", "gpt-4o-mini"), ("o1 (preview)", "o1-preview"),
                         ("gpt-4.1 (nano)", "gpt-4.1-nano")):
        doc = cli_json("prices", asked, "--at", "2026-11-02")
        (found,) = doc["models"]
        assert found["suggestions"][0] == meant, (asked, found)
        assert "service tier" not in doc["warnings"][0]["message"], doc["warnings"]
        text = invoke("prices", asked, "--at", "2026-11-02")
        assert f"did you mean {meant}?" in text.stderr, text.stderr
    # ``gpt-5 (codex)``: as a ``tokens --by model`` row names it, gpt-5 as Codex records it
    # (pass 57: ``typednames.typed_name``; it guessed the model's family before)
    assert cli_json("prices", "gpt-5 (codex)", "--at", "2026-11-02")["models"][0]["model_id"] == "gpt-5"
    # a word no model's (``turbo`` of another's gpt-3.5-turbo) or like a tier's stays the tier wording
    for asked in ("gpt-5.5 (turbo)", "gpt-5.5 (priorty)"):
        doc = cli_json("prices", asked, "--at", "2026-11-02")
        assert doc["models"][0]["suggestions"][:2] == ["gpt-5.5", "gpt-5.5 (priority)"], doc["models"]
        assert "is not a service tier agentscan knows" in doc["warnings"][0]["message"]


def test_archived_help_and_docs_name_cursor_chats() -> None:
    """Cursor's ``isArchived`` marks chats archived: ``list --help`` and the docs said only
    Codex archives, and ``list``'s synopsis left ``--archived`` out."""
    import re

    import typer.main

    from agentscan.cli import app
    from agentscan.cli.options import GLOBAL_NAMES
    from test_docs import DOCS, cli_docs, sections

    text = " ".join(invoke("list", "--help").stdout.split())
    assert "Codex threads and Cursor chats you archived" in text, text
    body = sections(cli_docs())["list"]
    synopsis = re.search(r"^agentscan list\b.*$", body, re.MULTILINE)
    assert synopsis is not None
    command = typer.main.get_command(app).commands["list"]  # type: ignore[attr-defined]
    for param in command.params:
        if param.name not in GLOBAL_NAMES:
            for opt in param.opts:
                assert opt == "--help" or not opt.startswith("--") or opt in synopsis.group(0), opt
    assert "Only Codex archives" not in body
    library = " ".join((DOCS / "library.md").read_text().split())
    assert "`True` for a Codex thread or a Cursor chat the user archived" in library
    (row,) = [line for line in (DOCS / "cron.md").read_text().splitlines() if line.startswith("| `archived` |")]
    assert "Cursor chat" in row, row


def test_an_empty_export_to_stdout_names_the_unread_cursor_db(isolated_home: Path, tmp_path: Path,
                                                              only_cursor: None) -> None:
    """``export -o -`` (and ``otlp``) of nothing under a corrupt or locked Cursor DB said "no
    sessions found; doctor shows where agentscan looked", as a file export no longer did."""
    from cursor_builders import break_schema, bubble, composer_data, make_state_db, state_db_path

    chat = "a5300000-0000-4000-8000-0000000000a1"
    break_schema(make_state_db(state_db_path(isolated_home), composers=[composer_data(chat, name="c", bubbles=["u"])],
                               bubbles={chat: [bubble("u", 1, "hello", tokens=(10, 20))]}))
    for args in (("export", "-f", "jsonl", "-o", "-"), ("otlp", "-o", str(tmp_path / "spans.json"))):
        result = invoke(*args)
        assert result.exit_code == 0, result.stderr
        said = " ".join(result.stderr.split())
        assert "no sessions found: a Cursor database that may hold some could not be read" in said, (args, said)
        assert "shows where agentscan looked" not in said, (args, said)


G = "88888888-aaaa-4bbb-8ccc-000000000053"


def _gemini_chat(home: Path, logs: str) -> Path:
    from gemini_builders import gemini, meta, tokens, user, write_chat

    project = home / ".gemini" / "tmp" / "proj"
    project.mkdir(parents=True)
    (project / ".project_root").write_text("/work/src")
    write_chat(home, "proj", "session-2026-05-01T12-00-88888888.jsonl", [
        meta(G, start="2026-05-01T12:00:00.000Z"),
        user("u1", "2026-05-01T12:00:10.000Z", "explain the parser"),
        gemini("g1", "2026-05-01T12:00:20.000Z", "It reads lines.", usage=tokens(100, 10))])
    (project / "logs.json").write_text(logs)
    return project / "logs.json"


def test_a_damaged_gemini_logs_json_read_for_marks_is_a_note(isolated_home: Path) -> None:
    """``show --strict`` of a chat with prompts of its own failed on a damaged ``logs.json``,
    read only to mark slash commands (``list --strict`` passed): a card note, no warning."""
    _gemini_chat(isolated_home, '[{"sessionId": "x", ')
    result = invoke("show", "--strict", "88888888")
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    card = " ".join(result.stdout.split())
    assert "note slash commands not marked: logs.json could not be read (invalid JSON" in card, card
    document = cli_json("show", "--strict", "88888888")
    assert document["warnings"] == [] and "invalid JSON" in document["session"]["commands_unmarked"]


def test_a_huge_gemini_logs_json_is_not_read_for_marks(isolated_home: Path, monkeypatch: Any) -> None:
    """A 32 MB ``logs.json`` cost 150 MB more to mark a slash command: past a cap it is left
    unread, and the card says so; under it the command is marked as before."""
    import json

    from agentscan.providers.gemini import logs

    entries = [{"sessionId": "other", "messageId": i, "type": "user", "message": "x" * 200,
                "timestamp": "2026-05-01T12:00:05.000Z"} for i in range(200)]
    entries.append({"sessionId": G, "messageId": 0, "type": "user", "message": "/stats",
                    "timestamp": "2026-05-01T12:00:30.000Z"})
    path = _gemini_chat(isolated_home, json.dumps(entries))
    assert "/stats (ran in Gemini CLI)" in invoke("show", "--full", "--strict", "88888888").stdout
    monkeypatch.setattr(logs, "MARKS_MAX_BYTES", path.stat().st_size - 1)
    reads: list[Path] = []
    monkeypatch.setattr(logs, "load_json_file", lambda *args, **kwargs: reads.append(args[0]))
    result = invoke("show", "--full", "--strict", "88888888")
    assert result.exit_code == 0 and not reads, (result.stderr, reads)
    assert "/stats" not in result.stdout
    assert "slash commands not marked: logs.json is" in " ".join(result.stdout.split()), result.stdout


def test_hooks_status_says_to_fix_a_refused_config_before_installing(isolated_home: Path) -> None:
    """``hooks status`` on a config the install refuses printed the problem, then "to install
    … run: agentscan hooks install claude", which failed the same way: the file first."""
    config = isolated_home / ".claude" / "settings.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"hooks": []}\n', encoding="utf-8")
    assert invoke("hooks", "install", "claude").exit_code == 1
    lines = invoke("hooks", "status").stdout.splitlines()
    fix = next(index for index, line in enumerate(lines) if "first fix" in line)
    assert lines[fix].strip() == f"to install for claude, first fix {config} (the problem above), then run:", lines
    assert lines[fix + 1].strip().endswith("hooks install claude")
    before = lines[:fix]
    assert not any(line.strip().endswith("hooks install claude") for line in before), before
    # (two agents free to install since pass 56, Gemini CLI's hooks beside Cursor's)
    assert any(line.strip() == "to install, for each agent you use, run:" for line in before), before
    assert [line.strip().split()[-1] for line in before if "hooks install" in line] == ["cursor", "gemini"], before


def test_archived_filters_leave_out_a_cursor_chat_read_without_its_db(isolated_home: Path, only_cursor: None) -> None:
    """With Cursor's state DB unreadable (corrupt; locked alike), a chat listed from its
    transcript read "not archived" whatever it is: ``--no-archived`` listed an archived chat
    and ``--archived`` missed it.  Either leaves it out now, counted in ``archived_unknown``
    and said on stderr; a sound DB gives ``[]``."""
    from cursor_builders import (assistant, break_schema, bubble, composer_data, make_state_db, state_db_path,
                                 user, write_transcript)

    gone = "a5300000-0000-4000-8000-00000000ee02"
    write_transcript(isolated_home, "work-app", gone, [user("old idea"), assistant("ok")])
    db = make_state_db(state_db_path(isolated_home), composers=[
        composer_data(gone, name="archived chat", created=1_780_000_000_000, updated=1_780_000_002_000, bubbles=["v"],
                      isArchived=True)], bubbles={gone: [bubble("v", 1, "old idea", tokens=(5, 5))]})
    assert [row["id"] for row in cli_json("list", "--archived")["sessions"]] == [f"cursor:{gone}"]
    assert cli_json("list", "--no-archived")["archived_unknown"] == []
    break_schema(db)
    # Not read with its DB before (``--no-cache``: no kept row): its archived state is unknown
    for option in ("--archived", "--no-archived"):
        document = cli_json("--no-cache", "list", option)
        assert document["sessions"] == [], (option, document["sessions"])
        (unknown,) = document["archived_unknown"]
        assert unknown["provider"] == "cursor" and unknown["sessions"] == 1, unknown
        said = " ".join(invoke("--no-cache", "list", option).stderr.split())
        assert f"{option}: 1 Cursor session left out, its archived state not known: {db} could not be read" in said, said
    assert "archived_unknown" not in cli_json("--no-cache", "list")  # (only with either option)
    # Read with its DB before: the kept row's mark stands (pass 57, ``keptrow.with_kept``)
    assert [row["id"] for row in cli_json("list", "--archived")["sessions"]] == [f"cursor:{gone}"]
    assert cli_json("list", "--no-archived")["sessions"] == []


def test_a_row_grep_finds_by_its_calls_models_still_meets_archived(monkeypatch: Any) -> None:
    """``ListFilter.failed_stage`` stops at ``grep``; a row held for its calls' models and found
    by them was admitted without ``--no-archived``'s test (``grepmodels.settle_held``)."""
    from agentscan.model import SessionRef, SessionRow, TokenUsage
    from agentscan.scan import grepmodels
    from agentscan.scan.listing import ListFilter

    monkeypatch.setattr(grepmodels, "matching_by_models", lambda scanner, refs, needle: {ref.id for ref in refs})
    ref = SessionRef("codex", "t1", None, 0.0)
    row = SessionRow("codex", "t1", None, title="x", tokens=TokenUsage(input=10), archived=True)
    filters = ListFilter(grep="mini", archived=False)
    assert filters.failed_stage(row) == "grep" and grepmodels.needs_second_look("grep", row)

    class _Ctx:
        warnings = None

    class _Scanner:
        ctx = _Ctx()

    admitted: list[SessionRow] = []
    counted: list[str | None] = []
    monkeypatch.setattr("agentscan.context.say", lambda ctx, said: None)
    grepmodels.settle_held(_Scanner(), [grepmodels.Held(0, ref, row, [])], filters,  # type: ignore[arg-type]
                           lambda at, ref, row, said: admitted.append(row), counted.append)
    assert admitted == [] and counted == ["archived"]
