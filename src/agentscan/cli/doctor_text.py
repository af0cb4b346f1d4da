"""Human-readable ``doctor`` output: per provider a small table of roots, then hooks and cache."""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from agentscan.cli import render
from agentscan.cli.hookfix_text import both_scopes_text, narrowed_text, stored_twice_text
from agentscan.cli.state import home_option
from agentscan.hooks.events import HOOK_AGENTS
from agentscan.hooks.mendtext import install_command
from agentscan.invocation import program_word
from agentscan.cli.table import render as render_table
from agentscan.cli.tablefit import layout
from agentscan.cli.tableparts import GAP, Column, Row
from agentscan.cli.term import (Terminal, clean_path, home_short_text, printable_line, width_of, wrap,
                                write_out)
from agentscan.timeutil import parse_iso
from agentscan.toolkit.andmore import cut_lines
from agentscan.toolkit.words import listed

# Nothing is cut: a status ("does not ex…" had lost the word that mattered) nor a path (cut,
# it could not be copied): a path too long for its column goes under its row, whole; when
# not even the other columns fit, ``_fitted`` says each row in prose.  A hook config's
# problem, of any length, goes under its table whole.
ROOT_COLUMNS = (
    Column("KIND"),
    Column("STATUS"),
    Column("FROM"),
    Column("PATH", flex=True, min_width=16, weight=2, keep_end=True),
)
HOOK_COLUMNS = (Column("AGENT"), Column("SCOPE"), Column("STATE"),
                Column("CONFIG", flex=True, min_width=16, weight=2, keep_end=True))


def _indented(columns: tuple[Column, ...], rows: list[list[str]], term: Terminal) -> list[str]:
    inner = term._replace(width=max(term.width - 2, 20))
    lines, _ = render_table(columns, rows, inner)
    return ["  " + line for line in lines]


#: the files named under a kind of warning; the rest are counted ("and 4 more files")
SHOWN_FILES = 3


def _fitted(columns: tuple[Column, ...], rows: list[list[str]], term: Terminal,
            prose: Callable[[list[str]], str]) -> list[str]:
    """The table of ``columns`` (all whole but the last, a path); on a terminal a path too
    long for its column goes whole on a line of its own under its row (``_path_below``),
    and on one too narrow for the other columns and the least of a path, each row is a
    line of ``prose`` instead, wrapped and never cut."""
    inner = term._replace(width=max(term.width - 2, 20))
    # Cells come from the provider's and the hooks' files (a path, an OS error): an escape
    # sequence in one is shown as U+FFFD here, before the table adds its own styling.
    rows = [[clean_path(cell) for cell in row] for row in rows]
    if not term.tty:
        return _indented(columns, rows, term)
    _, widths = layout(columns, [Row(row) for row in rows], inner)
    if sum(widths) + len(GAP) * (len(widths) - 1) > inner.width:
        return [line for row in rows for line in _lines(prose(row), term, "  ")]
    below = [width_of(row[-1]) > widths[-1] for row in rows]
    if not any(below):
        return _indented(columns, rows, term)
    lines = _indented(columns, [[*row[:-1], ""] if moved else row for row, moved in zip(rows, below)], term)
    out = lines[:1]  # the header
    for line, row, moved in zip(lines[1:], rows, below):
        out += [line, *([_path_below(row[-1])] if moved else [])]
    return out


def _path_below(path: str) -> str:
    """A path too long for its column, on a line of its own under its row, whole: cut (in its
    middle, ``~/.config/…/projects``, or from its start) it could not be copied, and this
    report is pasted into bug reports and its paths into a shell.  One longer than the
    line is left for the terminal to fold, as ``_lines`` leaves a path in prose."""
    return "      " + path


def _verbatim(texts: Sequence[str], indent: str = "    ") -> list[str]:
    """Commands and files to copy, one a line, as they are: never wrapped (the terminal folds
    a long one; a command broken in lines runs as two), a command never in backquotes
    (pasted, the shell would run what they hold) nor its home made ``~`` (inside a quoted
    ``--home`` the shell would not expand it).  Only a control character is replaced."""
    return [indent + printable_line(text) for text in texts]


def _warning_lines(provider: dict[str, Any], term: Terminal, read_flag: str) -> list[str]:
    """Each kind of warning, counted, with the files it came from (the first few), then the
    command that prints every warning with its file and line (``list -v``: on stderr)."""
    out: list[str] = []
    files_of = provider.get("warning_files") or {}
    for kind, count in provider["warnings"].items():
        files = files_of.get(kind) or []
        if not files:
            out += _lines(f"warning: {count} × {kind}", term, "  ")
            continue
        out += _lines(f"warning: {count} × {kind}, in {render.plural(len(files), 'file')}:", term, "  ")
        out += cut_lines(_verbatim([render.path_text(path, term) for path in files]), SHOWN_FILES, "file", indent="    ")
    if any(files_of.get(kind) for kind in provider["warnings"]):
        out += _lines("every warning with its file and line (on stderr):", term, "  ")
        out += _verbatim([f"{program_word()} list -v --provider {provider['provider']}{read_flag}"])
    return out


def _lines(text: str, term: Terminal, indent: str = "") -> list[str]:
    """A line of prose: on a terminal ``~`` for the home and wrapped (never cut:
    times, counts and paths stay whole); in a pipe as it is.  Either way a control character
    (an escape sequence in a finding, a hook error) is shown as U+FFFD: the text names
    ids, paths and messages read from the provider's and the hooks' files."""
    text = clean_path(text)
    if not term.tty:
        return [indent + text]
    # A path longer than the line is left whole (the terminal folds it): broken in two it
    # could not be copied, and this report is pasted into bug reports.
    return wrap(home_short_text(text), term.width, indent=indent, subsequent=indent + "    ", break_long_words=False)


def print_doctor(report: dict[str, Any], term: Terminal, short_ids: dict[str, str]) -> None:
    missing = "" if report.get("home_exists", True) else ": no such directory"
    source = report["home_source"]
    if source == "passwd":  # said why: a HOME left empty (``HOME= cmd``) is easy to miss
        source = f"passwd: HOME is {'empty' if os.environ.get('HOME') == '' else 'unset'}"
    out: list[str] = _lines(f"home: {render.path_text(report['home'], term)} (from {source}){missing}", term)
    out += zone_lines(term)
    # A command suggested must read the home this report read (``--home``), or it changes another one.
    home_flag = home_option(report["home"] if report.get("home_source") == "--home" else None)
    read_flag = " --demo" if report.get("home_source") == "--demo" else home_flag
    for provider in report["providers"]:
        newest = provider["newest"]
        newest_text = ""
        if newest:
            shown = clean_path(short_ids.get(newest["id"], newest["id"]) if term.tty else newest["id"])
            newest_text = f", newest {shown} (updated {render.short_time(parse_iso(newest['updated_at']))})"
        out += ["", *_lines(f"{provider['label']} [{provider['provider']}]: "
                            f"{render.plural(provider['sessions'], 'session')}{newest_text}", term)]
        rows = []
        # A root's note (what it holds, a setting ignored) goes under the table, whole: in the
        # STATUS column it was cut to fit, and the status it explained with it.
        notes: dict[str, list[str]] = {}
        for root in provider["roots"]:
            # (a database read but not whole has its problem beside readable: said in place of "ok")
            status = (root["problem"] or "ok") if root["readable"] else (root["problem"] or "unreadable")
            shown = clean_path(render.path_text(root["path"], term))
            if root["note"]:
                notes.setdefault(root["note"], []).append(shown)
            rows.append([root["kind"], status, root["source"], shown])
        out += _fitted(ROOT_COLUMNS, rows, term, lambda row: f"{row[0]}: {row[1]} (from {row[2]}): {row[3]}")
        for note, paths in notes.items():
            out += _lines(f"note: {', '.join(paths)}: {note}", term, "  ")
        for finding in provider["findings"]:
            out += _lines(f"finding: {finding}", term, "  ")
        out += _warning_lines(provider, term, read_flag)
    with_sessions = [provider["provider"] for provider in report["providers"] if provider["sessions"]]
    found = [name for name in with_sessions if name in HOOK_AGENTS]
    unhooked = [name for name in with_sessions if name not in HOOK_AGENTS]
    out += [""] + hook_lines(report.get("hooks"), term, home_flag, found, demo=read_flag == " --demo",
                             unhooked=unhooked)
    out += live_export_lines(report.get("hooks"), term)
    cache = report["cache"]
    state_text = ("disabled (--no-cache)" if not cache["enabled"] else cache.get("problem")
                  or ("present" if cache["exists"] else "not created yet"))
    out += ["", *_lines(f"cache: {render.path_text(cache['path'], term)} ({state_text}, "
                        f"{size_text(cache['bytes'])}, from {cache['source']})", term)]
    if cache.get("next_step"):  # a damaged index (``scan.cachecheck``)
        out += _lines(f"next: {cache['next_step']}", term, "  ")
    if cache.get("ignored"):
        # As the events store's note says of AGENTSCAN_DATA_DIR: a cron job's directory varies.
        out += _lines(f"note: AGENTSCAN_CACHE_DIR is a relative path ({cache['ignored']}), so it was ignored: "
                      "each run would keep its index in another directory; set an absolute path", term)
    for message in cache.get("warnings", ()):
        if not message.startswith("AGENTSCAN_CACHE_DIR is relative"):  # (the note above says it)
            out += _lines(f"warning: {message}", term, "  ")
    if (locks := report.get("locks") or {}).get("problem"):
        # Another user's /tmp/agentscan-<uid>: exports warn of it, and a cron job's doctor says it.
        out += _lines(f"export locks: {locks['problem']}; until then, runs of one output with other "
                      "AGENTSCAN_CACHE_DIRs are not kept apart", term, "  ")
    if locks.get("ignored"):  # as a relative AGENTSCAN_CACHE_DIR is said
        out += _lines(f"note: AGENTSCAN_LOCK_DIR is a relative path ({locks['ignored']}), so it was ignored: "
                      f"exports meet in {locks['path']}; set an absolute path", term, "  ")
    labels = {provider["provider"]: provider["label"] for provider in report["providers"]}
    for windows in report.get("windows_homes", ()):
        # WSL: agents run on the Windows side too, and agentscan reads one home (``scan.wslhomes``).
        names = listed([labels.get(name, name) for name in windows["providers"]])
        out += ["", *_lines(f"windows: {render.path_text(windows['home'], term)} holds {names}'s folders too "
                            f"(WSL): agentscan{home_option(windows['home'])} list reads them", term)]
    if not any(provider["sessions"] for provider in report["providers"]):
        out += ["", *_lines(_none_found(report), term)]
    # Every line is clean already: the untrusted parts (ids, paths, findings, hook errors)
    # were, in ``_lines``, ``_fitted`` and ``_verbatim``.  Cleaning the finished lines again
    # turned the ESC of the tables' own bold headers into U+FFFD ("\ufffd[1mKIND").
    write_out("\n".join(out) + "\n")


def _none_found(report: dict[str, Any]) -> str:
    """What a page of "does not exist" rows adds up to; a setting a level off: its finding's fix."""
    damaged = [f"{p['label']}'s" for p in report["providers"] for root in p["roots"]
               if root["kind"] == "database" and root["exists"] and root["problem"]]
    if damaged:
        # (where agentscan looked is not what is wrong: a database there could not be read,
        # Cursor's corrupt state DB holding every IDE chat; "set the variable" would mislead)
        if len(damaged) == 1:
            return f"no sessions found for any agent here, and {damaged[0]} database could not be used: see its STATUS above"
        return (f"no sessions found for any agent here, and {len(damaged)} databases ({listed(damaged)}) could not "
                "be used: see their STATUS above")
    meant = [setting for p in report["providers"] for setting in p["settings_meant"]]
    fix = (f"see the finding{'s' if len(meant) > 1 else ''} above (did you mean {listed(meant)}?)" if meant else
           "if your agents keep their files elsewhere, set the variable that moves them (the README's table of "
           "where agentscan looks), or read another home with --home DIR")
    return f"no sessions found for any agent here: {fix}"


def zone_lines(term: Terminal) -> list[str]:
    """The zone local times are printed in and what set it (``TZ``, ``/etc/localtime``):
    ``doctor`` takes no ``--tz``; ``list``, ``show`` and ``tokens`` print another with it.
    Of this process, not of the report: ``--json`` leaves it out (its times are UTC)."""
    from agentscan.scan.doctor import local_zone

    local = local_zone()
    if local.problem is not None:
        return [*_lines("time zone: UTC (from TZ)", term), *_lines(f"note: {local.problem}", term, "  ")]
    return _lines(f"time zone: {local.name} (from {local.source}; {local.now} now)", term)


def live_export_lines(hooks: dict[str, Any] | None, term: Terminal) -> list[str]:
    """One line for the hook's live OTLP export (``hook --otlp-endpoint``), from the counts in
    the events store's folder (the report's ``live_export``); none before its first span."""
    counts = hooks.get("live_export") if hooks is not None else None
    if counts is None:  # none sent yet: where the installed hooks will send, if they do (a setup checked)
        from agentscan.hooks.status import live_endpoints

        endpoints = live_endpoints(hooks) if hooks is not None else []
        return _lines(f"live OTLP export: to {', '.join(endpoints)}; nothing sent yet", term, "  ") if endpoints else []
    parts = [f"{counts['sent']:,} sent ({render.plural(counts['spans_sent'], 'span')})", f"{counts['failed']:,} failed"]
    parts += [f"{counts[key]:,} {key}" for key in ("dropped", "skipped", "pending") if counts[key]]
    problem = f"; last problem: {counts['last_problem']}" if counts["last_problem"] and (counts["failed"] or counts["dropped"] or counts["skipped"]) else ""
    return _lines(f"live OTLP export: {', '.join(parts)}{problem}", term, "  ")


#: what ``doctor`` and ``hooks status`` say when no hook is installed: that nothing is broken
HOOKS_OPTIONAL = ("not installed (optional: only agentscan trace needs them; "
                  "the other commands read the agents' own files)")


def _absent_store(path: str) -> str:
    """What the events store ``path`` that is no directory is: "not created yet" was said of an
    ``AGENTSCAN_DATA_DIR`` naming a file (the problem line under it says what that costs)."""
    if not os.path.lexists(path):
        return "not created yet"
    return "a file, not a directory" if os.path.isfile(path) else "not a directory"


def hook_lines(hooks: dict[str, Any] | None, term: Terminal, home_flag: str = "",
               found: Sequence[str] = (), *, demo: bool = False, unhooked: Sequence[str] = ()) -> list[str]:
    """``home_flag``: `` --home DIR`` when the report was made with one, for the commands it
    suggests; ``found``: the agents whose sessions the home holds, the ones an install is
    suggested for (both when it holds neither's); ``demo``: the demo home's report, which
    suggests no install (one would change the user's own home); ``unhooked``: the providers
    whose sessions the home holds and that have no hooks (``unhooked_text``)."""
    if hooks is None:
        return []
    lines = ["hooks:"]
    narrowed: list[str] = []
    problems: list[str] = []
    if hooks["configs"]:
        rows = []
        for config in hooks["configs"]:
            state = f"{config['events']}/{config['of']} events" if config["events"] else "not installed"
            if config["events"] and config["problem"]:  # (entries there, but not all well: never "8/8 events" alone)
                state = f"problem, {state}"  # (short: the row fits 80 columns with its path)
            if config.get("narrowed"):
                state += f", {len(config['narrowed'])} narrowed"
                narrowed.append(narrowed_text(config, home_flag, term))
            if config.get("stored_twice"):
                state += f", {len(config['stored_twice'])} stored twice"
                narrowed.append(stored_twice_text(config, home_flag, term))
            shown = clean_path(render.path_text(config["path"], term))
            if config["problem"]:
                state += ", see below"
                problems.append(f"problem: {shown}: {config['problem']}")
            if config.get("note"):  # another agentscan than this one, a project's two files: it works
                problems.append(f"note: {shown}: {config['note']}")
            if config.get("also_installed"):  # the user's config runs agentscan's hook too
                user = next((c for c in hooks["configs"] if c["path"] == config["also_installed"]), None)
                problems.append(f"note: {shown}: {both_scopes_text(config, home_flag, term, user)}")
            if config.get("source"):  # Claude Code's user settings where CLAUDE_CONFIG_DIR says
                problems.append(f"note: {shown}: Claude Code's user settings, chosen by {config['source']}")
            rows.append([config["agent"], config["scope"], state, shown])
        lines += _fitted(HOOK_COLUMNS, rows, term, lambda row: f"{row[0]} ({row[1]} scope): {row[2]}: {row[3]}")
    for text in problems + narrowed:
        lines += _lines(text, term, "  ")
    if not hooks["installed"] and demo:
        lines += _lines(f"not installed in the demo home (`{program_word()} hooks install` changes your own home's "
                        "config, never the demo's)", term, "  ")
    elif not hooks["installed"]:
        # One real command an agent: "--agent cursor|claude" pasted piped agentscan into `claude`.
        here = [agent for agent in HOOK_AGENTS if agent in found]
        # Optional, and said so: no hook reads like something broken.  One wording in ``doctor``
        # and ``hooks status`` (which reads no session: each agent that has hooks), worded for
        # the commands under it.
        # An agent whose user config the install would refuse (``"hooks": []``, not JSON), or
        # whose hooks it turns off: its install named alone failed the same way, so the file first.
        blocked = {config["agent"]: config["path"] for config in hooks["configs"]
                   if config["scope"] == "user" and config["problem"] and not config["events"]}
        asked = here or HOOK_AGENTS
        free = [agent for agent in asked if agent not in blocked]
        commands = [install_command(agent, "user", home_flag) for agent in free]
        lines += _lines(HOOKS_OPTIONAL, term, "  ")
        if commands:
            single = "to install, run:" if len(asked) == 1 else f"to install for {free[0]}, run:"
            lines += _lines(single if len(commands) == 1 else "to install, for each agent you use, run:", term, "  ")
            lines += _verbatim(commands)
        for agent in (agent for agent in asked if agent in blocked):
            lines += _lines(f"to install for {agent}, first fix {render.path_text(blocked[agent], term)} (the problem "
                            "above), then run:", term, "  ")
            lines += _verbatim([install_command(agent, "user", home_flag)])
    if unhooked:
        lines += _lines(unhooked_text(unhooked), term, "  ")
    store = hooks["store"]
    agents = ", ".join(f"{agent} {count:,}" for agent, count in sorted(store["by_agent"].items()))
    held = f"{render.plural(store['sessions'], 'session')}" + (f" ({agents})" if agents else "")
    where = render.path_text(store["path"], term)
    size = f", {size_text(store['bytes'])}" if store["exists"] else ""
    lines += _lines(f"events store: {where} (from {store['source']}): "
                    f"{held + size if store['exists'] else _absent_store(store['path'])}", term, "  ")
    if store.get("problem"):
        lines += _lines(f"problem: {store['problem']}", term, "  ")
    for folder in store.get("unlisted") or ():
        # (the message ends "(the hook events of the sessions in it are left out)")
        lines += _lines(f"problem: {render.path_text(folder['path'], term)}: {folder['message']}: the sessions "
                        "counted above are only those of the folders that could be listed", term, "  ")
    if store.get("default_store"):
        other = store["default_store"]
        lines += _lines(f"note: the default store {render.path_text(other['path'], term)} holds "
                        f"{render.plural(other['sessions'], 'session')} too: a hook the agent runs without "
                        "AGENTSCAN_DATA_DIR (an agent started from the desktop does not get your shell's variables) "
                        "stores there, where trace does not look while it is set", term, "  ")
    if store.get("ignored"):
        lines += _lines(f"note: AGENTSCAN_DATA_DIR is a relative path ({store['ignored']}), so it was ignored: each "
                        "hook runs in the agent's directory, and the events would be scattered; set an "
                        "absolute path", term, "  ")
    errors = hooks["errors"]
    if errors.get("problem"):
        lines += _lines(f"hook errors: {render.path_text(errors['path'], term)}: {errors['problem']}", term, "  ")
    elif errors["last"]:
        lines += _lines(f"last hook errors ({render.path_text(errors['path'], term)}):", term, "  ")
        for line in errors["last"]:
            lines += _lines(line, term, "    ")
    else:
        lines.append("  hook errors: none logged")
    return lines


def unhooked_text(names: Sequence[str]) -> str:
    """``Codex CLI: no hooks to install (…)``: the install suggested above names Claude Code
    and Cursor only, and a Codex user looked for the command they had been left out of.
    ``names``: the providers' keys, said by their display names as every sentence says them
    (``codex: no hooks …`` read as a command's word)."""
    from agentscan.providers import label_of

    theirs = "its" if len(names) == 1 else "their"
    return f"{', '.join(map(label_of, names))}: no hooks to install ({theirs} sessions are read from {theirs} files)"


def size_text(count: int) -> str:
    """A size in bytes as people read one: ``812 bytes``, ``45.1 kB``, ``12.3 MB``, ``1.4 GB``."""
    if count < 1000:
        return render.plural(count, "byte")
    for unit, scale in (("kB", 1e3), ("MB", 1e6)):
        if count < scale * 999.95:
            return f"{count / scale:.1f} {unit}"
    return f"{count / 1e9:,.1f} GB"


def print_hooks_status(hooks: dict[str, Any], term: Terminal, home_flag: str, *, demo: bool,
                       unhooked: Sequence[str] = ()) -> None:
    """``hooks status``: the hooks part of ``doctor``'s report, as doctor says it (``hook_lines``:
    the configs, the events store, the last hook errors; then the live OTLP export)."""
    write_out("\n".join(hook_lines(hooks, term, home_flag, demo=demo, unhooked=unhooked)
                        + live_export_lines(hooks, term)) + "\n")
