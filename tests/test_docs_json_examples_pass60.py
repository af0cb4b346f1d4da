"""The JSON documents the docs draw (docs/json.md, cli-otlp.md, cli-hooks.md, cron.md) name every key the
program prints, in the order it prints them: a newcomer reads the drawing, not the code.  Each
example's top level (and the nested objects listed in ``NESTED``) is compared with the real
``--json`` document of a demo command; a key the example has and this run lacks is fine (it may
be conditional: ``more``, ``window``), a key the run prints and the drawing lacks is drift."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

DOCS = Path(__file__).resolve().parents[1] / "docs"


def drawn_keys(text: str) -> dict[str, str]:
    """The keys of the first object drawn in ``text`` (pseudo-JSON: ``{"path", "kind"}`` names a
    key with no value, ``Tokens`` or ``...`` stands for one, ``# …`` is a comment), in order, each
    with the text of its value."""
    keys: dict[str, str] = {}
    depth, i, key, start = 0, 0, None, 0
    while i < len(text):
        char = text[i]
        if char == '"':
            end = i + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            before = text[:i].rstrip()[-1:]
            if depth == 1 and before != ":":
                key, start = text[i + 1:end], end + 1
                keys[key] = ""
            i = end + 1
            continue
        if char == "#":  # a comment, to the end of its line
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
            continue
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
    if key is not None:
        keys[key] = text[start:i]
    return keys


def drawings() -> dict[str, list[tuple[str, str]]]:
    """Each schema's drawn documents, by schema name, with the page of each."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name in ("json.md", "cli-otlp.md", "cli-hooks.md", "cron.md"):
        for body in re.findall(r"^```\w*\n(.*?)^```", (DOCS / name).read_text(), flags=re.S | re.M):
            match = re.match(r'\s*\{"schema": "(agentscan\.[\w-]+/1)"', body)
            if match:
                found.setdefault(match.group(1), []).append((name, body))
    return found


def first_object(value: str) -> str:
    return value[value.index("{"):]


#: the nested objects compared too: a key's value (a list's first item)
NESTED = {"agentscan.tokens/1": ["rows"], "agentscan.doctor/1": ["providers", "cache", "locks", "hooks"],
          "agentscan.hooks/1": ["changes"], "agentscan.trace/1": ["session"],
          "agentscan.trace-list/1": ["sessions"], "agentscan.export/1": ["shrank", "unread"]}


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
    assert list(drawn) == ["a", "b", "e", "h"] and list(drawn_keys(first_object(drawn["b"]))) == ["c", "d"]


def test_every_drawn_document_names_the_keys_printed_in_their_order(isolated_home: Path) -> None:
    drawn = drawings()
    real = documents(isolated_home)
    assert set(real) <= set(drawn), f"no drawing of {sorted(set(real) - set(drawn))}"
    problems = []

    def compare(where: str, text: str, document: dict[str, Any]) -> None:
        keys = drawn_keys(text)
        missing = [key for key in document if key not in keys]
        common = [key for key in keys if key in document]
        if missing or common != [key for key in document if key in keys]:
            problems.append(f"{where}: drawn {list(keys)}, printed {list(document)}")

    for schema, document in real.items():
        for page, drawing in drawn[schema]:
            compare(f"{page} {schema}", drawing, document)
            top = drawn_keys(drawing)
            for key in NESTED.get(schema, []):
                value = document[key][0] if isinstance(document[key], list) else document[key]
                compare(f"{page} {schema} {key}", first_object(top[key]), value)
    assert not problems, "\n".join(problems)


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
