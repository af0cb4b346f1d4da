"""The sessions that recorded no usage (pass 51).

- Named under a ``tokens`` table, they come in one order whatever the grouping: newest first,
  as ``--by session`` and ``list`` have them.  Grouped, they came in discovery's order (provider
  by provider, by file time), so ``--by model`` named a Gemini chat after Cursor ones
  ``--by session`` put below it.
- An empty window's next step names no such session's time (its ``--since`` found nothing again).
"""

from __future__ import annotations

import os
import re
from pathlib import Path


from builders import invoke
from cursor_builders import assistant, bubble, composer_data, make_state_db, state_db_path, write_transcript
from cursor_builders import user as cursor_user
from gemini_builders import meta, write_chat
from gemini_builders import user as gemini_user

CURSOR = ["11111111-0000-4000-8000-000000000001", "22222222-0000-4000-8000-000000000002",
          "33333333-0000-4000-8000-000000000003"]
GEMINI = "55555555-0000-4000-8000-000000000005"
USED = "44444444-0000-4000-8000-000000000004"
T0 = 1_780_000_000  # 2026-05-28T20:26:40Z


def _home(home: Path) -> None:
    # Three Cursor transcripts of no usage (their times are their files'), out of id order ...
    for number, (composer, offset) in enumerate(zip(CURSOR, (300, 100, 200))):
        path = write_transcript(home, "home-me-app", composer, [cursor_user(f"q{number}"), assistant("a")])
        os.utime(path, (T0 + offset, T0 + offset))
    # ... a Gemini chat of a prompt alone, newer than them all (its file older) ...
    write_chat(home, "proj", f"session-2026-05-28T20-40-{GEMINI[:8]}.jsonl",
               [meta(GEMINI, start="2026-05-28T20:40:00.000Z"), gemini_user("u1", "2026-05-28T20:40:00.000Z", "hello?")],
               mtime=T0 + 150)
    # ... and one session that recorded usage, for the table to have a row.
    make_state_db(state_db_path(home), composers=[
        composer_data(USED, name="used", created=T0 * 1000, updated=T0 * 1000 + 10, fs_path="/home/me/app",
                      bubbles=["b1", "b2"])],
        bubbles={USED: [bubble("b1", 1, "hi"), bubble("b2", 2, "yo", tokens=(10, 1), model="gpt-5")]})


def _named(*args: str) -> list[str]:
    result = invoke("tokens", *args)
    assert result.exit_code == 0, result.stderr
    (line,) = [line for line in (result.stdout + result.stderr).splitlines() if "recorded no usage" in line]
    return re.findall(r"(?:cursor|gemini):[0-9a-f-]+", line)


def test_one_order_whatever_the_grouping(isolated_home: Path) -> None:
    _home(isolated_home)
    newest_first = [f"gemini:{GEMINI}", f"cursor:{CURSOR[0]}", f"cursor:{CURSOR[2]}", f"cursor:{CURSOR[1]}"]
    for by in ("session", "model", "day", "provider", "cwd"):
        assert _named("--by", by) == newest_first, by
    assert _named("--by", "model", "--since", "2026-05-01") == newest_first


def test_an_empty_window_s_next_step_is_a_session_that_recorded_usage(isolated_home: Path) -> None:
    """The newest session before an empty window is one that recorded usage: a Cursor session of
    none, active later, was named, and the ``--since`` offered found no usage again."""
    from gemini_builders import gemini, tokens

    write_chat(isolated_home, "proj", f"session-2026-04-23T12-00-{GEMINI[:8]}.jsonl",
               [meta(GEMINI, start="2026-04-23T12:00:00.000Z"), gemini_user("u1", "2026-04-23T12:00:00.000Z", "hi"),
                gemini("g1", "2026-04-23T12:00:05.000Z", "yo", usage=tokens(100, 10))], mtime=T0)
    path = write_transcript(isolated_home, "home-me-app", CURSOR[0], [cursor_user("q"), assistant("a")])
    july = 1_783_771_200  # 2026-07-11T12:00:00Z
    os.utime(path, (july, july))
    result = invoke("tokens", "--since", "2026-08-01", "--tz", "UTC")
    assert result.exit_code == 0, result.stderr
    said = " ".join(result.stderr.split())
    assert "last active on 2026-04-23: --since 2026-04-17 --tz UTC takes in its last week" in said, said
