"""``--provider`` in any case and as a comma list (``-p Claude``, ``-p claude,codex``), on the
fast path (``list``, ``tokens``) and through Typer (``export``) alike; a name no provider has
is still a usage error that names it."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.optionvalues import provider_names

runner = CliRunner()


def test_names_are_split_at_commas_folded_and_said_once() -> None:
    assert provider_names(["Claude,codex", "CODEX", " gemini "]) == ["claude", "codex", "gemini"]
    assert provider_names(None) is None and provider_names([]) == []


def providers_of(*args: str) -> set[str]:
    result = runner.invoke(app, ["--demo", *args, "--json"])
    assert result.exit_code == 0, result.output
    return {row["provider"] for row in orjson.loads(result.stdout)["sessions"]}


@pytest.mark.parametrize("given", [["-p", "Claude,CODEX"], ["-p", "claude", "-p", "Codex"], ["--provider=claude,codex"]])
def test_list_takes_any_case_and_a_comma_list(given: list[str]) -> None:
    assert providers_of("list", *given) == {"claude", "codex"}


def test_tokens_and_export_take_them_too(tmp_path) -> None:  # noqa: ANN001
    tokens = runner.invoke(app, ["--demo", "tokens", "-p", "CLAUDE,codex", "--by", "provider", "--json"])
    assert tokens.exit_code == 0, tokens.output
    assert {row["key"] for row in orjson.loads(tokens.stdout)["rows"]} == {"claude", "codex"}
    out = tmp_path / "e.jsonl"
    exported = runner.invoke(app, ["--demo", "export", "-f", "jsonl", "-o", str(out), "-p", "Gemini"])
    assert exported.exit_code == 0, exported.output
    assert {orjson.loads(line)["provider"] for line in out.read_bytes().splitlines()} == {"gemini"}


def test_an_unknown_name_in_a_list_is_named() -> None:
    result = runner.invoke(app, ["--demo", "list", "-p", "claude,Nope"])
    assert result.exit_code == 2 and "unknown provider 'Nope'" in result.stderr  # (as typed)
