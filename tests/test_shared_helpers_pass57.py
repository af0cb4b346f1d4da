"""Helpers written more than once, now written once (pass 57):

* ``--strict``'s ending (``cli.strictend.strict_end``): ``state.finish``, ``hooks install``,
  ``doctor`` and ``prices`` each had their own, and two had drifted from the rule.  ``doctor``
  said ``1 warning (--strict)`` under a report that counted two (no word of the truncated last
  line of a file still being written, which does not count), and counted its warnings after
  ``--redact`` masked their paths, so such a line under a path holding a secret, which
  ``settling`` could no longer stat, failed it; ``prices --quiet --strict`` failed without
  saying why (every other command says the warnings that fail it under ``--quiet``);
* the directory an agent's variable names, ``~`` as the home given (``toolkit.paths.under_home``),
  and refused when relative: ``claude_user_dir`` and ``gemini_user_dir`` (``hooks.install``)
  each wrote it again, as ``toolkit.roots.expand_home`` did;
* the model of a run's kept usage sums: ``scan.showing`` imported Cursor's rule; it asks the
  provider (``Provider.kept_model``), and sorts the sums by run once;
* Claude's ``advisor_calls`` looked the request's usage up anew for each field it took from it.
"""

from __future__ import annotations

import inspect
import os
import time
from pathlib import Path

import orjson
import pytest

import agentscan
from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke

SRC = Path(agentscan.__file__).parent
S = "57575757-0000-4000-8000-0000000000d0"


# -- --strict ends one way ---------------------------------------------------------------------


def test_strict_is_ended_by_one_helper() -> None:
    # ``otlp`` (its export's own warnings added to the scan's, which ``finish`` ends) is the one
    # command that folds its own; no other may write the ending again (``trace`` did: its
    # warnings were not said under --quiet before the error, nor its truncated lines left out).
    # (pass 59: ``otlp`` raises it through ``strictend.strict_error`` too, a file's "N more" its N)
    raising = sorted(path.name for path in (SRC / "cli").glob("*.py")
                     if "StrictWarnings(" in path.read_text(encoding="utf-8"))
    assert raising == ["strictend.py"], raising
    counting = sorted(path.name for path in (SRC / "cli").glob("*.py")
                      if "strict_count(" in path.read_text(encoding="utf-8"))
    assert counting == ["otlp_commands.py", "strictend.py"], counting


def _fresh_truncated_line_and_a_bad_one(home: Path, project: str = "-home-dev-project") -> Path:
    lines = [orjson.dumps(claude_user(S, "2026-11-01T10:00:00Z", "still here")), b"not json",
             orjson.dumps(claude_assistant(S, "2026-11-01T10:00:01Z", msg_id="m1", request_id="r1",
                                           usage=claude_usage(5, 7))),
             b'{"type":"assistant","message":{"id":"m2"']
    path = claude_session_file(home, S, [], project=project)
    path.write_bytes(b"\n".join(lines))  # (no newline at the end: an agent writing its last line)
    return path


def test_doctor_strict_counts_what_list_strict_counts(isolated_home: Path) -> None:
    _fresh_truncated_line_and_a_bad_one(isolated_home)
    listed, checked = invoke("--strict", "list"), invoke("--strict", "doctor")
    assert listed.exit_code == checked.exit_code == 1
    error = ("error: 1 warning (--strict); 1 more, a truncated last line of a file still being written, "
             "not counted")
    assert error in listed.stderr and error in checked.stderr, checked.stderr
    assert "Claude Code" in checked.stdout  # the report all the same


def test_doctor_strict_counts_the_warnings_read_not_their_redacted_paths(isolated_home: Path) -> None:
    path = _fresh_truncated_line_and_a_bad_one(isolated_home, project="DB_PASSWORD=hunter2hunter2")
    path.write_bytes(path.read_bytes().replace(b"\nnot json", b""))  # the unfinished line alone
    report = orjson.loads(invoke("doctor", "--json").stdout)
    assert report["warnings"] and all("hunter2" not in w["path"] for w in report["warnings"])
    assert invoke("--strict", "list").exit_code == 0
    assert invoke("--strict", "doctor").exit_code == 0  # (1 before: the masked path was not found)
    settled = time.time() - 3600
    os.utime(path, (settled, settled))
    failed = invoke("--strict", "doctor")
    assert failed.exit_code == 1 and "error: 1 warning (--strict)" in failed.stderr, failed.stderr


def test_prices_quiet_strict_says_why_it_fails(isolated_home: Path) -> None:
    result = invoke("--quiet", "--strict", "prices", "no-such-model-pass57")
    assert result.exit_code == 1
    assert "warning: model no-such-model-pass57: " in result.stderr, result.stderr
    assert result.stderr.rstrip().endswith("error: 1 warning (--strict)")
    assert "warning" not in invoke("--quiet", "prices", "no-such-model-pass57").stderr  # --quiet alone: quiet


# -- an agent's directory, named by its variable --------------------------------------------------


def test_an_agents_directory_is_read_by_one_rule(tmp_path: Path) -> None:
    from agentscan.errors import HookConfigError
    from agentscan.hooks.install import claude_user_dir, gemini_user_dir
    from agentscan.toolkit.paths import under_home

    home = tmp_path
    assert under_home(home, "~") == home and under_home(home, "~/x") == home / "x" == under_home(home, "~\\x")
    assert under_home(home, "~user/x") == Path("~user/x") and under_home(home, "/abs") == Path("/abs")
    for variable, user_dir, default in (("CLAUDE_CONFIG_DIR", claude_user_dir, home / ".claude"),
                                        ("GEMINI_CLI_HOME", gemini_user_dir, home / ".gemini")):
        tail = ".gemini" if variable == "GEMINI_CLI_HOME" else ""
        assert user_dir(home, {}) == user_dir(home, {variable: ""}) == default
        assert user_dir(home, {variable: "~"}) == home / tail
        assert user_dir(home, {variable: "~/cfg"}) == home / "cfg" / tail
        assert user_dir(home, {variable: "/elsewhere"}) == Path("/elsewhere") / tail
        with pytest.raises(HookConfigError, match=f"^{variable} is a relative path \\(cfg\\): "):
            user_dir(home, {variable: "cfg"})
    with pytest.raises(HookConfigError, match="Claude Code reads it from the directory it is started in; set it"):
        claude_user_dir(home, {"CLAUDE_CONFIG_DIR": "cfg"})
    with pytest.raises(HookConfigError, match=r"\(cfg\): set it to an absolute path, or unset it$"):
        gemini_user_dir(home, {"GEMINI_CLI_HOME": "cfg"})
    with pytest.raises(HookConfigError, match="names several directories"):
        claude_user_dir(home, {"CLAUDE_CONFIG_DIR": f"{home}/a,{home}/b"})
    copy = 'startswith(("~/", "~\\\\"))'
    copies = sorted(str(path.relative_to(SRC)) for path in SRC.rglob("*.py") if copy in path.read_text(encoding="utf-8"))
    assert copies == ["toolkit/paths.py"], copies


# -- the model of a run's kept sums: the provider's rule ------------------------------------------


def test_show_asks_the_provider_for_a_kept_runs_model() -> None:
    from agentscan.providers import get_provider
    from agentscan.providers.cursor import mostused
    from agentscan.readsums import CALLS
    from agentscan.usagegroups import GROUP_WIDTH

    def group(agent: str | None, model: str, calls: int) -> list:
        row: list = [agent, model, *[None] * (GROUP_WIDTH - 2)]
        row[CALLS] = calls
        return row

    groups = [group("run", "gpt-5", 1), group("run", "sonnet", 2), group(None, "gpt-5", 9), group("run", "default", 5)]
    assert get_provider("cursor").kept_model(groups, "run") == mostused.calls_model(groups, "run") == "sonnet"
    assert get_provider("claude").kept_model(groups, "run") is None  # (no such sums: no rule)
    text = (SRC / "scan" / "showing.py").read_text(encoding="utf-8")
    assert "agentscan.providers.cursor" not in text and "calls_model" not in text
    assert text.count("for group in sums.groups") == 1  # each run's groups found in one pass


# -- advisor calls -----------------------------------------------------------------------------


def test_advisor_calls_looks_the_requests_usage_up_once() -> None:
    from agentscan.providers.claude import usage

    source = inspect.getsource(usage.advisor_calls)
    assert source.count('record.get("message")') == 1 and source.count('.get("usage")') == 1, source


# -- no assertion skipped on this machine (root, Linux) ---------------------------------------------


def test_no_test_skips_as_root_or_where_the_platform_can_tell() -> None:
    # What those skips left unchecked runs simulated instead: a mode-000 file's EACCES by its
    # mode (``test_hardening_filesystem._deny_by_mode``), a platform with no /proc (a patched
    # ``liveness.supported``), and a secret's multi-line block inside a path, which POSIX allows.
    import re

    tests = Path(__file__).parent
    skips = re.compile(r"skipif\([^\n]*(geteuid\(\) == 0|\bROOT\b)|skipif\((liveness|running)\.supported\(\)"
                       r"|skip\(\"a multi-line block is never a path\"\)")
    found = sorted(f"{path.name}: {match.group(0)}" for path in tests.glob("test_*.py") if path.name != Path(__file__).name
                   for match in skips.finditer(path.read_text(encoding="utf-8")) if "not ROOT" not in match.group(0))
    assert found == [], found
