"""``agentscan trace --list``: the sessions with captured hook events, as a table.

Its columns say what ``list``'s say, by the same names and in the same forms: ID (short on
a terminal, whole in a pipe), UPDATED, then EVENTS, CWD (``~/…`` on a terminal) and TITLE
(the first prompt).  On a terminal each row is one line, fitted to the width: TITLE and
CWD are cut first, then left out (CWD before TITLE, UPDATED last) rather than a time or a
count cut; as in ``list``, the TITLE keeps as many characters as ``list``'s (25) while CWD
is left to go, and is cut below that only once CWD is gone, after UPDATED is shortened
(``11-28 09:02``: ``list_text.timed_rows``).  In a pipe every cell is whole and there is
no colour.
"""

from __future__ import annotations

from typing import Any

from agentscan.cli.tableparts import TITLE_WANTS, Column


COLUMNS = (
    Column("ID", style="yellow"),
    Column("UPDATED", drop=1),
    Column("EVENTS", right=True),
    Column("CWD", flex=True, min_width=10, keep_end=True, drop=3),
    Column("TITLE", flex=True, min_width=12, weight=2, drop=2, wants=TITLE_WANTS),
)


def print_trace_list(as_json: bool, root: str | None = None, *, redact: bool = False) -> list[Any]:
    """``redact``: the TITLE (a prompt) as a length and a hash, secrets in CWD masked, as
    ``list --redact`` shows a session's.  The warnings (folders of the store that could not be
    listed, whose sessions are left out), in the JSON document or for the caller to say."""
    from agentscan.cli import render
    from agentscan.cli.table import left_out_note, print_table
    from agentscan.cli.term import clean, clean_path, title_text
    from agentscan.hooks import store
    from agentscan.hooks.listing import listed
    from agentscan.hooks.model import iso_ns
    from agentscan.scan.short_ids import short_ids
    from agentscan.timeutil import parse_iso, shown_time

    if root is None:
        from agentscan.datadir import check

        root = store.data_dir()
        check(root)  # a file: said so, not as a store with no events yet
    from agentscan.hooks.unlisted import unlisted_folders

    found = listed(root)
    unlisted = unlisted_folders(root)
    if redact:
        from dataclasses import replace

        from agentscan.export.redact import fingerprint_text, mask_secrets

        found = [replace(s, cwd=mask_secrets(s.cwd), title=fingerprint_text(s.title)) for s in found]
    if as_json:
        render.emit_json({"schema": "agentscan.trace-list/1", "data_dir": root,
                          "sessions": [s.to_json() for s in found], "warnings": [w.to_json() for w in unlisted]})
        return unlisted
    if not found and unlisted:
        from agentscan.toolkit.words import plural

        render.note(f"no hook events could be listed in {root}: "
                    f"{plural(len(unlisted), 'folder') if len(unlisted) > 1 else 'a folder'} of it could not be "
                    f"listed (see the {'warnings' if len(unlisted) > 1 else 'warning'})")
        return unlisted
    if not found:
        from agentscan.errors import empty_store_advice

        render.note(f"no hook events captured yet in {root}; {empty_store_advice(*installed_hooks())}")
        return unlisted
    term = render.terminal()
    sessions = [s.summary.session for s in found]
    shown = short_ids((s.agent, s.session_id) for s in sessions) if term.tty else {}
    # clean: an id, a path or a prompt is whatever the agent sent (an escape sequence, a
    # newline that would split the row)
    times = [shown_time(parse_iso(iso_ns(s.summary.updated_ns)), None) for s in found]
    from agentscan.cli.list_text import laid_out, timed_rows, with_zone
    from agentscan.cli.tableparts import Row

    columns = with_zone(COLUMNS, times)  # (as ``list`` names UPDATED's zone)
    rows = [Row([clean(shown.get(s.summary.session.id, s.summary.session.id)),
                 time.text,
                 render.full_number(s.summary.events, term),
                 render.path_text(clean_path(s.cwd), term),
                 title_text(s.title) or "-"]) for s, time in zip(found, times)]
    # UPDATED shortened, as ``list`` shortens it (``11-28 09:02``), rather than left out first
    # at 40 columns, where ``list`` kept it.
    rows, columns, planned = timed_rows(columns, rows, [parse_iso(iso_ns(s.summary.updated_ns)) for s in found],
                                        term, None, laid_out)
    hidden = print_table(columns, rows, term=term, planned=planned)
    left_out_note(hidden, columns, term)
    return unlisted


def installed_hooks() -> tuple[list[str], str | None]:
    """The agents (``Claude Code``, ``Cursor``) whose config, the user's or this project's, has
    agentscan's hook, and why their hook cannot store its events (``hooks.status.
    agents_store_problem``: only their folders judged), ``None`` when it can: said when no event
    has arrived, for the advice to fit (``errors.empty_store_advice``).  ``trace`` takes no
    ``--home``: this account's home."""
    import os
    from pathlib import Path

    from agentscan.context import ScanContext
    from agentscan.providers import label_of
    from agentscan.hooks.status import hooks_report

    env = dict(os.environ)
    try:
        cwd = Path.cwd()
    except OSError:  # a directory removed under the shell
        cwd = ScanContext.create(env=env).home
    report = hooks_report(home=ScanContext.create(env=env).home, cwd=cwd, env=env)
    names = list(dict.fromkeys(label_of(config["agent"]) for config in report["installed"]))
    return names, report["store"]["problem"] if names else None
