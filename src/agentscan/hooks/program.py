"""Which program a hook runs (``hooks install`` writes it, ``doctor`` judges it), and whether
it lives where it may vanish: a tool runner's cache.

The program is written by absolute path: an agent runs its hooks with its own ``PATH``
(an editor started from the desktop has another than the shell's), where ``agentscan``
by name may find another agentscan, or none.

``uvx agentscan`` (``uv tool run``) and ``pipx run agentscan`` run agentscan from an
environment they keep in their cache, which ``uv cache clean``/``prune`` or pipx
(after 14 days unused) removes: a hook installed from there then runs a program
that is gone, and every event is lost without a line in the hook error log.  So
``hooks install`` warns, and ``doctor`` notes it, while it is still there.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import sys
from pathlib import Path, PurePath
from typing import Mapping

from agentscan.toolkit.onpath import which

def hook_command(agent: str) -> str:
    """The command the agent will run: this very agentscan, by absolute path, so that it runs
    whatever the agent's ``PATH`` (an editor started from the desktop has its own)."""
    return f"{hook_program()} hook --agent {agent}"


def hook_program() -> str:
    """The words that run this agentscan (``this_program``), quoted for the agent's shell."""
    program, module = this_program()
    return shell_word(program) + (" -m agentscan" if module else "")


def run_as_command() -> bool:
    """Whether this process is agentscan's command line (its console script, or ``python -m
    agentscan``), or the live sender it starts (``python -m agentscan.otlp.live``, whose hints
    ``hooks status`` shows), not agentscan used as a library or under a test runner: only then
    does "this agentscan" name a program to suggest or compare."""
    ran = Path(sys.argv[0] if sys.argv else "")
    return (ran.stem == "agentscan" or (ran.name, ran.parent.name) == ("__main__.py", "agentscan")
            or (ran.name, ran.parent.name, ran.parent.parent.name) == ("live.py", "otlp", "agentscan"))


def agentscan_word() -> str:
    """What a hint that tells the user to run agentscan starts with: ``agentscan``, unless that
    name on this ``PATH`` is sure not to run this agentscan (none there, or another install's,
    as for a venv's agentscan run by its path or by ``python -m agentscan``): then the words
    that run this one (``hook_program``; ``invocation.program_word`` says ``python -m
    agentscan`` as it was run instead).  ``agentscan`` whenever it cannot tell: not run as
    the command line (a test, a library), or no path of its own (an embedded Python)."""
    if not run_as_command():
        return "agentscan"
    program, module = this_program()
    if not os.path.isabs(program):
        return "agentscan"
    found = which("agentscan")
    if found is not None and (os.path.normcase(install_dir(found, False)) == os.path.normcase(install_dir(program, module))
                              or _run_by_this_python(found)):
        return "agentscan"
    return hook_program()


def _run_by_this_python(script: str) -> bool:
    """Whether the console script ``script`` runs this very Python (its ``#!`` line): then it
    runs this agentscan too, from another folder (``pip install --user``'s ``~/.local/bin``
    beside a ``python3 -m agentscan`` of ``/usr/bin``).  Not resolved: every venv's
    ``python`` links to the one interpreter it was made from."""
    # Non-blocking, and a regular file only: an executable FIFO named agentscan on PATH
    # (another user's, in a shared folder) made a plain open() wait for a writer, for good.
    try:
        fd = os.open(script, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        first = os.read(fd, 4096).split(b"\n", 1)[0]
    except OSError:
        return False
    finally:
        os.close(fd)
    program = first[2:].strip().decode(errors="replace") if first.startswith(b"#!") else ""
    return bool(program) and bool(sys.executable) and os.path.normcase(program) == os.path.normcase(sys.executable)


def install_dir(program: str, module: bool) -> str:
    """The folder of the environment ``program`` runs agentscan from: a console script's own,
    through a link (``~/.local/bin/agentscan`` of pipx: its venv's); a Python's, not through
    its link (a venv's ``python`` links to the interpreter it was made from)."""
    if module:
        return os.path.realpath(os.path.dirname(os.path.abspath(program)))
    return os.path.dirname(os.path.realpath(program))


def this_program() -> tuple[str, bool]:
    """The program that runs this agentscan, and whether it is a Python run with ``-m agentscan``:
    the console script that ran (``…/bin/agentscan``), else the one beside this Python
    (``python -m agentscan`` in a venv that is not on ``PATH``), else this Python itself.
    Not ``agentscan`` by name: the agent's ``PATH`` may find another agentscan, or none, and
    the hook would silently run nothing."""
    program = installed_program()
    if program is None:
        python = sys.executable
        if python and os.path.isabs(python):
            return python, True
        program = which("agentscan") or "agentscan"  # an embedded Python: no better guess
    if os.name == "nt" and program[-4:].lower() == ".exe":
        # shutil.which spells it as PATHEXT does; ``agentscan.exe`` is how an entry is known as ours
        program = program[:-4] + ".exe"
    return program, False


def installed_program() -> str | None:
    """The absolute path of the ``agentscan`` console script of this very install, if there is one."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.name == "nt" and not os.path.isfile(argv0) and os.path.isfile(argv0 + ".exe"):
        argv0 += ".exe"  # a console script's launcher leaves its ``.exe`` out of argv[0]
    if Path(argv0).stem == "agentscan" and os.path.isfile(argv0):
        return os.path.abspath(argv0)
    if sys.executable and os.path.isabs(sys.executable):
        # Not resolved: a venv's python is a link to the base interpreter, its scripts are beside the link.
        beside = os.path.join(os.path.dirname(sys.executable), "agentscan.exe" if os.name == "nt" else "agentscan")
        if os.path.isfile(beside):
            return beside
    return None


def shell_word(text: str) -> str:
    """``text`` as one word of a command line a user's shell runs: POSIX quoting, and on
    Windows a path in forward slashes.  Claude Code runs hook commands there through Git
    Bash, which takes an unquoted backslash for an escape (``C:\\Users\\me\\x.exe`` runs
    ``C:Usersmex.exe``); ``C:/Users/me/x.exe`` means the same file to bash, PowerShell, cmd
    and Windows itself.  A path that needs quoting (a space) gets double quotes, which bash
    and cmd take; PowerShell, where Claude Code falls back without Git Bash, takes a quoted
    program only after its call operator ``&``, which bash refuses: no form serves both
    (docs/cli-hooks.md).  Single quotes only where bash would expand inside double ones."""
    if os.name != "nt":
        return shlex.quote(text)
    text = text.replace("\\", "/")
    if text and not _UNSAFE(text):
        return text
    return shlex.quote(text) if _EXPANDED_IN_QUOTES(text) else f'"{text}"'


#: what a Windows word may hold unquoted: shlex's set but any letter (``C:/Users/José``), no
#: ``,`` or ``=`` (cmd splits words there), and ``~`` only mid-word (a short name's ``JOHNSM~1``)
_UNSAFE = re.compile(r"[^\w@%+:./~-]|^~").search
#: what bash expands inside double quotes (``!``: interactive, as Claude Code runs it)
_EXPANDED_IN_QUOTES = re.compile(r'[$`"!]').search


#: the folders of uv's cache that hold environments (``archive-v0``: ``uvx``'s; ``builds-v0``:
#: the throwaway ones of ``uv run --with``): named so wherever ``UV_CACHE_DIR`` put the cache
_UV_BUCKETS = ("archive-v0", "builds-v0")
_UV = "uv's cache (where `uvx` keeps the environment it runs in), which `uv cache clean` or `uv cache prune` removes"
_PIPX = "pipx's cache (where `pipx run` keeps the environment it runs in), which pipx removes after 14 days unused"


def temporary_place(program: str, env: Mapping[str, str] | None = None) -> str | None:
    """What the cache ``program`` (an absolute path) is in says, or ``None`` for a place that lasts."""
    env = os.environ if env is None else env
    if not os.path.isabs(program):
        return None
    # A link (``~/.local/bin/agentscan`` of ``uv tool install`` or ``pipx install``) is judged
    # by where it is: its installer updates the link, which stays.
    parts = PurePath(os.path.abspath(program)).parts
    if any(bucket in parts for bucket in _UV_BUCKETS) or _under(program, env.get("UV_CACHE_DIR")):
        return _UV
    pipx = [index for index, part in enumerate(parts[:-1]) if part.lower() == "pipx" and parts[index + 1] == ".cache"]
    if pipx or _under(program, env.get("PIPX_VENV_CACHEDIR")):
        return _PIPX
    home = env.get("HOME") or os.path.expanduser("~")
    caches = [env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), os.path.join(home, "Library", "Caches")]
    cache = next((root for root in caches if _under(program, root)), None)
    return f"a cache directory ({cache}), which may be emptied at any time" if cache else None


def _under(path: str, root: str | None) -> bool:
    if not root or not os.path.isabs(root):
        return False
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(root)]) == os.path.abspath(root)
    except ValueError:  # another drive (Windows)
        return False


def install_warning(program: str, rerun: str, env: Mapping[str, str] | None = None) -> str | None:
    """What ``hooks install`` says of a program in such a place (``None``: nothing); ``rerun``:
    what to run with agentscan installed for good (``for_good``)."""
    place = temporary_place(program, env)
    if place is None:
        return None
    return (f"the hook runs agentscan from {place}: once it is gone, the hooks run nothing and every event is lost; "
            f"{for_good(rerun)}")


def for_good(then: str) -> str:
    """What to do about a hook run from a runner's cache (``install_warning``, ``doctor``'s note):
    install agentscan where it lasts, then ``then``: the install to run with it (``mendtext.
    install_command``, ``agentscan`` by name, the one just installed, with the ``--scope`` or
    ``--home`` given), or the edit by hand of a file no install writes back."""
    return f"install agentscan for good (`uv tool install agentscan` or `pipx install agentscan`), then {then}"
