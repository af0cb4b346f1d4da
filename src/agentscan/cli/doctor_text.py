"""Human-readable ``doctor`` output: per provider a small table of roots, then hooks and cache."""

from __future__ import annotations

from typing import Any

from agentscan.cli import render
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
    return wrap(home_short_text(text), term.width, indent=indent, subsequent=indent + "    ")


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
    out += [""] + hook_lines(report.get("hooks"), term)
    cache = report["cache"]
    state_text = "disabled (--no-cache)" if not cache["enabled"] else ("present" if cache["exists"] else "not created yet")
    out += ["", *_lines(f"cache: {render.path_text(cache['path'], term)} ({state_text}, "
                        f"{cache['bytes'] / 1e6:.1f} MB, from {cache['source']})", term)]
    print("\n".join(out))


def hook_lines(hooks: dict[str, Any] | None, term: Terminal) -> list[str]:
    if hooks is None:
        return []
    lines = ["hooks:"]
    if hooks["configs"]:
        rows = []
        for config in hooks["configs"]:
            state = f"{config['events']}/{config['of']} events" if config["events"] else "not installed"
            if config["problem"]:
                state += f"; {config['problem']}"
            rows.append([config["agent"], config["scope"], state, render.path_text(config["path"], term)])
        columns = (Column("AGENT"), Column("SCOPE"), Column("STATE", flex=True, min_width=14),
                   Column("CONFIG", flex=True, min_width=16, weight=2, keep_end=True))
        lines += _indented(columns, rows, term)
    if not hooks["installed"]:
        lines += _lines("not installed; see `agentscan hooks install --agent cursor|claude`", term, "  ")
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
