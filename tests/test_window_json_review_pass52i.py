"""``tokens --json``'s ``window`` (pass 52) as docs/json.md says it: after ``by`` and before
``focus``; the same on a remembered answer as on a made one, with ``-p`` too; ``tz`` the zone's
name (``UTC`` for ``--tz utc``), ``null`` for the local zone, ``--tz local`` included."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


def _tokens(*args: str) -> dict:
    result = runner.invoke(app, ["--demo", "tokens", *args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def test_focus_follows_the_window(isolated_home: Path) -> None:
    document = _tokens("a1b2c3d", "--by", "day")
    assert list(document)[:4] == ["schema", "by", "window", "focus"]


def test_a_remembered_answer_says_its_window_as_the_made_one(isolated_home: Path, local_zone) -> None:  # noqa: ANN001
    local_zone("Asia/Kolkata")
    for args in (("--by", "week", "-p", "claude"), ("--by", "month", "--tz", "utc"), ("--by", "day", "--tz", "local")):
        made, again = _tokens(*args), _tokens(*args)
        assert made == again and "window" in made, args
    assert _tokens("--by", "month", "--tz", "utc")["window"] == {"since": None, "until": None, "tz": "UTC"}
    assert _tokens("--by", "day", "--tz", "local")["window"]["tz"] == "Asia/Kolkata"  # (json2: named when known)
    assert "window" not in _tokens("-p", "claude") and "window" not in _tokens("--by", "agent")
