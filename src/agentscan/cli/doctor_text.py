"""Human-readable ``doctor`` output: per provider a small table of roots, then hooks and cache."""

from __future__ import annotations

import json
from typing import Any

from agentscan.cli import render
from agentscan.cli.state import home_option
from agentscan.cli.table import Column, render as render_table
from agentscan.cli.term import Terminal, home_short_text, wrap
from agentscan.timeutil import parse_iso

ROOT_COLUMNS = (
    Column("KIND"),
    Column("STATUS", flex=True, min_width=8),
    Column("FROM"),
    Column("PATH", flex=True, min_width=16, weight=2, keep_end=True),
)


def _indented(columns: tuple[Column, ...], rows: list[list[str]], term: Terminal) -> list[str]:
    inner = term._replace(width=max(term.width - 2, 20))
    lines, _ = render_table(columns, rows, inner)
    return ["  " + line for line in lines]


def _lines(text: str, term: Terminal, indent: str = "") -> list[str]:
    """A line of prose: on a terminal ``~`` for the home and wrapped (never cut:
    times, counts and paths stay whole); in a pipe as it is."""
    if not term.tty:
        return [indent + text]
    # A path longer than the line is left whole (the terminal folds it): broken in two it
    # could not be copied, and this report is pasted into bug reports.
    return wrap(home_short_text(text), term.width, indent=indent, subsequent=indent + "    ", break_long_words=False)


def print_doctor(report: dict[str, Any], term: Terminal, short_ids: dict[str, str]) -> None:
    missing = "" if report.get("home_exists", True) else ": no such directory"
    out: list[str] = _lines(f"home: {render.path_text(report['home'], term)} (from {report['home_source']}){missing}", term)
    for provider in report["providers"]:
        newest = provider["newest"]
        newest_text = ""
        if newest:
            shown = short_ids.get(newest["id"], newest["id"]) if term.tty else newest["id"]
            newest_text = f", newest {shown} (updated {render.short_time(parse_iso(newest['updated_at']))})"
        out += ["", *_lines(f"{provider['label']} [{provider['provider']}]: "
                            f"{render.plural(provider['sessions'], 'session')}{newest_text}", term)]
        rows = []
        # A root's note (what it holds, a setting ignored) goes under the table, whole: in the
        # STATUS column it was cut to fit, and the status it explained with it.
        notes: dict[str, list[str]] = {}
        for root in provider["roots"]:
            status = "ok" if root["readable"] else (root["problem"] or "unreadable")
            shown = render.path_text(root["path"], term)
            if root["note"]:
                notes.setdefault(root["note"], []).append(shown)
            rows.append([root["kind"], status, root["source"], shown])
        out += _indented(ROOT_COLUMNS, rows, term)
        for note, paths in notes.items():
            out += _lines(f"note: {', '.join(paths)}: {note}", term, "  ")
        for finding in provider["findings"]:
            out += _lines(f"finding: {finding}", term, "  ")
        for kind, count in provider["warnings"].items():
            out += _lines(f"warning: {count} × {kind}", term, "  ")
    # A command suggested must read the home this report read (``--home``), or it changes another one.
    home_given = report["home"] if report.get("home_source") == "--home" else None
    out += [""] + hook_lines(report.get("hooks"), term, home_option(home_given))
    cache = report["cache"]
    state_text = "disabled (--no-cache)" if not cache["enabled"] else ("present" if cache["exists"] else "not created yet")
    out += ["", *_lines(f"cache: {render.path_text(cache['path'], term)} ({state_text}, "
                        f"{cache['bytes'] / 1e6:.1f} MB, from {cache['source']})", term)]
    print("\n".join(out))


def hook_lines(hooks: dict[str, Any] | None, term: Terminal, home_flag: str = "") -> list[str]:
    """``home_flag``: `` --home DIR`` when the report was made with one, for the commands it suggests."""
    if hooks is None:
        return []
    lines = ["hooks:"]
    narrowed: list[str] = []
    if hooks["configs"]:
        rows = []
        for config in hooks["configs"]:
            state = f"{config['events']}/{config['of']} events" if config["events"] else "not installed"
            if config.get("narrowed"):
                state += f", {len(config['narrowed'])} narrowed"
                narrowed.append(_narrowed_text(config, home_flag))
            if config.get("stored_twice"):
                state += f", {len(config['stored_twice'])} stored twice"
                narrowed.append(_stored_twice_text(config, home_flag))
            if config["problem"]:
                state += f"; {config['problem']}"
            rows.append([config["agent"], config["scope"], state, render.path_text(config["path"], term)])
        columns = (Column("AGENT"), Column("SCOPE"), Column("STATE", flex=True, min_width=14),
                   Column("CONFIG", flex=True, min_width=16, weight=2, keep_end=True))
        lines += _indented(columns, rows, term)
    for text in narrowed:
        lines += _lines(text, term, "  ")
    if not hooks["installed"]:
        lines += _lines(f"not installed; see `agentscan hooks install --agent cursor|claude{home_flag}`", term, "  ")
    store = hooks["store"]
    agents = ", ".join(f"{agent} {count:,}" for agent, count in sorted(store["by_agent"].items()))
    held = f"{render.plural(store['sessions'], 'session')}" + (f" ({agents})" if agents else "")
    where = render.path_text(store["path"], term)
    lines += _lines(f"events store: {where} (from {store['source']}): "
                    f"{held if store['exists'] else 'not created yet'}", term, "  ")
    errors = hooks["errors"]
    if errors["last"]:
        lines += _lines(f"last hook errors ({render.path_text(errors['path'], term)}):", term, "  ")
        for line in errors["last"]:
            lines += _lines(line, term, "    ")
    else:
        lines.append("  hook errors: none logged")
    return lines


def _narrowed_text(config: dict[str, Any], home_flag: str) -> str:
    """An install that is there but sits under a narrower matcher on some events (``"Bash"``):
    the agent runs it only for what the matcher matches, so the rest goes uncaptured.  Which
    events, under which matchers, and the command that widens it (``hooks.merging``)."""
    from agentscan.cli.term import clean

    # Written by whoever edited the config: an escape sequence there is shown, not obeyed.
    def matchers(item: dict[str, Any]) -> str:
        # A string as the config spells it; anything else (a list someone wrote) as JSON.
        return ", ".join(f'"{clean(matcher)}"' if isinstance(matcher, str) else clean(json.dumps(matcher))
                         for matcher in item["matchers"])

    where = ", ".join(f"{clean(item['event'])} (matcher {matchers(item)})" for item in config["narrowed"])
    agent, scope = config["agent"], config["scope"]
    return (f"narrowed: the {agent} hook ({scope} scope) is installed, but on {where} it captures only "
            f"the tools its matcher names; {_install_fix(config, home_flag)} to capture every tool")


def _stored_twice_text(config: dict[str, Any], home_flag: str) -> str:
    """A second agentscan entry on an event that already has one seeing every tool: the agent
    runs each, so the event is stored twice (``hooks install`` removes the extra ones)."""
    from agentscan.cli.term import clean

    where = ", ".join(f"{clean(item['event'])} ({item['entries']} entries)" for item in config["stored_twice"])
    agent, scope = config["agent"], config["scope"]
    # "may": an agent that runs identical commands once stores them once, one that runs each
    # entry twice (``hooks.repeats`` then counts the copies once, with a warning).
    return (f"stored twice: the {agent} hook ({scope} scope) is registered more than once on {where}, one "
            f"entry for every tool, so those events may be stored twice; "
            f"{_install_fix(config, home_flag)} to keep one")


def _install_fix(config: dict[str, Any], home_flag: str) -> str:
    """``run `agentscan hooks install …```: the command that leaves one entry seeing every tool."""
    agent, scope = config["agent"], config["scope"]
    install = f"agentscan hooks install --agent {agent}" + (" --scope project" if scope == "project" else home_flag)
    if config.get("legacy"):
        # A project's shared settings.json, which installs no longer write: an uninstall cleans it.
        return f"run `agentscan hooks uninstall --agent {agent} --scope project`, then `{install}`,"
    return f"run `{install}`"
