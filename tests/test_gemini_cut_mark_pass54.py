"""A legacy Gemini chat read only up to its damage, before any usage, is marked so in its row
(pass 54): ``SessionRow.usage_cut``, kept with the row in the index.

Whether its usage was "not known" (``tokens_unknown``, ``unreadable``, the card's "not known")
was told by matching this run's warnings by their words, whatever read the file: a scanner
that read the chat cut, then again whole once Gemini CLI had finished rewriting it, still said
its usage was not known, though the chat it showed was whole and recorded none."""

from __future__ import annotations

from pathlib import Path

import orjson

from agentscan import Scanner
from builders import invoke
from gemini_builders import gemini, user, write_legacy

S = "11111111-aaaa-4bbb-8ccc-000000000054"
DOC = {"sessionId": S, "projectHash": "0" * 64, "startTime": "2025-09-01T08:00:00.000Z",
       "lastUpdated": "2025-09-01T08:09:00.000Z",
       "messages": [user("u1", "2025-09-01T08:00:01.000Z", "rename the module"),
                    gemini("g1", "2025-09-01T08:00:05.000Z", "renamed")]}  # (no usage recorded)


def _cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"renamed")])


def test_a_chat_read_whole_again_is_not_unknown_for_an_earlier_cut_read(isolated_home: Path) -> None:
    path = write_legacy(isolated_home, "proj", "session-2025-09-01T08-00-11111111.json", DOC)
    whole = path.read_bytes()
    _cut(path)
    scanner = Scanner(use_cache=False)
    (row,) = scanner.list_sessions()
    assert row.tokens is None
    assert scanner.show(S).extra.get("tokens_unknown") is True
    path.write_bytes(whole)  # Gemini CLI finished its rewrite: the chat recorded no usage
    detail = scanner.show(S)
    assert [p.text for p in detail.prompts] == ["rename the module"] and detail.row.tokens is None
    assert "tokens_unknown" not in detail.extra, "read whole: it recorded no usage"


def test_the_mark_is_kept_with_the_row(isolated_home: Path) -> None:
    path = write_legacy(isolated_home, "proj", "session-2025-09-01T08-00-11111111.json", DOC)
    _cut(path)
    for _ in range(2):  # read, then taken back from the index
        (listed,) = orjson.loads(invoke("list", "--json").stdout)["sessions"]
        assert listed["tokens_unknown"] is True and "usage_cut" not in listed
        report = orjson.loads(invoke("tokens", "--json").stdout)
        assert [entry["id"] for entry in report["unreadable"]] == [f"gemini:{S}"]
        assert "before the damage" in report["unreadable"][0]["reason"]


def test_the_card_and_tokens_id_say_it_was_read_in_part(isolated_home: Path) -> None:
    # Read, its prompt on the card: not "could not be read", nor "cannot read" it.
    path = write_legacy(isolated_home, "proj", "session-2025-09-01T08-00-11111111.json", DOC)
    _cut(path)
    card = invoke("show", S)
    assert card.exit_code == 0, card.stderr
    assert "tokens   not known (the chat was read only up to its damage)" in card.stdout, card.stdout
    assert "rename the module" in card.stdout
    failed = invoke("tokens", S)
    assert failed.exit_code == 1
    said = " ".join(failed.stderr.split())
    assert f"error: usage of gemini:{S} not known: {path}: chat file is" in said, said
    assert "cannot read" not in said


def test_a_cut_chat_is_known_not_archived(isolated_home: Path) -> None:
    # Gemini CLI archives nothing: its usage not known is no archived state not known.
    path = write_legacy(isolated_home, "proj", "session-2025-09-01T08-00-11111111.json", DOC)
    _cut(path)
    document = orjson.loads(invoke("list", "--no-archived", "--json").stdout)
    assert [row["id"] for row in document["sessions"]] == [f"gemini:{S}"]
    assert document["archived_unknown"] == []


def test_a_cold_tokens_replays_a_whole_chat_of_no_usage_once(isolated_home: Path, monkeypatch) -> None:
    # Whether a chat of no usage was cut was asked of its row, replayed again for it after the
    # sums' pass had read it whole: 400 such chats took a cold ``tokens --json`` 1.6 s -> 2.7 s.
    from agentscan.providers.gemini.provider import GeminiProvider

    write_legacy(isolated_home, "proj", "session-2025-09-01T08-00-11111111.json", DOC)
    replays: list[str] = []
    chats = GeminiProvider._chats

    def counted(self, ref, *args, **kwargs):  # type: ignore[no-untyped-def]
        replays.append(ref.id)
        return chats(self, ref, *args, **kwargs)

    monkeypatch.setattr(GeminiProvider, "_chats", counted)
    report = orjson.loads(invoke("tokens", "--json").stdout)
    assert report["unreadable"] == [] and replays == [f"gemini:{S}"]
