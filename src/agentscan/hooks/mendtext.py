"""How a fix of a hook config is said: the ``hooks install`` to run again, or, for a file an
install and an uninstall will not write back though the agent reads it (comments in Gemini
CLI's, a key twice, an administrator's file), the edit to make in it by hand.  One sentence for
every such edit (``by_hand``), whichever command says it: ``hooks status``, ``doctor``,
``hooks install``'s warnings.
"""

from __future__ import annotations

from typing import Any


def by_hand(path: object, action: str, why: str) -> str:
    """``edit <path> by hand to <action> (`agentscan hooks install` and `uninstall` will not
    change it: <why>)``: ``why`` says what in it stops them (``configjson.unwritable``,
    ``administrators``)."""
    from agentscan.invocation import program_word

    return (f"edit {path} by hand to {action} (`{program_word()} hooks install` and `uninstall` will not "
            f"change it: {why})")


def administrators(scope: str) -> str:
    """Why an entry in one of Gemini CLI's system files (``scope`` ``system-defaults`` or
    ``system``: ``geminionce.SCOPES``) is edited by hand (``by_hand``'s ``why``)."""
    name = "system defaults" if scope == "system-defaults" else "system settings"
    return f"it is Gemini CLI's {name}, an administrator's file"


def reinstall(agent: str, scope: str, legacy: bool, again: str = " again", home_flag: str = "") -> str:
    """The command that writes this agentscan's path into the config (``hooks install``
    updates the command of its entries in place), with the ``--home`` it was judged for
    (``home_flag``, a user's config); a project's shared settings.json, which installs no longer
    write, is cleaned by an uninstall first."""
    from agentscan.invocation import program_word

    word = program_word()
    install = f"{word} hooks install {agent}" + (" --scope project" if scope == "project" else home_flag)
    if legacy:
        return f"`{word} hooks uninstall {agent} --scope project`, then `{install}`"
    return f"`{install}`{again}"


def mend(report: dict[str, Any], edit: str, tail: str = "", again: str = " again", home_flag: str = "") -> str:
    """What mends the config of ``report``: ``run`` its install (``reinstall``), then ``tail``;
    for a file an install will not write back though the agent reads it (``by_hand``: comments,
    a key twice), ``edit`` done by hand in that file, and why the install will not do it."""
    if report["by_hand"] is None:
        return f"run {reinstall(report['agent'], report['scope'], report['legacy'], again, home_flag)}{tail}"
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
