"""The JSON documents the docs draw (docs/json.md, cli-otlp.md, cli-hooks.md, cron.md) name every key the
program prints, in the order it prints them: a newcomer reads the drawing, not the code.  Each
example's top level, and every object in it the run prints and the example draws as an object
(at any depth), is compared with the real ``--json`` document of a demo command; a key the
example has and this run lacks is fine (it may be conditional: ``more``, ``window``), a key the
run prints and the drawing lacks is drift (unless a bare ``...`` says "and more")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

DOCS = Path(__file__).resolve().parents[1] / "docs"


class Drawn(NamedTuple):
    """An object as drawn: its keys in order, each with the text of its value, and whether a bare
    ``...``/``…`` among them says "and more" (``{...}``, ``"cache_read_mtok": ..., ...``)."""

    keys: dict[str, str]
    open: bool


def drawn_object(text: str, where: str) -> Drawn:
    """The object drawn at the start of ``text`` (pseudo-JSON: ``{"path", "kind"}`` names a key
    with no value, ``Tokens`` or ``...`` stands for one, ``# …`` is a comment); ``where`` names
    the drawing and key in what an odd drawing fails with."""
    assert text.lstrip().startswith("{"), f"{where}: drawn as {text.strip()[:40]!r}, not an object"
    keys: dict[str, str] = {}
    depth, i, key, start, bare = 0, text.index("{"), None, 0, False
    while i < len(text):
        char = text[i]
        if char == '"':
            end = i + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            assert end < len(text), f"{where}: a string never closed: {text[i:i + 40]!r}"
            if depth == 1 and text[:i].rstrip()[-1:] != ":":
                key, start = text[i + 1:end], end + 1
                assert key not in keys, f"{where}: {key!r} drawn twice"
                keys[key] = ""
            i = end + 1
            continue
        if char == "#":  # a comment, to the end of its line
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
            continue
        if depth == 1 and key is None and text.startswith(("...", "…"), i):
            bare = True
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and char == "," and key is not None:
            keys[key] = text[start:i]
            key = None
        i += 1
    assert depth == 0, f"{where}: {{ or [ never closed"
    if key is not None:
        keys[key] = text[start:i]
    return Drawn(keys, bare)


def drawn_keys(text: str, where: str = "a drawing") -> dict[str, str]:
    """The keys of the object drawn at the start of ``text``, in order, each with the text of its value."""
    return drawn_object(text, where).keys


def drawings() -> dict[str, list[tuple[str, str]]]:
    """Each schema's drawn documents, by schema name, with the page of each."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name in ("json.md", "cli-otlp.md", "cli-hooks.md", "cron.md"):
        for body in re.findall(r"^```\w*\n(.*?)^```", (DOCS / name).read_text(), flags=re.S | re.M):
            match = re.match(r'\s*\{"schema": "(agentscan\.[\w-]+/1)"', body)
            if match:
                found.setdefault(match.group(1), []).append((name, body))
    return found


def run(words: list[str]) -> Any:
    result = CliRunner().invoke(app, words, prog_name="agentscan")
    assert result.exit_code == 0, (words, result.output)
    return result.stdout


def documents(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / ".claude").mkdir(exist_ok=True)
    days = run(["--demo", "export", "-f", "jsonl", "--days", "-o", "-"]).splitlines()
    return {
        "agentscan.list/1": json.loads(run(["--demo", "list", "--json"])),
        "agentscan.show/1": json.loads(run(["--demo", "show", "7f3c9a12", "--json"])),
        "agentscan.tokens/1": json.loads(run(["--demo", "tokens", "claude:7f3c9a12", "--json"])),
        "agentscan.export/1": json.loads(run(["--demo", "export", "-f", "sqlite", "-o", str(tmp_path / "s.db"), "--json"])),
        "agentscan.doctor/1": json.loads(run(["--demo", "doctor", "--json"])),
        "agentscan.hooks/1": json.loads(run(["hooks", "install", "claude", "--dry-run", "--json"])),
        "agentscan.hooks_status/1": json.loads(run(["hooks", "status", "--json"])),
        "agentscan.trace/1": json.loads(run(["--demo", "trace", "7f3c9a12", "--json"])),
        "agentscan.trace-list/1": json.loads(run(["--demo", "trace", "--list", "--json"])),
        "agentscan.prices/1": json.loads(run(["--demo", "prices", "claude-sonnet-4-5", "--json"])),
        "agentscan.otlp/1": json.loads(run(["--demo", "otlp", "-o", str(tmp_path / "t.jsonl"), "--json"])),
        "agentscan.usage_day/1": json.loads(days[0]),
    }


def test_the_parser_reads_a_drawing() -> None:
    drawn = drawn_keys('{"a": 1, "b": {"c", "d"}, "e": [{"f": "x, y"}],  # "g"\n "h": Tokens | null}')
    assert list(drawn) == ["a", "b", "e", "h"] and list(drawn_keys(drawn["b"].lstrip(": "))) == ["c", "d"]
    assert drawn_object('{"a": ..., "b", ...}', "x") == Drawn({"a": ": ...", "b": ""}, True)
    assert drawn_object("{...}", "x").open and not drawn_object('{"a": "..."}', "x").open


@pytest.mark.parametrize(("text", "said"), [
    ('{"a": 1, "b', "x.b: a string never closed"),
    ('{"a": {"b": 1}', "x.b: { or [ never closed"),
    ("Tokens | null", "x.b: drawn as 'Tokens | null', not an object"),
    ('{"a", "a"}', "x.b: 'a' drawn twice"),
])
def test_an_odd_drawing_is_named_in_the_failure(text: str, said: str) -> None:
    with pytest.raises(AssertionError, match=re.escape(said)):
        drawn_object(text, "x.b")


#: the objects whose keys are data, not the schema's (an agent, a warning's text): drawn with
#: an example's keys (``"by_agent": {"cursor": 3}``)
KEYED_BY_DATA = {"by_agent", "warnings", "warning_files"}


def drawn_as_object(value: str) -> str | None:
    """The object a key's drawn value draws (a list's first item), or ``None`` when it names
    one (``Tokens``, ``[Config]``, ``Summary + {"turns"}``) or is no object (``null``)."""
    value = value.strip().removeprefix(":").strip()
    if value.startswith("["):
        value = value[1:].lstrip()
    return value if value.startswith("{") else None


def mismatches(where: str, text: str, document: dict[str, Any], compared: list[str]) -> list[str]:
    """How the object drawn in ``text`` differs from ``document``: a key printed and not drawn,
    or the keys both have in another order; and so, deeper, for every key whose value is
    printed as an object (or a list of them) and drawn as one."""
    drawn = drawn_object(text, where)
    compared.append(where)
    problems = []
    if drawn.open and not drawn.keys and document:  # (trace's summary was drawn so: 22 keys unseen)
        problems.append(f"{where}: drawn as {{...}}, printed {list(document)}: draw its keys")
    missing = [] if drawn.open else [key for key in document if key not in drawn.keys]
    common = [key for key in drawn.keys if key in document]
    if missing or common != [key for key in document if key in drawn.keys]:
        problems.append(f"{where}: drawn {list(drawn.keys)}, printed {list(document)}")
    for key, value in document.items():
        if isinstance(value, list) and value:
            value = value[0]
        inner = drawn_as_object(drawn.keys.get(key, ""))
        if isinstance(value, dict) and inner is not None and key not in KEYED_BY_DATA:
            problems += mismatches(f"{where}.{key}", inner, value, compared)
    return problems


def test_every_drawn_document_names_the_keys_printed_in_their_order(isolated_home: Path) -> None:
    """Every object the program prints and a drawing draws as an object is compared, at any
    depth: a hand-kept list of the nested ones left ``hooks status``'s ``store`` in an old order."""
    drawn = drawings()
    real = documents(isolated_home)
    assert set(real) <= set(drawn), f"no drawing of {sorted(set(real) - set(drawn))}"
    problems: list[str] = []
    compared: list[str] = []
    for schema, document in real.items():
        for page, drawing in drawn[schema]:
            problems += mismatches(f"{page} {schema}", drawing, document, compared)
    assert not problems, "\n".join(problems)
    # the nested objects the test first compared by a list are among those compared now
    for nested in ("tokens/1.rows", "tokens/1.rows.subagents", "doctor/1.providers", "doctor/1.cache",
                   "doctor/1.locks", "doctor/1.hooks", "doctor/1.hooks.store", "hooks/1.changes",
                   "hooks_status/1.store", "hooks_status/1.errors", "trace/1.session",
                   "trace/1.summary", "trace/1.summary.thoughts", "trace/1.turns.summary", "trace-list/1.sessions", "export/1.shrank", "export/1.unread"):
        assert any(where.endswith(nested) for where in compared), (nested, compared)


def test_the_cursor_warning_json_md_quotes_is_the_one_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """json.md quotes the warning a `CURSOR_STATE_DB` that is not there adds to the document."""
    text = " ".join((DOCS / "json.md").read_text().split())
    quoted = re.search(r'`(\{"path": "/nonexist", "message": "[^"]+"\})`', text)
    assert quoted, "json.md no longer quotes it: the pattern is wrong"
    monkeypatch.setenv("CURSOR_STATE_DB", "/nonexist")
    result = CliRunner().invoke(app, ["list", "-p", "cursor", "--json"], prog_name="agentscan")
    assert result.exit_code == 1, result.output  # the root named cannot be read
    assert json.loads(quoted.group(1)) in json.loads(result.stdout)["warnings"]


@pytest.mark.parametrize(("folder", "page"), [("hooks", "hooks.md"), ("otlp", "otel.md")])
def test_the_module_map_of_a_page_names_every_module_of_its_folder(folder: str, page: str) -> None:
    """hooks.md and otel.md draw their folder's modules, one line each: a newcomer looks for the
    code there (hooks.md lacked eighteen of hooks/'s modules)."""
    drawn = re.search(rf"^src/agentscan/{folder}/\n(.*?)^```", (DOCS / page).read_text(), flags=re.S | re.M)
    assert drawn, f"{page} draws no map of src/agentscan/{folder}/"
    named = set(re.findall(r"^  (\w+\.py)\b", drawn.group(1), flags=re.M))
    modules = {path.name for path in (DOCS.parent / "src" / "agentscan" / folder).glob("*.py")} - {"__init__.py"}
    assert sorted(modules - named) == [] and sorted(named - modules) == []
