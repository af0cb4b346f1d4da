"""How a fix of a hook config is said: the ``hooks install`` to run again, the ``hooks
uninstall`` that removes a second copy, each with the ``--scope``, ``--home`` and directory it
needs, or, for a file an install and an uninstall will not write back though the agent reads it
(comments in Gemini CLI's, a key twice, an administrator's file), the edit to make in it by hand.
One sentence for each (``reinstall``, ``uninstall_fix``, ``by_hand``), whichever command says
it: ``hooks status``, ``doctor``, ``hooks install``'s warnings.
"""

from __future__ import annotations

from typing import Any


def by_hand(path: object, action: str, why: str) -> str:
    """``edit <path> by hand to <action> (`agentscan hooks install` and `uninstall` will not
    change it: <why>)``: ``why`` says what in it stops them (``HookConfigError.unwritten``,
    ``geminionce.administrators``)."""
    from agentscan.invocation import program_word

    return (f"edit {path} by hand to {action} (`{program_word()} hooks install` and `uninstall` will not "
            f"change it: {why})")


def install_command(agent: str, scope: str, home_flag: str = "", word: str | None = None) -> str:
    """``agentscan hooks install AGENT`` for ``scope`` (``--scope project`` for a project's
    config), with the ``--home`` it was judged for (``home_flag``: left out, a user's command
    would change another home's config, and a project's would judge it with another home's
    user settings, which Gemini CLI merges with it); ``word``: the program's words
    (``program_word``)."""
    from agentscan.invocation import program_word

    return f"{word or program_word()} hooks install {agent}" + (" --scope project" if scope == "project" else "") \
        + home_flag


def rerun_installed(agent: str, scope: str, home_flag: str = "") -> str:
    """``run`` this install again with the agentscan installed for good (``agentscan`` by name:
    ``program.for_good``'s then), its ``--scope`` and ``--home`` kept: the fix of a hook that
    runs agentscan from uvx's or pipx run's cache (``hooks install``'s warning, ``status``' note)."""
    return f"run `{install_command(agent, scope, home_flag, 'agentscan')}` with it"


def uninstall_command(agent: str, scope: str, home_flag: str = "", named: bool = False) -> str:
    """``agentscan hooks uninstall AGENT``, its scope and ``--home`` as ``install_command``'s;
    ``named``: the user's scope named too (``--scope user``, beside a project's in one warning)."""
    from agentscan.invocation import program_word

    named_scope = " --scope project" if scope == "project" else " --scope user" if named else ""
    return f"{program_word()} hooks uninstall {agent}{named_scope}{home_flag}"


def reinstall(agent: str, scope: str, legacy: bool, again: str = " again", home_flag: str = "",
              directory: object = None, tail: str = "") -> str:
    """``run`` the command that writes this agentscan's path into the config (``hooks install``
    updates the command of its entries in place), with the ``--home`` it was judged for
    (``home_flag``: ``install_command``'s), ``again``, then ``tail`` (what it does); a project's shared
    settings.json, which installs no longer write, is cleaned by an uninstall first (its
    ``tail`` after a comma: it is both commands').  ``directory``: the project a project's
    command is run in, said with it (``doctor`` may run elsewhere than its reader), before both
    commands of a shared settings.json's."""
    install = f"`{install_command(agent, scope, home_flag)}`"
    if legacy:
        first = f"in {directory}, run" if directory is not None else "run"
        return f"{first} `{uninstall_command(agent, 'project', home_flag)}`, then {install}" + (f",{tail}" if tail else "")
    return f"run {install}" + (f" in {directory}" if directory is not None and scope == "project" else "") + again + tail


def uninstall_fix(agent: str, scope: str, home_flag: str = "", *, directory: object = None,
                  path: object = None, why: str | None = None, entries: str = "agentscan's entries",
                  named: bool = False) -> str:
    """What removes agentscan's entries from one config: ``run`` its uninstall (a project's in
    ``directory``, a user's with ``home_flag``), or, for a file an uninstall will not write back
    (``why``: ``by_hand``'s), the edit by hand of ``path`` that removes ``entries``.  ``named``:
    ``uninstall_command``'s."""
    if why:
        return by_hand(path, f"remove {entries}", why)
    where = f" in {directory}" if directory is not None and scope == "project" else ""
    return f"run `{uninstall_command(agent, scope, home_flag, named)}`{where}"


def each(fixes: list[str]) -> str:
    """Two or more fixes, each needed (``run `A`, then `B` in DIR``): a second ``run`` is not
    said again."""
    said = fixes[:1]
    for before, fix in zip(fixes, fixes[1:]):
        both = before.startswith("run ") and fix.startswith("run ")
        said.append(f"then {fix.removeprefix('run ')}" if both else f"and {fix}")
    return ", ".join(said)


def mend(report: dict[str, Any], edit: str, tail: str = "", again: str = " again", home_flag: str = "") -> str:
    """What mends the config of ``report``: ``run`` its install (``reinstall``), then ``tail``;
    for a file an install will not write back though the agent reads it (``by_hand``: comments,
    a key twice), ``edit`` done by hand in that file, and why the install will not do it."""
    if report["by_hand"] is None:
        return reinstall(report["agent"], report["scope"], report["legacy"], again, home_flag, tail=tail)
    return by_hand(report["path"], edit, report["by_hand"])


def set_command(agent: str) -> str:
    """The edit by hand that points agentscan's entries at this agentscan (``mend``)."""
    from agentscan.hooks.program import hook_command

    return f"set the command of agentscan's entries to `{hook_command(agent)}`"


def copy_entry(event: str, events: int) -> str:
    """The edit by hand that adds agentscan's entry to the ``events`` it is missing from: a copy
    of its entry on ``event``, in the same file.  Not a command to write: the one shown has an
    endpoint's credentials masked (``shown_command``), and pasted it would send nowhere."""
    return f"copy agentscan's entry on {event} to {'it' if events == 1 else 'them'}"
