"""A Codex call whose cached input and cache write exceed its input is said, once a file.

No build writes one, but a damaged file may: ``tokens`` and ``show`` cap each call's split at
its input (``counters.spent_on``), a ``list`` row caps its running total's (``to_tokens``),
where one call's surplus fills another's room.  The totals agree, the splits did not, and
nothing said so (``--strict`` passed).  Now every command says it, once a file, with how many
calls; a file of sound calls says nothing.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, user_message, write_rollout

P = "019c5000-0000-7000-8000-00000000000b"


def _write(home: Path, calls: list[dict]) -> Path:
    records: list[dict] = [meta(P, at(0)), turn_context(at(1)), user_message(at(1), "split these")]
    total = {key: 0 for key in calls[0]}
    for index, call in enumerate(calls):
        total = {key: total[key] + call[key] for key in call}
        records.append(token_count(at(10 + index), total, call))
    return write_rollout(rollout_path(home / ".codex", P, at(0)), records)


def _run(*argv: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*argv, "--json"])
    return result.exit_code, orjson.loads(result.stdout) if result.stdout.strip() else {}


def _split_warnings(doc: dict) -> list[dict]:
    return [warning for warning in doc["warnings"] if "cache write exceed input" in warning["message"]]


def test_calls_whose_cache_exceeds_their_input_are_said_once_a_file(isolated_home: Path) -> None:
    path = _write(isolated_home, [usage(1000, 800, 10, cache_write=500), usage(1000, 0, 10, cache_write=100),
                                  usage(500, 600, 10)])
    for argv in (("tokens",), ("list",), ("list",), ("show", P)):  # (the second list: a warm one)
        code, doc = _run(*argv)
        assert code == 0, argv
        (warning,) = _split_warnings(doc)
        assert warning["path"] == str(path)
        assert warning["message"].startswith("cached input + cache write exceed input in 2 calls: "), warning
        assert "list caps the running total's" in warning["message"]
    for argv in (("tokens", "--strict"), ("list", "--strict")):
        assert _run(*argv)[0] == 1, argv


def test_sound_calls_say_nothing(isolated_home: Path) -> None:
    _write(isolated_home, [usage(1000, 800, 10, cache_write=200), usage(1000, 0, 10, cache_write=100)])
    for argv in (("tokens", "--strict"), ("list", "--strict"), ("show", P, "--strict")):
        code, doc = _run(*argv)
        assert code == 0, argv
        assert doc["warnings"] == [], argv


def test_a_row_alone_says_it_too(isolated_home: Path) -> None:
    # The library's rows, priced by no usage pass: the row's own read of the file says it.
    from agentscan.scan.scanner import Scanner

    path = _write(isolated_home, [usage(1000, 800, 10, cache_write=500), usage(1000, 0, 10, cache_write=100)])
    for use_cache in (True, True, False):  # cold, warm, and with no index
        scanner = Scanner(home=isolated_home, provider_names=["codex"], use_cache=use_cache)
        (row,) = scanner.list_sessions()
        assert (row.tokens.input, row.tokens.cache_write) == (600, 600)  # the total's split, capped once
        found = [w for w in scanner.warnings if "cache write exceed input" in w.message]
        assert [(w.path, w.message.split(":")[0]) for w in found] == [
            (str(path), "cached input + cache write exceed input in 1 call")]
