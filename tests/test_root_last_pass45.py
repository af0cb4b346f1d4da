"""Pass 45, the last root mends: ``doctor`` says a setting's entry that is a file as the
warning does; a run with no provider variable set does not import ``scan.rootcheck``; the
entry test is written once (``toolkit.roots.entry_problem``); doctor learns whether a root
exists from ``toolkit.paths.root_check``, not from its words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user, invoke


def _a_file(path: Path) -> Path:
    path.write_text("not a folder\n")
    return path


def _codex_report(stdout: str) -> dict:
    (report,) = [r for r in orjson.loads(stdout)["providers"] if r["provider"] == "codex"]
    return report


def test_doctor_says_an_entry_that_is_a_file_as_the_warning_does(isolated_home: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``CODEX_HOME=afile,cx``: the warning says ``afile: a file, not a directory``; the rows
    under it say the same, never "does not exist" or "folder cannot be listed: Not a
    directory", and no "no state_*.sqlite in …/afile" note is added."""
    afile, good = _a_file(tmp_path / "afile"), tmp_path / "cx"
    (good / "sessions").mkdir(parents=True)
    monkeypatch.setenv("CODEX_HOME", f"{afile},{good}")
    result = invoke("doctor", "--json")
    report = _codex_report(result.stdout)
    under = [root for root in report["roots"] if root["path"].startswith(f"{afile}/")]
    assert [root["kind"] for root in under] == ["sessions", "sessions"], under  # no state_*.sqlite row
    assert all((root["exists"], root["readable"], root["problem"], root["note"])
               == (False, False, "afile: a file, not a directory", None) for root in under), under
    assert not any(str(afile) in (root["note"] or "") for root in report["roots"]), report["roots"]
    text = invoke("doctor").stdout
    assert "Not a directory" not in text and f"no state_*.sqlite in {afile}" not in text, text
    assert f"{afile}/sessions" in text and "afile: a file, not a directory" in text


def test_doctor_says_a_lone_entry_that_is_a_file_once(isolated_home: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``CODEX_HOME=afile`` alone: no root of Codex's can be read (``list -p codex`` fails,
    naming it); doctor's rows say the entry, and its warnings do not say each root below it
    again (``cannot list directory: Not a directory``, twice)."""
    afile = _a_file(tmp_path / "afile")
    monkeypatch.setenv("CODEX_HOME", str(afile))
    report = _codex_report(invoke("doctor", "--json").stdout)
    assert "cannot list directory" not in str(report), report
    assert {root["problem"] for root in report["roots"] if root["path"].startswith(f"{afile}/")} == {
        "afile: a file, not a directory"}
    failed = invoke("list", "-p", "codex")
    assert failed.exit_code == 1 and "(CODEX_HOME: a file, not a directory)" in failed.stderr


def test_a_database_folder_that_is_a_file_is_said_when_nothing_else_says_it(isolated_home: Path, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``CODEX_SQLITE_HOME`` naming a file: its pattern row is the only one under it, so it stays,
    with the entry's words."""
    afile = _a_file(tmp_path / "dbfile")
    monkeypatch.setenv("CODEX_SQLITE_HOME", str(afile))
    report = _codex_report(invoke("doctor", "--json").stdout)
    (root,) = [root for root in report["roots"] if root["kind"] == "database"]
    assert (root["path"], root["problem"], root["note"]) == (f"{afile}/state_*.sqlite",
                                                              "dbfile: a file, not a directory", None)


_IMPORTS_OF_A_RUN = (
    "import sys; sys.argv[0] = 'agentscan'\n"
    "import agentscan.scan.memo\n"
    "agentscan.scan.memo.SETTLE_NS = 0\n"
    "from agentscan.entry import main\n"
    "try:\n    main()\n"
    "finally:\n    print('imported:', 'agentscan.scan.rootcheck' in sys.modules, file=sys.stderr)\n"
)


@pytest.mark.parametrize("argv", [["list"], ["tokens"], ["list", "--json"]])
def test_a_run_with_no_provider_variable_does_not_import_rootcheck(argv: list[str], isolated_home: Path,
                                                                   tmp_path: Path) -> None:
    """Cold and warm: ``Scanner.confine`` asks ``toolkit.roots.named_explicitly`` first.  With
    a provider variable set, rootcheck is imported and warns of a missing entry."""
    sid, ts = "5f0c8d3e-1111-4222-8333-444455556666", "2026-05-01T10:00:00Z"
    claude_session_file(isolated_home, sid, [
        claude_user(sid, ts, "fix the parser", cwd="/work/app"),
        claude_assistant(sid, ts, msg_id="m1", request_id="r1", usage=claude_usage(1, 2, 3, 4), cwd="/work/app"),
    ])

    def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-c", _IMPORTS_OF_A_RUN, *argv], capture_output=True, text=True,
                              timeout=60, env=env)
        assert done.returncode == 0 and done.stdout, done.stderr
        return done

    plain = [run(dict(os.environ)) for _ in range(2)]
    assert [done.stderr.rsplit("imported:", 1)[1].split() for done in plain] == [["False"], ["False"]]
    named = dict(os.environ, CLAUDE_CONFIG_DIR=f"{isolated_home / '.claude'},{tmp_path / 'gone'}")
    done = run(named)
    assert done.stderr.rsplit("imported:", 1)[1].split() == ["True"]
    said = "no such file or directory (named by CLAUDE_CONFIG_DIR); skipped"  # in the JSON with --json
    assert said in done.stdout + done.stderr and str(tmp_path / "gone") in done.stdout + done.stderr


def test_the_entry_test_is_written_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``rootcheck._entry_said`` asks ``toolkit.roots.entry_problem`` whether the entry is a
    folder (as ``unreadable_message`` and doctor do), never ``root_problem`` of it again."""
    from agentscan.scan import rootcheck
    from agentscan.toolkit.paths import A_FILE, MISSING
    from agentscan.toolkit.roots import Root

    afile = _a_file(tmp_path / "afile")
    roots = [Root("codex", afile / sub, "CODEX_HOME", "sessions", True, None, afile)
             for sub in ("sessions", "archived_sessions")]
    found = [(root, MISSING) for root in roots]
    assert rootcheck._entry_said(afile, list(found)) == A_FILE
    gone = tmp_path / "gone"
    assert rootcheck._entry_said(gone, [(root._replace(path=gone / "sessions", entry=gone), MISSING)
                                        for root in roots]) == MISSING
    asked: list[tuple[Root, bool]] = []

    def said(root: Root, *, missing: bool = False) -> str:
        asked.append((root, missing))
        return "said once"

    monkeypatch.setattr(rootcheck, "entry_problem", said)
    assert rootcheck._entry_said(afile, list(found)) == "said once" and asked == [(roots[0], True)]


def test_doctor_takes_whether_a_root_exists_from_root_check_not_its_words(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import doctor
    from agentscan.toolkit.paths import RootCheck, root_check, root_problem

    loop = tmp_path / "loop"
    os.symlink(loop, loop)  # a link to itself: stat fails (ELOOP), the link is there
    below = loop / "x"
    for path, exists in [(loop, True), (below, False)]:
        check = root_check(path, "sessions")
        assert check.exists is exists and check.problem == root_problem(path, "sessions"), check
        assert check.problem is not None and check.problem.startswith("cannot be read: ")
        assert doctor._check(path, "sessions") == (exists, False, check.problem)
    # Words doctor never saw: whether it is there is root_check's to say.
    for exists in (True, False):
        monkeypatch.setattr(doctor, "root_check", lambda path, kind, exists=exists: RootCheck(exists, "oddly unread"))
        assert doctor._check(tmp_path, "sessions") == (exists, False, "oddly unread")


def test_doctor_counts_a_list_entry_s_warning_for_the_provider_whose_variable_names_it(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``CODEX_HOME=afile,cx``: said as the first discovery begins (Claude Code's, in doctor's
    order), its warning is Codex CLI's in the report, not Claude Code's."""
    afile, good = _a_file(tmp_path / "afile"), tmp_path / "cx"
    (good / "sessions").mkdir(parents=True)
    monkeypatch.setenv("CODEX_HOME", f"{afile},{good}")
    reports = {report["provider"]: report for report in orjson.loads(invoke("doctor", "--json").stdout)["providers"]}
    assert reports["codex"]["warnings"] == {"a file, not a directory (named by CODEX_HOME); skipped": 1}
    assert reports["claude"]["warnings"] == {}
