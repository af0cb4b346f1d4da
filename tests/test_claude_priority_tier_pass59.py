"""Pass 59: an organisation on Anthropic's Priority Tier has ``usage.service_tier: "priority"``
on every call of every file.  Its tier warning (pass 58: priced at the standard rates) is a fact
of the account that nothing can fix, so a terminal says it in one line a run, not five paths
and "… and N more" on every ``tokens``, ``--verbose`` and ``--json`` list each file, and
``--strict`` does not fail on it (a cron job would never pass).  A batch or unknown tier, which
Claude Code should not write, still fails it (docs/pricing.md, "Claude's service tiers")."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

MODEL = "claude-sonnet-4-5-20250929"


def _session(home: Path, number: int, tier: object, *, bad_line: bool = False) -> Path:
    session = f"5e7ac7ed-5858-4000-8000-0000000001{number:02d}"
    calls = [claude_assistant(session, f"2026-11-20T10:00:0{n + 1}.000Z", msg_id=f"msg_{number}_{n}",
                              request_id=f"req_{number}_{n}", usage={**claude_usage(1000, 100), "service_tier": tier},
                              model=MODEL, uuid=f"a{n}") for n in range(2)]
    path = claude_session_file(home, session, [claude_user(session, "2026-11-20T10:00:00.000Z", "go", uuid="u0"), *calls],
                               project=f"-home-dev-p{number}")
    if bad_line:
        path.write_bytes(path.read_bytes() + b"{not json\n")
    return path


def _priority_home(home: Path, files: int = 3) -> None:
    for number in range(files):
        _session(home, number, "priority")


def test_a_priority_tier_home_is_said_in_one_note_and_passes_strict(isolated_home: Path) -> None:
    _priority_home(isolated_home)
    for command in (["tokens"], ["list", "--all"], ["tokens"]):  # (the last: answered from the index)
        result = invoke("--strict", *command)
        assert result.exit_code == 0, result.output
        assert result.stderr.splitlines() == [
            "note: 3 files of calls on Anthropic's Priority Tier, priced at the standard rates "
            "(its price is the organisation's contract's; --verbose names them)"]
    # --json keeps each file's warning (a script sees every one), and --strict passes it too
    result = invoke("--strict", "tokens", "--json")
    assert result.exit_code == 0, result.output
    tiers = [w for w in orjson.loads(result.stdout)["warnings"] if "service_tier is 'priority'" in w["message"]]
    assert len(tiers) == 3 and all(w["line"] == 2 for w in tiers)
    # --verbose names each file, as a warning
    verbose = invoke("--verbose", "tokens").stderr.splitlines()
    assert len(verbose) == 3 and all(line.startswith("warning: ") and "service_tier is 'priority'" in line
                                     for line in verbose)


def test_strict_still_fails_on_other_warnings_and_counts_the_tier_apart(isolated_home: Path) -> None:
    _priority_home(isolated_home)
    _session(isolated_home, 7, "standard", bad_line=True)
    # (a damaged line: ``list`` reads every line, ``tokens`` only those that can hold usage)
    result = invoke("--strict", "list", "--all", "--no-cache")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[-1] == "error: 1 warning (--strict); 3 files of calls on the Priority Tier, not counted"
    assert sum("Priority Tier" in line for line in lines[:-1]) == 1  # the note, once


def test_a_batch_or_unknown_tier_still_fails_strict(isolated_home: Path) -> None:
    _session(isolated_home, 1, "batch")
    _session(isolated_home, 2, "mystery")
    result = invoke("--strict", "tokens")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == "error: 2 warnings (--strict)"
    assert not any(line.startswith("note:") for line in result.stderr.splitlines())
