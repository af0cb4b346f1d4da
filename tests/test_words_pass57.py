"""Pass 57, a demanding user's words (the leftovers of pass 56, and a walk through every command).

* ``tokens`` on a narrow terminal left INPUT and OUTPUT out before CACHE READ: the cache's
  parts go first now, as ccusage's narrow table leaves them out (tests/test_tokens_pass28.py
  pins the whole order at every width).
* Run as ``python -m agentscan``, errors said ``Try '/venv/bin/agentscan …'``, the console
  script beside that Python, under a help whose usage line said ``python -m agentscan``: both
  name the program as it ran now (tests/test_static_help.py pins the usage line), found on
  ``PATH`` by one walk (``toolkit.onpath.which``), which the first start imports alone.
* The "did you mean" of an id one character off offered a prefix that another session's run
  also begins (which the command then called ambiguous), or one ending in a dash, and never
  a subagent run's id.  One near id that fails (ambiguous) no longer drops the other.
* A usage error's command to copy (``--by day,model``: ``tokens --by day --breakdown``), and
  ``list --no-archived``'s ``list --archived``, left out the ``--demo`` or ``--home DIR`` of the
  command that said it.
* The ``C`` locale keeps UTF-8 output (Python's reading of it), as docs/cli.md says now.
* ``export``/``otlp -o`` into a folder that does not exist named the folder alone.
* ``-p openai`` told every command ``--grep gpt the model``, which only ``list`` has.
* ``prices`` in a pipe gave a name with no price an ABOVE of ``0``: ``-`` now.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, invoke

# --- the "did you mean" of an id one character off ---------------------------------------------

SESSION = "019cff87-1111-7000-8000-000000000001"
OTHER = "019d0000-2222-7000-8000-000000000002"
#: a run of OTHER whose id begins as SESSION's does, for eleven characters
RUN = "019cff87-1112-7000-8000-000000000003"


def _sessions_and_a_run(home: Path) -> None:
    for native in (SESSION, OTHER):
        claude_session_file(home, native, [
            claude_user(native, "2026-11-07T10:00:00.000Z", "work"),
            claude_assistant(native, "2026-11-07T10:00:01.000Z", msg_id=f"m-{native}", request_id=f"r-{native}",
                             usage=claude_usage(100, 10))])
    claude_subagent_file(home, OTHER, RUN, [
        claude_assistant(OTHER, "2026-11-07T10:00:02.000Z", msg_id="m-run", request_id="r-run",
                         usage=claude_usage(50, 5), sidechain=True)])


def test_a_prefix_another_session_s_run_also_begins_is_not_offered(isolated_home: Path) -> None:
    _sessions_and_a_run(isolated_home)
    # (the prefix it offered before, and what following it said)
    assert "is ambiguous" in invoke("show", "019cff87-11").stderr
    said = invoke("show", "019cff78-11")
    assert said.exit_code == 1
    assert "did you mean" not in said.stderr and "list --grep TEXT" in said.stderr
    # The session's short id, as ``list`` shows it, opens it: still offered.
    assert invoke("show", "019cff78").stderr.splitlines()[1] == "hint: did you mean 'claude:019cff87'?"


def test_a_near_id_is_offered_beside_an_ambiguous_one(isolated_home: Path) -> None:
    # ``019cff78-11`` is one slip from ``019cff87-11`` (a session's and another's run: ambiguous)
    # and from ``019cff79-11`` (one session): the ambiguous one left out, not the whole hint.
    _sessions_and_a_run(isolated_home)
    third = "019cff79-1111-7000-8000-000000000004"
    claude_session_file(isolated_home, third, [
        claude_user(third, "2026-11-07T10:00:00.000Z", "work"),
        claude_assistant(third, "2026-11-07T10:00:01.000Z", msg_id="m-third", request_id="r-third",
                         usage=claude_usage(100, 10))])
    said = invoke("show", "019cff78-11")
    assert said.stderr.splitlines()[1] == "hint: did you mean 'claude:019cff79-11'?"
    assert invoke("show", "claude:019cff79-11").exit_code == 0


def test_a_session_and_a_run_as_near_are_both_offered(isolated_home: Path) -> None:
    _sessions_and_a_run(isolated_home)
    lines = invoke("show", "019cff87-1113").stderr.splitlines()
    assert lines[1] == "hint: did you mean 'claude:019cff87-1111' or 'claude:019cff87-1112'?"


@pytest.mark.parametrize("typed, meant", [
    ("7f3c9a12x", "claude:7f3c9a12"),  # (``claude:7f3c9a12-``, its id's dash)
    ("9d2e4f61", "cursor:9d2e4f60"),  # a subagent run's own id (no hint before)
    ("a1b2c3e", "claude:a1b2c3d"),
])
def test_an_id_one_character_off_is_offered_one_that_opens_it(typed: str, meant: str) -> None:
    said = invoke("--demo", "show", typed)
    assert said.stderr.splitlines() == [f"error: no session matches {typed!r}", f"hint: did you mean {meant!r}?"]
    assert invoke("--demo", "show", meant).exit_code == 0


def test_a_session_and_its_run_as_near_are_both_offered_in_the_demo() -> None:
    # (``codex:019ac2d4`` alone before: the run ``019ac2d6`` is as near)
    lines = invoke("--demo", "show", "019ac2d7").stderr.splitlines()
    assert lines[1] == "hint: did you mean 'codex:019ac2d4' or 'codex:019ac2d6'?"


# --- a usage error's command to copy keeps the home ---------------------------------------------


def test_two_groupings_offer_breakdown_with_the_demo_flag() -> None:
    err = invoke("--demo", "tokens", "--by", "day,model").stderr
    assert "is `agentscan --demo tokens --by day --breakdown`" in err, err


def test_two_groupings_offer_the_export_of_the_same_home(isolated_home: Path) -> None:
    err = invoke("--home", str(isolated_home), "tokens", "--by", "day", "--by", "cwd").stderr
    assert f"`agentscan --home {isolated_home} export -f sqlite`" in " ".join(err.split()), err


# --- python -m agentscan ------------------------------------------------------------------------


def _ran_as_module(monkeypatch: pytest.MonkeyPatch, typed: list[str], executable: str) -> None:
    import agentscan

    monkeypatch.setattr(sys, "argv", [os.path.join(os.path.dirname(agentscan.__file__), "__main__.py"), "list"])
    monkeypatch.setattr(sys, "orig_argv", [*typed, "list"])
    monkeypatch.setattr(sys, "executable", executable)
    monkeypatch.setenv("PATH", "")


def test_python_m_is_named_as_it_was_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.invocation import module_word, program_word

    python = str(tmp_path / "venv" / "bin" / "python3")
    _ran_as_module(monkeypatch, ["python3", "-X", "importtime", "-m", "agentscan"], python)
    assert module_word() == program_word() == "python3 -m agentscan"
    # typed by a path (relative, or with a space): this Python by its absolute path, quoted
    spaced = str(tmp_path / "my venv" / "bin" / "python")
    _ran_as_module(monkeypatch, ["../my venv/bin/python", "-m", "agentscan"], spaced)
    assert program_word() == f"'{spaced}' -m agentscan"


def test_the_usage_line_of_python_m_looks_path_through_as_its_hints_do(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # ``entry`` walked ``PATH`` its own way, which skipped an empty entry (the current folder,
    # for the shell and ``shutil.which``): ``toolkit.onpath.which`` is now the one walk.
    import types

    from agentscan import entry

    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "agentscan").write_text("#!/bin/sh\n")
    (folder / "agentscan").chmod(0o755)
    monkeypatch.chdir(folder)
    _ran_as_module(monkeypatch, ["python3", "-m", "agentscan"], str(folder / "python3"))
    monkeypatch.setitem(sys.modules, "__main__", types.SimpleNamespace(__package__="agentscan"))
    monkeypatch.setenv("PATH", f":{tmp_path / 'none'}")
    assert entry._program_name() == "agentscan"


def test_python_m_help_imports_no_hook_module(tmp_path: Path) -> None:
    # (no ``agentscan`` on this ``PATH``: another install's would rightly ask ``hooks.program``)
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "agentscan", "--help"],
                          env=dict(os.environ, COLUMNS="100", PATH=str(tmp_path)), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("Usage:")
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "agentscan.entry" in imported
    assert not imported & {"agentscan.hooks.program", "shlex"}


def test_a_usage_error_of_python_m_names_it_as_its_usage_line_does() -> None:
    env = dict(os.environ, PATH="/usr/bin:/bin", COLUMNS="60")
    done = subprocess.run([sys.executable, "-m", "agentscan", "--demo", "tokens", "--by", "foo"], env=env,
                          capture_output=True, text=True, timeout=60)
    import shlex

    named = f"{shlex.quote(sys.executable)} -m agentscan"
    assert done.stderr.splitlines()[-1] == f"Try '{named} tokens --help' for help."
    usage = subprocess.run([sys.executable, "-m", "agentscan", "tokens", "--help"], env=env,
                           capture_output=True, text=True, timeout=60).stdout
    assert " ".join(usage.split("\n\n")[0].split()).startswith(f"Usage: {named} tokens [OPTIONS]")


# --- the C locale ---------------------------------------------------------------------------------


@pytest.mark.parametrize("locale, ascii_only", [({"LC_ALL": "C"}, False), ({}, False),
                                                ({"LC_ALL": "C", "PYTHONUTF8": "0"}, True)])
def test_the_c_locale_alone_keeps_utf8(locale: dict[str, str], ascii_only: bool) -> None:
    env = {name: value for name, value in os.environ.items()
           if name not in ("LANG", "LC_ALL", "LC_CTYPE", "PYTHONIOENCODING", "PYTHONUTF8")}
    done = subprocess.run([sys.executable, "-m", "agentscan", "--demo", "show", "019ac2d4"], env={**env, **locale},
                          capture_output=True, timeout=60)
    line = next(line for line in done.stdout.splitlines() if b"apply_patch" in line)
    assert line.endswith(b"with account~" if ascii_only else "with account\u2026".encode())


# --- an output in a folder that does not exist ----------------------------------------------------


@pytest.mark.parametrize("command", [["export", "-f", "jsonl"], ["otlp"]])
def test_an_output_in_no_folder_names_the_file_and_the_folder(tmp_path: Path, command: list[str]) -> None:
    target = tmp_path / "nope" / "out.jsonl"
    said = invoke("--demo", *command, "-o", str(target))
    # (before: ``error: /…/nope does not exist``, which read as the file, or a --home, missing)
    assert said.exit_code == 1
    assert said.stderr == f"error: cannot write {target}: the folder {target.parent} does not exist\n"


# --- -p openai: how each command picks the models -----------------------------------------------


@pytest.mark.parametrize("argv, pick", [
    (["list"], "-p picks the agent, --grep gpt the model)"),
    (["tokens"], "-p picks the agent, --by model counts each model)"),  # (``--grep``, which tokens has not, before)
    (["export", "-f", "jsonl", "-o", "-"], "-p picks the agent)"),
    (["prices"], "-p picks the agent)"),
])
def test_a_vendor_given_as_provider_is_told_the_command_s_own_option(argv: list[str], pick: str) -> None:
    said = invoke("--demo", *argv, "-p", "openai")
    assert said.exit_code == 2
    assert said.stderr.splitlines()[0] == (
        f"error: unknown provider 'openai'; choose from: claude, codex, gemini, cursor (OpenAI's models run in codex "
        f"and cursor sessions: {pick}")


def test_every_session_archived_offers_the_archived_list_of_the_same_home(isolated_home: Path,
                                                                         tmp_path: Path) -> None:
    import shutil

    from agentscan.demo import demo_home

    home = tmp_path / "archived-only"
    shutil.copytree(demo_home() / ".codex" / "archived_sessions", home / ".codex" / "archived_sessions")
    said = invoke("--home", str(home), "list", "--no-archived")
    # (before: ``agentscan list --archived``, which lists $HOME's)
    assert f"`agentscan --home {home} list --archived` lists them" in " ".join(said.stderr.split()), said.stderr


# --- prices in a pipe: a name with no price -----------------------------------------------------


def test_a_name_with_no_price_has_no_context_size_in_a_pipe() -> None:
    lines = invoke("--demo", "prices", "nosuch-model", "sonnet-4.5").stdout.splitlines()
    rows = [re.split(r" {2,}", line.strip()) for line in lines]
    assert rows[0][:3] == ["MODEL", "PRICED AS", "ABOVE"]
    assert rows[1] == ["nosuch-model", "no price", "-", "-", "-", "-", "-"]  # (ABOVE ``0`` before)
    assert rows[2][2] == "0" and rows[3][2] == "200000"  # a priced model's own prices, and its tier
