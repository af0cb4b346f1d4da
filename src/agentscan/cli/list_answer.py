"""``list`` over unchanged files: the page printed again instead of made (``scan.answers``).

A warm ``list`` reads its 25 rows from the index, prices them and prints them;
most of its time goes to importing what that takes (the model's dataclasses,
orjson, the price book).  While no provider's files changed (their census), nor
the prices, the options, the terminal or ``$HOME``, the page is the same but for
one thing: which of its sessions a process holds open now (``running``, the
``*`` beside an id on a terminal).  So the page is kept with each shown
session's files and whether it was running, and printed again only while every
one still is, or still is not.

Options that depend on the clock (``--since``, ``--until``: ``3d`` is another time on
every run) or choose by process
(``--running``, ``--pid``) make the page anew every time, as does an empty page
(its explanation looks at other providers), one showing a row its provider may
revise without a file changing (``Provider.revised_by_the_index``), and one larger
than ``PAGE_BYTES``, or than ``KEPT_BYTES`` once compressed.
"""

from __future__ import annotations

from os import fspath
from typing import TYPE_CHECKING, Any

from agentscan.cli import recorded, render
from agentscan.cli.optionvalues import parse_window, reject_blank
from agentscan.cli.state import end_progress, start_prices_on_a_first_run
from agentscan.scan import answers
from agentscan.scan.memo import MAX_WARNINGS
from agentscan.sealing import framed, unframed

if TYPE_CHECKING:
    from datetime import tzinfo

    from agentscan.cli.state import State
    from agentscan.model import SessionRef, SessionRow
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.listing import SessionPage
    from agentscan.scan.scanner import Scanner

#: the pages kept, each for its own options: the ones stored last (a page printed
#: again is not stored again, so one asked for often can give way to new ones)
KEPT = answers.KEPT_SLOTS
#: the most a kept page takes in the index, compressed (``PACKED``) when its frame is larger:
#: sixteen of a heavy user's ``list --all --json`` (15 MB) would grow the index by hundreds of MB
KEPT_BYTES = 4 * 1024 * 1024
#: a larger page is made every time, told before its witness is made or its frame compressed:
#: zlib (level 3) packs ``list``'s frames at most ~4.7 to 1 (the bench's scale 10: 18 MB of
#: ``list --all --json`` to 3.8 MB, 6 MB of text to 2.5 MB), so a frame over 5 times
#: ``KEPT_BYTES`` would be compressed on every run, 0.1 s each, to be thrown away (at 32 MiB
#: every page from ~18 MB up was).  ``list --all`` at scale 10 is 4 MB of text, 16 MB of JSON:
#: kept compressed, printed again in 0.2 and 0.35 CPU-s, not made in 1.6 and 1.4.
PAGE_BYTES = 5 * KEPT_BYTES
#: a kept page's first bytes when it is stored compressed (``zlib``); a frame begins with a digit
PACKED = b"z"


def print_page(state: State, scanner: Scanner, *, limit: int | None, providers: list[str], since: str | None,
               grep: str | None, cwd: str | None, running: bool, pid: int | None, redact: bool, as_json: bool,
               zone: tzinfo | None = None, until: str | None = None, archived: bool | None = None,
               reverse: bool = False) -> None:
    """Print ``list``'s page (``limit``: ``None`` for every session), remembered or made;
    ``zone``: ``--tz``, the zone of its times and of a bare ``--since``/``--until`` (``None``: local);
    ``reverse``: the same sessions, oldest first (``--reverse``, as ``git log --reverse``: the
    newest ``limit`` chosen, then printed in the opposite order)."""
    reject_blank(since=since, until=until, cwd=cwd, grep=grep)
    # --cwd . and --cwd ../api mean what they mean in a shell.
    if cwd:
        from agentscan.scan.cwdmatch import asked_directory

        cwd = asked_directory(cwd)
    remember = since is None and until is None and not running and pid is None
    # (``--reverse`` added only when given: the pages kept for the other options keep their slots)
    options = [limit, providers, grep, cwd, redact, archived, *(["reverse"] if reverse else [])]
    # Each set of options kept apart: ``list`` and ``list --all`` asked in turn both stay.
    slot = answers.slot_of(repr(options))
    question: dict[str, Any] = {"options": options, "slot": slot, "tz": answers.zone_identity(zone)}
    shows_liveness = as_json  # every row's ``running``
    if not as_json:
        term = render.terminal()
        shows_liveness = term.tty  # the ``*`` of a running session
        question["text"] = recorded.terminal_facts(term)
        if term.tty:
            # A narrow terminal's UPDATED gives a recent time by its day, an older one by its
            # date (``list_text.compact_time``): which is which changes with the day.
            question["today"] = render.today(zone).isoformat()
    command = "list" if as_json else "list-text"
    start_prices_on_a_first_run(scanner)
    # Any provider's sessions can name another's project (a Gemini cwd): every census counts.
    key = answers.answer_key(scanner, command, question, providers, witnesses=True) if remember else None
    known = answers.recall(scanner, command, question, key)
    again = _printable(known.answer, as_json, shows_liveness) if known is not None else None
    if known is not None and again is not None:
        recorded.print_again("list", again, scanner, known)
        return
    from agentscan.scan.listfilter import ListFilter

    # ``--until`` as ``tokens`` takes it: a date, week or month up to its end.
    since_at, until_at = parse_window(since, until, zone)
    filters = ListFilter(providers=tuple(providers), since=since_at, until=until_at,
                         grep=grep, cwd=cwd, running=running, pid=pid, archived=archived)
    with scanner.ctx.warnings.capture(MAX_WARNINGS) as raised:
        printed = _make_page(state, scanner, filters, limit, redact, as_json, zone, reverse)
    if key is not None and printed is not None:
        answers.remember(scanner, command, question, key, printed, raised, kept=KEPT)


def _make_page(state: State, scanner: Scanner, filters: ListFilter, limit: int | None, redact: bool,
               as_json: bool, zone: tzinfo | None = None, reverse: bool = False) -> bytes | None:
    """Make the page and print it; what was printed, framed after what it depends on
    (``_witness``); ``None``: not to be kept (``_kept``)."""
    from agentscan.pricing import PriceBook
    from agentscan.scan import priceahead
    from agentscan.scan.costs import with_costs

    priceahead.start(scanner)  # a first run: genai-prices imported by a helper while sessions are read
    # A table off a terminal shows no ``*`` (``list_text``): 15,000 rows' ``running``, asked
    # of ``/proc`` and Claude's registry, were a tenth of a ``list --all`` made anew.
    page = scanner.list_page(limit=limit, filters=filters, tell_running=as_json or render.terminal().tty)
    if reverse:
        page = page._replace(rows=page.rows[::-1])
    book = PriceBook(scanner.ctx, scanner.cache)
    refs = scanner.refs_by_id(row.id for row in page.rows)
    # A row its provider may revise with no file changed (a Codex count made exact by a later
    # full pass, kept in the index) would be printed stale: such a page is made every time.
    revisable = any(scanner.provider(row.provider).revised_by_the_index(row) for row in page.rows)
    keep = bool(page.rows) and not revisable
    rows = with_costs(scanner, page.rows, refs, book)
    if _stores_unread(scanner, rows):
        from agentscan.scan.unreadrows import with_archived_unknown

        # Not known (a Cursor chat read without its state DB): ``null``, ``(archived?)``, never "not archived".
        rows = with_archived_unknown(scanner, refs, rows)
    if redact:
        from agentscan.export.redact import redact_row

        rows = [redact_row(row) for row in rows]
    end_progress()
    if as_json:
        import orjson

        # ``more``: a script reading a page of 25 learns that it is one (``--all`` for every session).
        doc: dict[str, Any] = {"sessions": _rows_json(scanner, rows, refs), "more": page.more}
        if page.running_unknown is not None:
            # What ``--running``/``--pid`` could not tell, and left out: a field of its own, not
            # a warning (nothing failed to be read; ``--strict`` would fail every run).
            doc["running_unknown"] = page.running_unknown
        if page.archived_unknown is not None:
            # (as ``running_unknown``: what ``--archived``/``--no-archived`` could not tell, and left out)
            doc["archived_unknown"] = page.archived_unknown
        doc["prices"] = book.data.to_json()
        body = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
        render.emit_json_body("list", body, scanner.ctx.warnings.listed())
        return _kept(body, page.rows, refs) if keep else None
    if not rows:
        # ``--cwd`` emptied it: a window (or ``--running``) that left out the folder's own sessions,
        # said; else the project the folder nearly names (``--cwd weather``: ``~/src/weather-app``).
        outside, near = None, None
        if page.emptied_by == "cwd":
            from agentscan.cli.cwdhint import list_cwd_notes

            outside, near = list_cwd_notes(scanner, page, filters, **_window_texts(filters, zone))
        # Nothing found where a root named explicitly (``CLAUDE_CONFIG_DIR``) cannot be read:
        # the error ``finish`` raises says why, and the note would send the reader to doctor.
        if page.discovered or not scanner.unreadable_explicit_roots():
            render.note(unread_said(scanner, page, filters) or outside or why_empty(state, page, filters, zone))
        if near is not None:
            render.note(near)
        _say_unknown(page, filters)
        return None
    _, out, err = recorded.recording(lambda: _print_rows(scanner, page, filters, rows, zone, reverse))
    recorded.write(out, err)
    _say_unknown(page, filters)
    return _kept(recorded.stored_text(out, err), page.rows, refs) if keep else None


def _stores_unread(scanner: Scanner, rows: list[SessionRow]) -> bool:
    """Whether a provider of ``rows`` that archives could not read a database it keeps
    sessions in this run (nothing opened to answer): only then may a row's archived state
    be unknown, and ``unreadrows`` is imported (a plain ``list`` does without it)."""
    names = {row.provider for row in rows}
    return any(provider.can_archive and provider.unread_stores(scanner.ctx)
               for provider in scanner.providers if provider.name in names)


def _rows_json(scanner: Scanner, rows: list[SessionRow], refs: list[SessionRef]) -> list[dict[str, Any]]:
    """Each row's JSON, with ``tokens_unknown`` (as ``show --json`` has it) on a row whose
    ``tokens`` are ``null`` because the database its usage is kept in could not be read this
    run (Cursor's state DB, corrupt or locked), not because it recorded none: a script told
    the two apart only by running ``show`` on each row."""
    from agentscan.scan.unreadrows import tokens_unknown

    unknown = tokens_unknown(scanner, refs, rows)
    documents = []
    for row in rows:
        document = row.to_json()
        if row.id in unknown:
            document["tokens_unknown"] = True
        documents.append(document)
    return documents


def unread_said(scanner: Scanner, page: SessionPage, filters: ListFilter) -> str | None:
    """Nothing found where a database that may hold sessions could not be read (Cursor's
    corrupt state DB): that, not "doctor shows where agentscan looked" (``notfound``); said
    before ``why_empty`` by ``list``, ``export -o -`` and ``otlp``."""
    if page.discovered or page.blank:
        return None
    from agentscan.scan.notfound import unread_stores_note

    return unread_stores_note(scanner, filters.providers)


def _say_unknown(page: SessionPage, filters: ListFilter) -> None:
    """On stderr, once per provider, the sessions ``--running``/``--pid`` left out unable to
    tell them (``--json``'s ``running_unknown``): a note, which ``--strict`` does not count."""
    if not page.running_unknown and not page.archived_unknown:
        return
    from agentscan.scan.liveness import unknown_lines

    for line in unknown_lines(page.running_unknown or [], "--pid" if filters.pid is not None else "--running"):
        render.note(line)
    for line in unknown_lines(page.archived_unknown or [], "--archived" if filters.archived else "--no-archived",
                              "archived state not known"):
        render.note(line)


def _kept(body: bytes, rows: list[SessionRow], refs: list[SessionRef]) -> bytes | None:
    """``body`` framed after its witness, to be remembered, compressed when the frame is over
    ``KEPT_BYTES`` (``PACKED``); ``None``: larger than ``PAGE_BYTES`` (told first: a witness
    of 15,000 rows would be made for nothing), than ``KEPT_BYTES`` compressed, or a row's
    session not at hand."""
    if len(body) > PAGE_BYTES:
        return None
    witness = _witness(rows, refs)
    if witness is None:
        return None
    kept = framed(witness, body)
    if len(kept) > KEPT_BYTES:
        import zlib

        # Level 3: the bench's scale-10 ``list --all --json`` frame (18 MB) to 3.8 MB in 0.10 s,
        # paid by each run that makes the page (level 6: 3.5 MB in 0.18 s; level 1 left 4.17 MB,
        # at the cap); read back in ~0.05 s by every later one.
        kept = PACKED + zlib.compress(kept, 3)
    return kept if len(kept) <= KEPT_BYTES else None


def _print_rows(scanner: Scanner, page: SessionPage, filters: ListFilter, rows: list[SessionRow],
                zone: tzinfo | None, reverse: bool = False) -> None:
    from agentscan.cli.list_text import more_hint, print_list

    term = render.terminal()
    # The folder ``--cwd`` (or ``--grep``) matched, not a multi-root workspace's first (``--json`` keeps ``cwd``
    # as recorded, beside ``workspace_folders``: docs/json.md).
    rows = [row if shown == row.cwd else row.with_changes(cwd=shown) for row, shown in ((row, filters.shown_cwd(row)) for row in rows)]
    print_list(rows, scanner.short_ids([row.id for row in rows]) if term.tty else {}, term, zone)
    hint = more_hint(page, filters, reverse=reverse)
    if hint:
        render.note(hint, tty_only=True)


#: a row's ``running`` in a witness, and back
_RUNNING = {None: b"-", True: b"1", False: b"0"}
_RUNNING_OF = {mark: running for running, mark in _RUNNING.items()}


def _witness(rows: list[SessionRow], refs: list[SessionRef]) -> bytes | None:
    """Each row's ``running`` and the files it was told by (``liveness.Liveness.of``), as
    ``_runs_as_it_did`` reads them; ``None``: a row whose session is not at hand."""
    from agentscan.providers import liveness_files
    from agentscan.scan.memorefs import file_texts

    by_id = {ref.id: ref for ref in refs}
    entries = []
    for row in rows:
        ref = by_id.get(row.id)
        if ref is None:
            return None
        # No path holds a NUL: NUL ends each file, and two end each session.  A session whose
        # liveness is not known (Gemini's: ``Liveness.of``) keeps no file: ``null`` again; a
        # Cursor session only its store (``providers.liveness_files``).
        texts = liveness_files(ref.provider, file_texts(ref))
        files = b"".join(b"\0" + text.encode("utf-8", "surrogateescape") for text in texts)
        entries.append(_RUNNING[row.running] + files)
    return b"\0\0".join(entries)


def _runs_as_it_did(witness: bytes) -> bool:
    """Whether each session ``_witness`` kept is running now exactly as it was then."""
    from agentscan.scan.liveness import Liveness

    liveness = Liveness()
    for entry in witness.split(b"\0\0"):
        mark, *files = entry.split(b"\0")
        if mark not in _RUNNING_OF:
            return False  # damaged
        if liveness.of_files([text.decode("utf-8", "surrogateescape") for text in files]) != _RUNNING_OF[mark]:
            return False
    return True


def _printable(known: bytes, as_json: bool, shows_liveness: bool) -> recorded.Printable | None:
    """A remembered page, checked; ``None``: not of the expected shape, or a session it
    shows started or stopped running since (``shows_liveness``: the output says which do)."""
    if known.startswith(PACKED):
        import zlib

        try:
            known = zlib.decompress(known[len(PACKED):])
        except zlib.error:
            return None  # damaged: made again
    parts = unframed(known)
    if parts is None or (shows_liveness and not _runs_as_it_did(parts[0])):
        return None
    return recorded.printable(parts[1], as_json)


def why_empty(state: State, page: SessionPage, filters: ListFilter, zone: tzinfo | None = None) -> str:
    """Why no session matched ``filters`` (``otlp``'s empty export says it too); its times in
    ``zone`` (``--tz``; ``None``: local)."""
    from agentscan.scan import liveness as running
    from agentscan.cli.list_text import explain_empty
    from agentscan.cli.term import home_short

    others = 0
    if page.discovered == 0 and filters.providers:
        with state.scanner() as everything:  # the other providers: is anything there at all?
            others = sum(1 for ref in everything.refs() if ref.provider not in filters.providers)
    return explain_empty(page, filters, others=others, cwd_text=home_short(fspath(filters.cwd)) if filters.cwd else None,
                         running_supported=running.supported(), zone=zone, **_window_texts(filters, zone))


def _window_texts(filters: ListFilter, zone: tzinfo | None) -> dict[str, str | None]:
    """``--since`` and ``--until`` as the notes say them (``since_text``, ``until_text``)."""
    from agentscan.timeutil import shown_time

    return {"since_text": shown_time(filters.since, zone).named if filters.since is not None else None,
            "until_text": shown_time(filters.until, zone).named if filters.until is not None else None}
