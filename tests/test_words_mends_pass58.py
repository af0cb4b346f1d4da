"""Pass 58, the review of the ``--cwd`` hint and its words.

* On Linux ``--cwd`` compares names exactly: a folder differing only in case is another
  folder, and offered (only what ``--cwd`` itself takes in is left out).
* ``list``'s hint looks among the sessions ``--since``/``--until``/``--running`` kept; when
  the folder asked for holds sessions they left out, they are said to be the cause, no hint.
* ``list --cwd`` builds its hint from the directories its filter read, not every session's
  table facts again.
* "One slip away" is one: a letter changed, added or left out, two neighbours swapped.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from builders import invoke


# --- 1. a folder differing only in case ------------------------------------------------------


def test_a_folder_differing_only_in_case_is_offered_where_cwd_compares_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan.cwdnear import NearFolder, nearly_named

    monkeypatch.setattr(sys, "platform", "linux")
    assert nearly_named("/tmp/x/App", ["/tmp/x/app"]) == ([NearFolder("/tmp/x/app", 1)], 1)
    assert nearly_named("/tmp/x/app", ["/tmp/x/app", "/tmp/y/app"]) == ([NearFolder("/tmp/y/app", 1)], 1)
    monkeypatch.setattr(sys, "platform", "darwin")  # (macOS: ``App`` is ``app``, the folder asked for)
    assert nearly_named("/tmp/x/App", ["/tmp/x/app"]) == ([], 0)


@pytest.mark.parametrize("command", ["list", "tokens"])
def test_demo_app_typed_for_app_offers_it(command: str) -> None:
    result = invoke("--demo", command, "--cwd", "/home/demo/src/Weather-App")
    assert result.stdout == "" and result.exit_code == 0
    lines = result.stderr.splitlines()
    assert lines[0].startswith("no sessions under /home/demo/src/Weather-App"), lines
    assert lines[1:] == ["hint: did you mean --cwd /home/demo/src/weather-app (5 sessions)?"], lines


# --- 2. list's hint and the filters before --cwd ------------------------------------------------


def test_a_window_that_left_out_the_folders_sessions_is_said_and_no_hint_given() -> None:
    result = invoke("--demo", "list", "--cwd", "/home/demo/src/inventory-api", "--since", "2026-11-28")
    assert result.stdout == "" and result.exit_code == 0
    assert result.stderr.splitlines() == [
        "no sessions under /home/demo/src/inventory-api updated since 2026-11-28 00:00: "
        "the 2 sessions there are outside that range (4 elsewhere are in it)"], result.stderr
    one = invoke("--demo", "list", "--cwd", "/home/demo/src/recipe-api", "--until", "2026-11-01").stderr
    assert one.splitlines() == ["no sessions under /home/demo/src/recipe-api last updated before 2026-11-02 00:00: "
                                "the only session there is outside that range (1 elsewhere is in it)"], one


def test_the_hint_offers_only_what_the_window_kept() -> None:
    # Of weather-app's 5 sessions, 1 was updated before 2026-11-20: the hint counts that one.
    said = invoke("--demo", "list", "--cwd", "/home/demo/src/weather-ap", "--until", "2026-11-20").stderr
    assert said.splitlines()[-1] == "hint: did you mean --cwd /home/demo/src/weather-app (1 session)?", said
    # inventory-api's sessions are older than the window: not offered for a name like it.
    said = invoke("--demo", "list", "--cwd", "/home/demo/src/inventory-ap", "--since", "2026-11-28").stderr
    assert "hint" not in said and said.startswith("no sessions under /home/demo/src/inventory-ap"), said


def test_the_running_filter_is_said_as_the_cause() -> None:
    from agentscan.cli.cwdhint import _outside
    from agentscan.scan.listfilter import ListFilter

    said = _outside(ListFilter(cwd="/srv/app", running=True), "/srv/app", 3, 2, None, None)
    assert said == "no running sessions under /srv/app: the 3 sessions there are not running (2 elsewhere are running)"
    said = _outside(ListFilter(cwd="/srv/app", pid=7), "/srv/app", 1, 1, "2026-11-01 00:00", None)
    assert said == ("no sessions held by process 7 under /srv/app updated since 2026-11-01 00:00: the only session "
                    "there is not held by it or outside that range (1 elsewhere is held by it and in it)")


# --- 3. the hint from what the filter read --------------------------------------------------------


def test_list_cwd_hint_reads_no_sessions_cwds_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import tablefacts

    def gathered(*args: object, **kwargs: object) -> None:
        raise AssertionError("every session's table facts gathered again for the hint")

    invoke("--demo", "list")  # (the rows kept, as a warm run has them)
    monkeypatch.setattr(tablefacts, "gather", gathered)
    said = invoke("--demo", "list", "--cwd", "wether-app").stderr
    assert said.splitlines()[-1] == "hint: did you mean --cwd /home/demo/src/weather-app (5 sessions)?", said


# --- 4. one slip away -------------------------------------------------------------------------------


def test_one_slip_is_one_letter_off() -> None:
    from agentscan.scan.cwdnear import NearFolder, nearly_named
    from agentscan.toolkit.words import one_letter_off

    assert [one_letter_off(typed, "weather-app") for typed in
            ("wether-app", "weatherr-app", "waether-app", "weather-apq", "wethr-app", "weather-ap-x", "weather-app")
            ] == [True, True, True, True, False, False, False]
    assert one_letter_off("abc", "abcd") and one_letter_off("abcd", "abc") and one_letter_off("bc", "abc")
    cwds = ["/home/me/weather-app"]
    assert nearly_named("/tmp/wethr-app", cwds) == ([], 0)  # (two letters off: alike, but no slip)
    assert nearly_named("/tmp/weatherr-app", cwds) == ([NearFolder("/home/me/weather-app", 1)], 1)
    # every name one slip away, not only the likest
    projects = [f"/home/me/work/project-{n}" for n in range(2)]
    assert nearly_named("/tmp/project-7", projects) == ([NearFolder(path, 1) for path in projects], 2)


def test_one_directory_spelled_two_ways_is_offered_once() -> None:
    from collections import Counter

    from agentscan.scan.cwdnear import NearFolder, nearly_named

    # (``list``'s hint counts the directories its filter read, as each session spelled its own)
    spelled = Counter({"c:/Users/me/App": 2, "C:\\Users\\me\\App": 1, None: 4})
    assert nearly_named("/tmp/Ap", spelled) == ([NearFolder("c:/Users/me/App", 3)], 1)


def test_tokens_help_says_what_limit_does_with_json() -> None:
    said = " ".join(invoke("tokens", "--help").stdout.split())
    assert "the others summed in one line (default on a terminal: 25; in a pipe: every one); " \
           "with --json, the first N rows and \"more\"." in said, said


def test_one_rule_offers_a_mistyped_id_for_show_and_trace() -> None:
    from agentscan.toolkit.words import meant_ids

    names = [("claude", "7f3c9a12-aaaa", "a"), ("claude", "7f3c9a99-bbbb", "b"), ("codex", "019ac2d4-x", "c")]
    assert meant_ids("7f3c9a13", names, lambda meant, targets: True, shortest=6) == "hint: did you mean 'claude:7f3c9a12'?"
    assert meant_ids("7F3C9A13", names, lambda meant, targets: targets == {"a"}, shortest=6) == \
        "hint: did you mean 'claude:7f3c9a12'?"
    assert meant_ids("7f3c9a13", names, lambda meant, targets: False, shortest=6) is None  # (it must open)
    assert meant_ids("7f3c9b", names, lambda meant, targets: True, shortest=6) == "hint: did you mean 'claude:7f3c9a'?"
    assert meant_ids("7f3c9", names, lambda meant, targets: True, shortest=6) is None  # (too short)
    assert meant_ids("7f3c9a1!", names, lambda meant, targets: True, shortest=6) is None


# --- 6. the pages say what the code does ----------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]


def _page(name: str) -> str:
    return " ".join((REPO / "docs" / name).read_text(encoding="utf-8").split())


def test_the_pages_say_what_the_hint_and_show_full_do() -> None:
    cli = _page("cli.md")
    assert "likest" not in cli and "else a name one slip away (a letter changed, added or left out" in cli
    cursor = _page("providers/cursor.md")
    assert "`show --full` lists the run" not in cursor and "`show --full` prints no block of it" in cursor


def test_each_trace_figure_is_told_with_its_own_file_and_where_it_is_recorded() -> None:
    import re

    hooks = _page("hooks.md")
    performance = _page("performance.md")
    # (the 2.5 CPU-seconds were the 210 MB file's, the 0.3 the 224 MB file's)
    assert re.search(r"515 MB for a 210 MB file of 150,000 small calls \(794 MB so\), the lines decoded twice "
                     r"costing that file some 2\.5 more CPU-seconds \(of 9\)", hooks)
    assert "70 MB for a 224 MB file of 28 `Write` calls of 8 MB (258 MB with each input kept whole), the digests " \
           "costing some 0.3 more CPU-seconds (of 1.5)" in hooks
    assert "[performance.md](performance.md#trace-and-otlp-memory)" in hooks
    for figure in ("216 MB file of 8 MB `Read` responses peaked at 71 MB (259 MB", "210 MB file of 150,000 small "
                   "calls at 515 MB (794 MB so)", "28 Writes of 8 MB (224 MB) | 258 → 70 MB",
                   "150,000 small Bash calls (225 MB) | 674–680 → 527 MB"):
        assert figure in performance, figure


def test_a_cold_lists_hint_counts_the_sessions_its_facts_ruled_out(isolated_home: Path) -> None:
    """Past ``factfilter.MIN_SESSIONS`` a cold ``list --cwd`` rules sessions out by their facts,
    rows unread: the hint counts those too, as a warm run counts the rows."""
    from builders import claude_assistant, claude_session_file, claude_usage, claude_user

    for index in range(200):
        native = f"{index:08x}-5858-4000-8000-00000000abcd"
        ts = f"2026-11-{1 + index % 28:02d}T10:00:00.000Z"
        cwd = "/srv/weather-app" if index % 10 else "/srv/recipe-api"
        claude_session_file(isolated_home, native, [
            claude_user(native, ts, f"task {index}", cwd=cwd),
            claude_assistant(native, ts, msg_id=f"m{index}", request_id=f"r{index}", usage=claude_usage(10, 1), cwd=cwd),
        ], project=f"-srv-{index}")
    hint = "hint: did you mean --cwd /srv/weather-app (180 sessions)?"
    for run in ("cold", "warm"):
        said = invoke("list", "--cwd", "/srv/wether-app").stderr.splitlines()
        assert said == ["no sessions under /srv/wether-app (it does not exist; 200 elsewhere)", hint], (run, said)
