"""``tokens``' words, pass 43.

- 1: the note under a table of unknown costs read "COST - is unknown, ≥$… what the other
  calls cost": "COST minus", and "other" left to guess.  Its symbols are quoted now, each
  with its meaning.
- 2: an empty window (``--since 7d`` on a home idle for months) said no usage and no next
  step: it names when the sessions were last active and an option that takes that in.
- 3: a subagent line's TITLE said "(from progress …" at 80 columns: what it is comes first
  now, "(no transcript: …", as ``show`` words it.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agentscan.cli.term import Terminal
from agentscan.cli.tokens_empty import nearest_usage
from agentscan.cli.tokens_folds import Folded
from agentscan.cli.tokens_notes import Unpriced, print_notes
from builders import PROGRESS_SESSION, invoke, lay_out_progress_session


def one_line(text: str) -> str:
    return " ".join(text.split())


# --- 1. the forms of an unknown cost ------------------------------------------------------------

@pytest.mark.parametrize(("shown", "models", "said"), [
    # (pass 45) The legend alone: the warning under it names the model and says the rest.
    ({"-"}, 1, "COST '-': unknown"),
    ({"≥"}, 1, "COST '≥$N': at least what the priced calls cost"),
    ({"-", "≥"}, 2, "COST '-': unknown; '≥$N': at least what the priced calls cost"),
])
def test_each_cost_form_is_quoted_with_its_meaning(capsys: pytest.CaptureFixture[str], tty, shown: set[str],
                                                    models: int, said: str) -> None:  # noqa: ANN001
    tty(200, color=False)
    term = Terminal(tty=True, width=200, color=False)
    print_notes("model", term, Folded([], [], []), Unpriced([f"mystery-{n}" for n in range(models)], frozenset(shown)))
    err = one_line(capsys.readouterr().err)
    assert err == said
    assert "COST - " not in err and "lower bound" not in err  # "COST minus", and the old words
    assert "`" not in err and "prices --help" not in err  # (pass 45) no Markdown, no second pointer


# --- 2. an empty window's next step -------------------------------------------------------------

# The demo's sessions were last active from 2026-10-14 to 2026-11-29 (fixed dates).
NEWEST = ("the newest session before that range was last active on 2026-11-29: --since 2026-11-23 "
          "takes in its last week")


@pytest.mark.parametrize("by", ("session", "day", "model"))
@pytest.mark.parametrize("since", ("2031-01-01", "2031-W01"))
def test_a_window_after_every_call_names_a_since_that_takes_the_newest_in(isolated_home: Path, by: str,
                                                                           since: str) -> None:
    result = invoke("--demo", "tokens", "--since", since, "--by", by)
    assert result.exit_code == 0, result.output
    err = one_line(result.stderr)
    assert "none of the 11 sessions made a call in that range; " + NEWEST in err, err
    # The option works: it takes the newest session's calls in.
    assert invoke("--demo", "tokens", "--since", "2026-11-23", "--by", by, "--json").stdout.count('"key"') >= 1


def test_a_window_before_every_call_names_an_until_that_takes_the_oldest_in(isolated_home: Path) -> None:
    result = invoke("--demo", "tokens", "--until", "2020-01-01")
    err = one_line(result.stderr)
    assert ("no usage before 2020-01-02 00:00: none of the 11 sessions made a call in that range; the oldest "
            "session was last active on 2026-10-14: --until 2026-10-14 takes it in") == err, err
    assert '"key"' in invoke("--demo", "tokens", "--until", "2026-10-14", "--json").stdout


def test_the_suggested_date_names_the_zone_it_was_read_in(isolated_home: Path) -> None:
    result = invoke("--demo", "tokens", "--since", "2031-01-01", "--tz", "Asia/Tokyo")
    # The newest session's last record, late on 2026-11-29 in the tests' zone, is the next day in Tokyo.
    assert ("last active on 2026-11-30: --since 2026-11-24 --tz Asia/Tokyo takes in its last week"
            in one_line(result.stderr))


def test_a_window_between_sessions_names_the_newest_before_it() -> None:
    utc = timezone.utc
    active = [datetime(2026, 3, 1, 12, tzinfo=utc), datetime(2026, 6, 10, 23, 30, tzinfo=utc),
              datetime(2026, 11, 1, tzinfo=utc)]
    told = nearest_usage(active, since=datetime(2026, 7, 1, tzinfo=utc), until=datetime(2026, 8, 1, tzinfo=utc),
                         zone=ZoneInfo("Asia/Tokyo"))
    # 23:30 UTC is the next day in Tokyo: the day is the zone's, the week before it.
    assert told == ("; the newest session before that range was last active on 2026-06-11: "
                    "--since 2026-06-05 --tz Asia/Tokyo takes in its last week")
    # Sessions active inside the window (whose calls fell outside it): nothing to suggest.
    assert nearest_usage(active[2:], since=datetime(2026, 7, 1, tzinfo=utc),
                         until=datetime(2026, 12, 1, tzinfo=utc), zone=None) == ""
    assert nearest_usage([], since=datetime.now(utc) - timedelta(days=7), until=None, zone=None) == ""


# --- 3. a recovered subagent's status -----------------------------------------------------------



@pytest.mark.parametrize("width", (80, 120))
def test_a_recovered_subagent_says_what_it_is_first_when_cut(isolated_home: Path, tty, width: int) -> None:  # noqa: ANN001
    tty(width, color=False)
    lay_out_progress_session(isolated_home)
    result = invoke("tokens", PROGRESS_SESSION)
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if "↳ afb92ff" in line]
    assert "(no transcript" in line and "(from progress" not in line, line
    assert len(line) <= width
