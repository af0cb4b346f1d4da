"""Pass 56: Claude Code's session recap (2.1.108 on) is a ``system`` record of subtype
``away_summary`` that it writes when the person comes back after being away (its "※ recap: …"
line; public readers: daaain/claude-code-log PR 141, tiann/hapi PR 1089, cc-switch issue 2095,
whose user found sessions "updated" at night by recaps alone).  It is no activity: a session's
``updated_at`` is its last real record's time in ``list``, ``show``, ``export`` and ``tokens``'
table (``records.is_recap``; the row's pass, ``tablefacts`` and the id-ambiguity note)."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.model import TableFacts
from agentscan.scan import tablefacts as gathering
from agentscan.scan.ambiguity import _tail_time
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

S = "a4a4a4a4-5656-4000-8000-000000000001"
LAST_WORK = "2026-11-20T10:05:00.000Z"
RECAP_AT = "2026-11-21T02:40:00.000Z"  # the next night: the terminal got focus back


def _recap(ts: str, uuid: str = "r1") -> dict:
    # The shape cc-switch issue 2095 quotes from a real 2.1.108 transcript (text shortened).
    return {"parentUuid": "a1", "isSidechain": False, "type": "system", "subtype": "away_summary",
            "content": "The white paper is done: 10 chapters and 4 images. Review it and tell me what to change.",
            "timestamp": ts, "uuid": uuid, "isMeta": False, "userType": "external", "entrypoint": "cli",
            "cwd": "/home/dev/project", "sessionId": S, "version": "2.1.108", "gitBranch": "main"}


def _session(home: Path, *extra: dict) -> Path:
    return claude_session_file(home, S, [
        claude_user(S, "2026-11-20T10:00:00.000Z", "write the white paper", uuid="u1"),
        claude_assistant(S, LAST_WORK, msg_id="m1", request_id="q1", usage=claude_usage(100, 10), uuid="a1"),
        *extra,
    ])


def _iso(text: str) -> str:
    return text.replace(".000Z", "+00:00")


def test_a_recap_does_not_date_the_row(isolated_home: Path) -> None:
    _session(isolated_home, _recap(RECAP_AT))
    (row,) = Scanner().list_sessions()
    assert row.updated_at.isoformat() == _iso(LAST_WORK)
    assert row.started_at.isoformat() == "2026-11-20T10:00:00+00:00"
    # A recap, then the person typed again: that prompt is the last activity (a recap dates
    # nothing; the records after it still do).
    later = claude_user(S, "2026-11-21T02:41:00.000Z", "thanks, now the summary", uuid="u2")
    _session(isolated_home, _recap(RECAP_AT), later)
    (row,) = Scanner().list_sessions()
    assert row.updated_at.isoformat() == "2026-11-21T02:41:00+00:00"


def test_list_show_and_export_agree_on_the_last_activity(isolated_home: Path, tmp_path: Path) -> None:
    _session(isolated_home, _recap("2026-11-20T23:00:00.000Z", "r0"), _recap(RECAP_AT))
    (listed,) = cli_json("list", "--all")["sessions"]
    shown = cli_json("show", S)
    out = tmp_path / "index.jsonl"
    result = CliRunner().invoke(app, ["export", "--format", "jsonl", "--output", str(out)])
    assert result.exit_code == 0, result.output
    (exported,) = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    stamps = {listed["updated_at"], exported["updated_at"], shown["session"]["updated_at"]}
    assert len(stamps) == 1 and stamps.pop().startswith("2026-11-20T10:05:00")


def test_tokens_table_dates_as_the_row_does(isolated_home: Path) -> None:
    # ``tokens``' table finds the date in the bytes (``tablefacts``): the greatest time is the
    # recap's, so it must step down to the newest record's own, as the row's pass does.
    _session(isolated_home, _recap(RECAP_AT))
    with Scanner(home=isolated_home, use_cache=True) as scanner:
        refs = list(scanner.provider("claude").discover(scanner.ctx))
        (facts,) = gathering.gather(scanner, refs).values()
        (row,) = scanner.list_sessions()
    assert isinstance(facts, TableFacts)  # found in the bytes, not the row's pass
    assert facts.updated_at == row.updated_at
    assert facts.updated_at.isoformat() == _iso(LAST_WORK)


def test_the_ambiguity_note_dates_a_session_without_its_recap(isolated_home: Path) -> None:
    from agentscan.providers import get_provider

    path = _session(isolated_home, _recap(RECAP_AT))
    when = _tail_time(path, get_provider("claude").dates_session)  # (the provider tells: pass 58)
    assert when is not None and when.isoformat() == _iso(LAST_WORK)
