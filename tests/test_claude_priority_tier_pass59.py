"""Pass 59: an organisation on Anthropic's Priority Tier has ``usage.service_tier: "priority"``
on every call of every file.  Its tier warning (pass 58: priced at the standard rates) is said
by a terminal in one warning line a run, not five paths and "… and N more" on every ``tokens``;
``--verbose`` and ``--json`` list each file, and ``--strict`` fails on each, as on any warning
in the ``warnings`` array (the contract: ``--strict`` turns warnings into exit 1).  The Priority
Tier is a warning kind of its own (``valuewarnings.PRIORITY``): a batch or unknown tier met later
in the same file is a warning of its own, said as any (docs/pricing.md, "Claude's service tiers")."""

from __future__ import annotations

from pathlib import Path

import orjson

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, cli_json, invoke

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


SUMMARY = ("warning: 3 files of calls on Anthropic's Priority Tier, priced at the standard rates "
           "(its price is the organisation's contract's; --verbose names them)")


def _tier_session(home: Path, number: int, *tiers: str) -> Path:
    """A session of one call on each of ``tiers``, in that order (lines 2, 3, …)."""
    session = f"5e7ac7ed-5858-4000-8000-0000000002{number:02d}"
    calls = [claude_assistant(session, f"2026-11-20T10:00:0{n + 1}.000Z", msg_id=f"msg_{number}_{n}",
                              request_id=f"req_{number}_{n}", usage={**claude_usage(1000, 100), "service_tier": tier},
                              model=MODEL, uuid=f"a{n}") for n, tier in enumerate(tiers)]
    return claude_session_file(home, session, [claude_user(session, "2026-11-20T10:00:00.000Z", "go", uuid="u0"), *calls],
                               project=f"-home-dev-q{number}")


def test_a_priority_tier_home_is_one_warning_line_and_fails_strict(isolated_home: Path) -> None:
    _priority_home(isolated_home)
    for command in (["tokens"], ["list", "--all"], ["tokens"]):  # (the last: answered from the index)
        result = invoke(*command)
        assert result.exit_code == 0, result.output
        assert result.stderr.splitlines() == [SUMMARY]
        # --strict fails on them, each a warning, said in that one line
        result = invoke("--strict", *command)
        assert result.exit_code == 1, result.output
        assert result.stderr.splitlines() == [SUMMARY, "error: 3 warnings (--strict)"]
    # --json keeps each file's warning (a script sees every one), and --strict fails on them
    result = invoke("--strict", "tokens", "--json")
    assert result.exit_code == 1, result.output
    tiers = [w for w in orjson.loads(result.stdout)["warnings"] if "service_tier is 'priority'" in w["message"]]
    assert len(tiers) == 3 and all(w["line"] == 2 for w in tiers)
    # --verbose names each file, as a warning
    verbose = invoke("--verbose", "tokens").stderr.splitlines()
    assert len(verbose) == 3 and all(line.startswith("warning: ") and "service_tier is 'priority'" in line
                                     for line in verbose)


def test_strict_counts_the_priority_files_with_the_other_warnings(isolated_home: Path) -> None:
    _priority_home(isolated_home)
    _session(isolated_home, 7, "standard", bad_line=True)
    # (a damaged line: ``list`` reads every line, ``tokens`` only those that can hold usage)
    result = invoke("--strict", "list", "--all", "--no-cache")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[-1] == "error: 4 warnings (--strict)"
    assert lines[-2] == SUMMARY and sum("Priority Tier" in line for line in lines) == 1  # the summary, once
    # under --quiet, --strict still says them (its error's reason), in the same line
    quiet = invoke("--strict", "--quiet", "list", "--all").stderr.splitlines()
    assert quiet[-2:] == [SUMMARY, "error: 4 warnings (--strict)"]


def test_a_batch_or_unknown_tier_is_an_ordinary_warning(isolated_home: Path) -> None:
    _session(isolated_home, 1, "batch")
    _session(isolated_home, 2, "mystery")
    result = invoke("--strict", "tokens")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[-1] == "error: 2 warnings (--strict)"
    assert len(lines) == 3 and all(line.startswith("warning: /") for line in lines[:-1])
    assert not any("Priority Tier" in line for line in lines)


def test_a_batch_or_unknown_tier_after_priority_in_one_file_is_said(isolated_home: Path) -> None:
    # priority (line 2), then batch (line 3), then an unknown tier (4), then priority again:
    # the Priority Tier's warning kind is its own, so the batch one is said too (the first
    # unknown of the other kind: one warning a kind, the first value's, with the count).
    path = _tier_session(isolated_home, 1, "priority", "batch", "mystery", "priority")
    for cache in (("--no-cache",), (), ()):
        document = cli_json(*cache, "tokens")
        said = [(w["message"], w["line"]) for w in document["warnings"] if "service tier" in w["message"]]
        assert len(said) == 2, said
        (priority, line), (batch, batch_line) = said
        assert (line, batch_line) == (2, 3)
        assert "service_tier is 'priority'" in priority and "the first of 2 such values" in priority
        assert "service_tier is 'batch'" in batch and "Message Batches" in batch
        assert "the first of 2 such values" in batch  # (batch and the unknown tier: one kind)
        # text: the batch warning is said, the Priority one counted in its line
        lines = invoke(*cache, "tokens").stderr.splitlines()
        assert lines == [f"warning: {path}:3: {batch}",
                         "warning: 1 file of calls on Anthropic's Priority Tier, priced at the standard rates "
                         "(its price is the organisation's contract's; --verbose names it)"]
        # --verbose: each, in the file's order
        assert invoke(*cache, "--verbose", "tokens").stderr.splitlines() == [
            f"warning: {path}:2: {priority}", f"warning: {path}:3: {batch}"]
    for command in (["list", "--all"], ["show", "5e7ac7ed-5858-4000-8000-000000000201"]):
        said = [w["line"] for w in cli_json(*command)["warnings"] if "service tier" in w["message"]]
        assert said == [2, 3], command


def test_doctor_counts_the_priority_files_as_the_terminal_does(isolated_home: Path) -> None:
    _priority_home(isolated_home)
    _session(isolated_home, 8, "batch")
    kinds = cli_json("doctor")["providers"]
    (claude,) = [report for report in kinds if report["provider"] == "claude"]
    assert claude["warnings"] == {"call on Anthropic's Priority Tier, priced at the standard rates": 3,
                                  "call on a service tier other than standard, priced at the standard rates": 1}
