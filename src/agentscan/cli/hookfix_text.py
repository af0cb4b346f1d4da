"""What ``doctor`` and ``hooks status`` say of a hook config found amiss (installed in both
scopes, narrowed by a matcher, registered twice), each with the whole command that mends it."""

from __future__ import annotations

import json
import os
from typing import Any

from agentscan.cli import render
from agentscan.cli.term import Terminal, clean_path


def both_scopes_text(config: dict[str, Any], home_flag: str, term: Terminal, user: dict[str, Any] | None = None) -> str:
    """A project's config whose agent also runs agentscan's hook from the user's config (``user``,
    its report when known).  Each way out is a whole command, the project's with the directory to
    run it in (``--scope project`` is the current directory's, and doctor may run elsewhere than a
    newcomer reads it); for a file an uninstall will not write back (``by_hand``: comments, a key
    twice), an edit by hand of that file, naming agentscan's entries there."""
    from agentscan.hooks.mendtext import uninstall_fix
    from agentscan.providers import label_of

    agent = config["agent"]
    name = label_of(agent)
    shown = clean_path(render.path_text(config["also_installed"], term))
    from agentscan.cli.hooks_text import GEMINI_DIFFERS

    differ = GEMINI_DIFFERS if agent == "gemini" else ""
    project_out = by_hand_text(config, term) or uninstall_fix(agent, "project", home_flag,
                                                              directory=_project_dir(config, term))
    user_out = (by_hand_text(user, term) if user is not None else None) or uninstall_fix(agent, "user", home_flag)
    return (f"agentscan's hook is also installed in {shown}: {name} runs the hooks of both files{differ}, so each "
            f"event can be captured twice; to keep only the user's, {project_out}; to keep only this project's, {user_out}")


def by_hand_text(config: dict[str, Any], term: Terminal | None, verb: str = "remove {entries}") -> str | None:
    """``edit <file> by hand to <verb>``, its ``{entries}`` agentscan's entries named by their
    command, and why an install or uninstall will not change that file (``by_hand``: comments, a
    key twice, which the agent reads all the same); ``None`` for a file they change."""
    from agentscan.cli.term import clean
    from agentscan.hooks.mendtext import by_hand

    if not config.get("by_hand"):
        return None
    path = clean_path(config["path"] if term is None else render.path_text(config["path"], term))
    command = f" (`{clean(config['command'])}`)" if isinstance(config.get("command"), str) else ""
    entries = f"agentscan's entries{command}"
    return by_hand(path, verb.replace("{entries}", entries), clean(config["by_hand"]))


def _project_dir(config: dict[str, Any], term: Terminal | None) -> str:
    """The project a project-scope config belongs to (``<project>/.claude/settings.local.json``,
    ``<project>/.cursor/hooks.json``): where a ``--scope project`` command has to run (whole
    with no ``term``, as in a pipe)."""
    project = os.path.dirname(os.path.dirname(config["path"]))
    return clean_path(project if term is None else render.path_text(project, term))


def narrowed_text(config: dict[str, Any], home_flag: str, term: Terminal | None = None) -> str:
    """An install that is there but sits under a narrower matcher on some events (``"Bash"``):
    the agent runs it only for what the matcher matches, so the rest goes uncaptured.  Which
    events, under which matchers, and the command that widens it (``hooks.ourentries``)."""
    from agentscan.cli.term import clean

    # Written by whoever edited the config: an escape sequence there is shown, not obeyed.
    def matchers(item: dict[str, Any]) -> str:
        # A string as the config spells it; anything else (a list someone wrote) as JSON.
        return ", ".join(f'"{clean(matcher)}"' if isinstance(matcher, str) else clean(json.dumps(matcher))
                         for matcher in item["matchers"])

    where = ", ".join(f"{clean(item['event'])} (matcher {matchers(item)})" for item in config["narrowed"])
    agent, scope = config["agent"], config["scope"]
    return (f"narrowed: the {agent} hook ({scope} scope) is installed, but on {where} it captures only "
            f"the tools its matcher names; {_install_fix(config, home_flag, term, _WIDEN, ' to capture every tool')}")


def stored_twice_text(config: dict[str, Any], home_flag: str, term: Terminal | None = None) -> str:
    """A second agentscan entry on an event that already has one seeing every tool: the agent
    runs each, so the event is stored twice (``hooks install`` removes the extra ones)."""
    from agentscan.cli.term import clean

    where = ", ".join(f"{clean(item['event'])} ({item['entries']} entries)" for item in config["stored_twice"])
    agent, scope = config["agent"], config["scope"]
    # "may": an agent that runs identical commands once stores them once, one that runs each
    # entry twice (``hooks.repeats`` then counts the copies once, with a warning).
    return (f"stored twice: the {agent} hook ({scope} scope) is registered more than once on {where}, one "
            f"entry for every tool, so those events may be stored twice; "
            f"{_install_fix(config, home_flag, term, _ONE_EACH, ' to keep one')}")


#: what an edit by hand does for a narrowed entry, and for one registered twice (``_install_fix``)
_WIDEN = "remove the matcher of {entries} there, so that they capture every tool"
_ONE_EACH = "leave one of {entries} on each of those events"


def _install_fix(config: dict[str, Any], home_flag: str, term: Terminal | None, by_hand: str, tail: str) -> str:
    """``run `agentscan hooks install …```: the command that leaves one entry seeing every tool
    (a project's, with the directory to run it in); for a file an install will not write back,
    ``by_hand`` done by hand (``by_hand_text``), instead of the command and ``tail``."""
    from agentscan.hooks.mendtext import reinstall

    edit = by_hand_text(config, term, by_hand)
    if edit is not None:
        return edit
    directory = _project_dir(config, term) if config["scope"] == "project" else None
    return reinstall(config["agent"], config["scope"], bool(config.get("legacy")), again="", home_flag=home_flag,
                     directory=directory, tail=tail)
