"""``export``'s messages (pass 42): an export to stdout no session matched says why on
stderr, as ``list`` does; ``--tz`` without ``--days`` is refused in words for the format
asked for; ``--help``'s example writes to stdout as the default does, without ``-o -``."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from builders import invoke


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_an_empty_export_to_stdout_says_why_as_list_does(isolated_home: Path, fmt: str) -> None:
    result = invoke("--demo", "--no-cache", "export", "-f", fmt, "--since", "2099-01-01")
    assert result.exit_code == 0, result.output
    assert result.stdout in ("", "id,provider,native_id,path,title,cwd,model,git_branch,started_at,updated_at,"
                             "tokens_input,tokens_cache_read,tokens_cache_write,tokens_output,tokens_reasoning,"
                             "tokens_total,cost_usd,prompts,responses,tool_calls,subagents,running,workspace_folders,archived\n")
    listed = invoke("--demo", "--no-cache", "list", "--since", "2099-01-01")
    said = result.stderr.strip()
    assert said.startswith("no sessions updated since 2099-01-01 00:00 (11 older")
    assert said == listed.stderr.strip()


def test_an_empty_export_says_nothing_with_quiet_and_a_full_one_no_why(isolated_home: Path) -> None:
    quiet = invoke("--demo", "--no-cache", "--quiet", "export", "-f", "jsonl", "--since", "2099-01-01")
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet.stdout == ""
    full = invoke("--demo", "--no-cache", "export", "-f", "jsonl")
    assert full.exit_code == 0 and "no sessions" not in full.stderr


def test_a_provider_with_no_session_since_says_so_too(isolated_home: Path) -> None:
    result = invoke("--demo", "--no-cache", "export", "-f", "jsonl", "--days", "-p", "codex", "--since", "2099-01-01")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.startswith("no sessions updated since 2099-01-01 00:00 (3 older"), result.stderr


@pytest.mark.parametrize("args", [["-f", "csv"], ["-f", "jsonl", "-o", "x.jsonl"]])
def test_tz_without_days_is_refused_in_words_for_a_file_of_sessions(isolated_home: Path, tmp_path: Path,
                                                                    args: list[str], monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.chdir(tmp_path)
    result = invoke("--demo", "export", *args, "--tz", "utc")
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first == "error: --tz is for --days (each day's rows in that zone); a session's times are always UTC"
    assert "SQLite" not in result.stderr and not (tmp_path / "x.jsonl").exists()


def test_tz_with_sqlite_names_its_days(isolated_home: Path, tmp_path: Path) -> None:
    result = invoke("--demo", "export", "-f", "sqlite", "-o", str(tmp_path / "x.sqlite"), "--tz", "utc")
    assert result.exit_code == 2 and "--tz is for --days, with jsonl or csv" in result.stderr
    assert "token_days" in result.stderr


def test_help_s_examples_write_to_stdout_without_dash(isolated_home: Path) -> None:
    shown = invoke("export", "--help").stdout
    examples = [shlex.split(line, comments=True) for line in shown.split("Examples:", 1)[1].splitlines() if line.strip()]
    assert examples and not any(["-o", "-"] == words[i:i + 2] for words in examples for i in range(len(words))), examples
    assert any(not {"-o", "--output", "sqlite"} & set(words) for words in examples)
