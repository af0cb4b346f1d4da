"""``tokens --json`` says the window and zone its rows were cut in (pass 52).

A team lead keeps ``tokens --by month --since 2026-11 --until 2026-11 --tz America/New_York
--json > nov.json``: the document said neither the period nor the zone its ``2026-11`` row was
cut in (a Tokyo run gives another November), so two kept reports could not be told apart or
checked against each other.  ``window`` (additive) says both when a window is given or the
rows are periods; a plain report by session has none.
"""

from __future__ import annotations

from pathlib import Path

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json

NATIVE = "aaaaaaaa-7777-4000-8000-000000000000"


def _month_end_session(home: Path) -> None:
    claude_session_file(home, NATIVE, [
        claude_user(NATIVE, "2026-11-30T23:50:00.000Z", "month end"),
        claude_assistant(NATIVE, "2026-11-30T23:55:00.000Z", msg_id="m1", request_id="r1", usage=claude_usage(100, 1)),
        claude_assistant(NATIVE, "2026-12-01T04:30:00.000Z", msg_id="m2", request_id="r2", usage=claude_usage(200, 2),
                         uuid="u2"),
    ])


def test_a_windowed_report_says_its_bounds_and_zone(isolated_home: Path) -> None:
    _month_end_session(isolated_home)
    for zone, since, until, total in (("America/New_York", "2026-11-01T04:00:00.000Z", "2026-12-01T05:00:00.000Z", 303),
                                      ("Asia/Tokyo", "2026-10-31T15:00:00.000Z", "2026-11-30T15:00:00.000Z", 0)):
        document = cli_json("tokens", "--by", "month", "--since", "2026-11", "--until", "2026-11", "--tz", zone)
        assert document["window"] == {"since": since, "until": until, "tz": zone}
        assert list(document)[:3] == ["schema", "by", "window"]
        assert (document["total"] or {"total": 0})["total"] == total


def test_a_period_grouping_says_its_zone_on_every_run(isolated_home: Path, local_zone) -> None:  # noqa: ANN001
    local_zone("America/Chicago")
    _month_end_session(isolated_home)
    for _ in range(2):  # made, then remembered
        assert cli_json("tokens", "--by", "day", "--tz", "Asia/Tokyo")["window"] == {
            "since": None, "until": None, "tz": "Asia/Tokyo"}
        # (json2: the local zone's IANA name, known for sure here, not null)
        assert cli_json("tokens", "--by", "day")["window"] == {"since": None, "until": None, "tz": "America/Chicago"}
        assert "window" not in cli_json("tokens")
        assert "window" not in cli_json("tokens", "--by", "model")
