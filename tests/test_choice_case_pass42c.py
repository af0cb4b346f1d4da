"""Every choice option takes its value in any case, as ``--provider`` does (``-p Claude``):
``--by Agent``, ``export -f CSV``, ``otlp --protocol JSON`` (pass 42)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.errors import UsageProblem
from agentscan.export import run as export_run
from agentscan.otlp.sender import choose_protocol
from agentscan.scan.groupby import parse_group
from builders import invoke


@pytest.mark.parametrize(("given", "group"), [("Agent", "agent"), ("DAY", "day"), (" Model ", "model"), ("cwd", "cwd")])
def test_by_takes_any_case_in_the_library(given: str, group: str) -> None:
    assert parse_group(given) == group


def test_an_unknown_value_is_still_refused_in_any_case() -> None:
    for refuse in (lambda: parse_group("Dya"), lambda: export_run.parse_format("Json"), lambda: choose_protocol("Grpc")):
        with pytest.raises(UsageProblem, match="did you mean|choose from"):
            refuse()


def test_format_and_protocol_take_any_case() -> None:
    assert [export_run.parse_format(given) for given in ("CSV", "Jsonl", "SQLite")] == ["csv", "jsonl", "sqlite"]
    assert choose_protocol("JSON") == "json"


def test_tokens_by_in_another_case_is_the_same_report(isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upper, lower = invoke("--demo", "tokens", "--by", "Agent"), invoke("--demo", "tokens", "--by", "agent")
    assert upper.exit_code == 0, upper.output
    assert upper.stdout == lower.stdout
    from agentscan.cli import fastpath

    capsys.readouterr()
    code = fastpath.run(["--demo", "tokens", "--by", "Agent"])
    out, _ = capsys.readouterr()
    assert code in (0, None) and out == lower.stdout


def test_export_format_in_another_case_is_the_same_file(isolated_home: Path) -> None:
    upper = invoke("--demo", "--no-cache", "export", "-f", "CSV")
    lower = invoke("--demo", "--no-cache", "export", "-f", "csv")
    assert upper.exit_code == 0, upper.output
    assert upper.stdout == lower.stdout and upper.stdout.startswith("id,provider,")
    refused = invoke("--demo", "export", "-f", "SQLite")  # still needs a file, as sqlite does
    assert refused.exit_code == 2 and "--format sqlite needs --output PATH" in refused.stderr


def test_export_json_says_its_format_as_it_is_named(isolated_home: Path, tmp_path: Path) -> None:
    import orjson

    result = invoke("--demo", "--no-cache", "export", "-f", "JSONL", "-o", str(tmp_path / "x.jsonl"), "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["format"] == "jsonl"
