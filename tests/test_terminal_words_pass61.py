"""Terminal words a demanding user (gh, git, ccusage) meets (pass 61).

``doctor`` grouped two rollouts' ``no session_meta`` warnings under ``no session_meta with id
NaN-N-N-N-N in the first N KiB``: every digit made ``N``, an id garbled and a limit every
warning shared lost; the warning itself said what was missing, not what it cost or where to look.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from pathlib import Path

from builders import cli_json, invoke
from codex_builders import at, rollout_path, turn_context, write_rollout

IDS = ("019a0000-1111-7222-8333-444455556666", "019a0000-1111-7222-8333-444455557777")


def _rollouts_without_meta(home: Path) -> list[Path]:
    return [write_rollout(rollout_path(home / ".codex", thread, at(index * 60)), [turn_context(at(index * 60 + 1))])
            for index, thread in enumerate(IDS)]


def test_doctor_groups_ids_that_differ_without_garbling_the_words(isolated_home: Path) -> None:
    paths = _rollouts_without_meta(isolated_home)
    (codex,) = [report for report in cli_json("doctor")["providers"] if report["provider"] == "codex"]
    assert codex["warnings"] == {"no session_meta with id * in the first 64 KiB": 2}
    assert sorted(codex["warning_files"]["no session_meta with id * in the first 64 KiB"]) == sorted(map(str, paths))


def test_kinds_keep_a_shared_number_and_the_stops_around_a_differing_one() -> None:
    from agentscan.scan.warningkinds import kinds

    heads = Counter({"read the 9 complete messages (of 10)": 2, "read the 12 complete messages (of 10)": 1,
                     "cut at byte 4096 of 2:": 1})
    assert kinds(heads) == {"read the N complete messages (of 10)": 3, "cut at byte 4096 of 2:": 1}


def test_no_session_meta_says_what_it_costs_and_where_to_look(isolated_home: Path) -> None:
    _rollouts_without_meta(isolated_home)
    messages = {warning["message"] for warning in cli_json("list", "--provider", "codex")["warnings"]}
    assert messages == {f"no session_meta with id {thread} in the first 64 KiB: listed by the id in its name, without "
                        "its start, working directory, branch or parent thread; look at the file's first line: "
                        "Codex writes the meta there" for thread in IDS}


CWDS = ("/home/wei/repo/claude-code", "/home/wei/repo/VibeCodingTracker", "/proj/ds906659/gai/claude-code",
        "/Users/gtrrz-victor/wks/cli", "/home/USER/projects/spotter-worktrees/spotter-gqc", "/tmp/repo")


def _claude_in(home: Path, cwds: tuple[str, ...]) -> None:
    from builders import claude_assistant, claude_session_file, claude_slug, claude_usage, claude_user

    for index, cwd in enumerate(cwds):
        session = f"a6100000-0000-4000-8000-{index:012d}"
        claude_session_file(home, session, [
            claude_user(session, "2026-11-07T10:00:00.000Z", "work", cwd=cwd),
            claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id=f"m{index}", request_id=f"r{index}",
                             usage=claude_usage(1000 * (index + 1), 10), cwd=cwd)], project=claude_slug(cwd))


def test_tokens_by_cwd_cuts_every_path_at_one_depth(isolated_home: Path, tty: Callable[..., None]) -> None:
    """At 60 columns ``…/wei/repo/claude-code`` stood above ``…/VibeCodingTracker`` and
    ``…/spotter-gqc``: as many characters of each as fitted, so paths of one depth read as
    paths of three.  Each is cut at one depth now, one more where two would read alike."""
    _claude_in(isolated_home, CWDS)
    tty(60)
    result = invoke("tokens", "--by", "cwd")
    assert result.exit_code == 0, result.output
    keys = [line.split("  ")[0] for line in result.stdout.splitlines()[1:len(CWDS) + 1]]
    # (was …/ds906659/gai/claude-code, …/wei/repo/VibeCodingTracker, …/spotter-gqc)
    assert sorted(key for key in keys if key.startswith("…")) == [
        "…/VibeCodingTracker", "…/gai/claude-code", "…/spotter-gqc"], keys
    assert sorted(key for key in keys if not key.startswith("…")) == sorted(
        ["/tmp/repo", "/Users/gtrrz-victor/wks/cli", "/home/wei/repo/claude-code"]), keys


def test_no_usage_under_an_unread_cursor_db_says_the_sessions_read_not_the_only_ones(
        isolated_home: Path, only_cursor: None, short_sqlite_wait: None) -> None:
    """"none of the 2 Cursor sessions recorded any" under a corrupt state DB: it may hold more."""
    from cursor_builders import break_schema, bubble, composer_data, make_state_db, state_db_path, write_chat_store

    break_schema(make_state_db(state_db_path(isolated_home), composers=[composer_data("a6100000-0000-4000-8000-0000000000a1")],
                               bubbles={"a6100000-0000-4000-8000-0000000000a1": [bubble("u", 1, "hi", tokens=(1, 2))]}))
    for index in (1, 2):
        chat = f"a6100000-0000-4000-8000-0000000000c{index}"
        write_chat_store(isolated_home, f"/work/cli{index}", chat, meta={"name": "chat", "cwd": f"/work/cli{index}"},
                         store={"name": "chat"})
    said = " ".join(invoke("tokens").stderr.split())
    assert said.startswith("no usage: none of the 2 Cursor sessions read recorded any (their tokens are not recorded, "
                           "as `agentscan show cursor:a6100000-0000-4000-8000-0000000000c"), said
    assert "says of the newest); a Cursor database that may hold more could not be read (see the warning)" in said, said


def test_a_hint_leaves_out_a_provider_the_command_would_refuse(isolated_home: Path) -> None:
    """``tokens daily --breakdown -p web`` hinted ``tokens --by day --breakdown -p web``, which
    fails on ``-p web`` (unknown provider): a hint never offers a line known to fail."""
    from builders import claude_one_call

    claude_one_call(isolated_home, "a6100000-0000-4000-8000-0000000000b1")
    said = invoke("tokens", "daily", "--breakdown", "-p", "web").stderr
    hinted = said.split("hint: `", 1)[1].split("`", 1)[0]
    assert hinted.endswith(" tokens --by day --breakdown"), said
    assert "(--provider takes an agent (claude, codex, gemini, cursor): -p web left out;" in " ".join(said.split())
    assert invoke(*hinted.split()[hinted.split().index("tokens"):]).exit_code == 0
    kept = invoke("tokens", "daily", "-p", "Claude,codex").stderr
    assert "`agentscan tokens --by day -p Claude,codex`" in kept, kept


def test_a_us_only_name_typed_with_a_dash_is_priced_as_us_only_and_said_so(isolated_home: Path) -> None:
    """``prices claude-opus-4-6-us-only`` was priced at claude-opus-4-6's list price, the table
    saying ``anthropic/claude-opus-4-6``: the library matched the model by its start."""
    for typed in ("claude-opus-4-6-us-only", "Claude-Opus-4-6-US-Only", "Claude-Opus-4-6 (us-only)"):
        result = invoke("prices", typed)
        assert result.exit_code == 0, result.output
        row = [cell for cell in result.stdout.splitlines()[1].split("  ") if cell]
        assert row[:3] == ["claude-opus-4-6 (us-only)", "anthropic/claude-opus-4-6 (US-only)", "0"], (typed, row)
        assert row[3:5] == ["$5.50", "$27.50"], (typed, row)


def test_list_cuts_its_cwds_at_one_depth(tty: Callable[..., None]) -> None:
    """The demo's list at 120 columns: ``…/demo/src/notes`` above ``…/src/weather-app`` and
    ``…/inventory-api``: the column's paths cut at three depths."""
    tty(120)
    result = invoke("--demo", "list")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = lines[0].index("CWD")
    cwds = {line[at:].split("  ")[0] for line in lines[1:] if line.startswith(("claude:", "codex:", "cursor:", "gemini:"))}
    assert cwds == {"…/weather-app", "…/notes", "…/recipe-api", "…/cli-tool", "…/inventory-api", "…/billing-service"}, cwds


def test_the_prices_note_names_every_context_size_its_lines_do(tty: Callable[..., None]) -> None:
    """``'above 200k': when the prompt holds more …`` was said under ``gpt-5.5``'s ``above 272k`` too."""
    tty(100)
    result = invoke("prices", "gpt-5.5", "gemini-2.5-pro")
    assert result.exit_code == 0, result.output
    said = " ".join((result.stdout + result.stderr).split())
    assert "'above 200k', 'above 272k': when the prompt holds more than that many tokens" in said, said
    assert "  above 272k" in result.stdout and "  above 200k" in result.stdout
