"""Output for people (aligned text) and scripts (one JSON document).

Tables live in ``agentscan.cli.table`` and the terminal facts in
``agentscan.cli.term``; this module holds the JSON envelope, warnings and
the small formatters every command shares.  Only the stdlib and orjson are
imported: no Rich, so a command starts fast.
"""

from __future__ import annotations

import functools
import os
import sys
from datetime import date, datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Any, Callable, Collection, Sequence

from agentscan.toolkit.words import plural  # noqa: F401 - the CLI's own name for it
from agentscan.cli import term as _term
from agentscan.cli.term import Terminal, for_stderr, home_short, terminal, write_out
from agentscan.pricing.modelnames import short_name, undated  # noqa: F401 - ``undated``: tables' name for it
from agentscan.invocation import doctor_command
from agentscan.timeutil import local_date, shown_time

if TYPE_CHECKING:
    from decimal import Decimal  # only costs shown as text need it: ``--json`` goes without

    from agentscan.warningsink import SinkWarning
    from agentscan.model import ScanWarning, TokenUsage

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_SECOND = timedelta(seconds=1)

__all__ = [
    "compact_number", "emit_json", "envelope", "full_number", "human_tokens", "model_text", "note", "path_text",
    "plural", "short_time", "terminal", "undated", "warn_summary",
]


def emit_json(document: dict[str, Any]) -> None:
    import orjson

    from agentscan.toolkit.legiblejson import dumps  # an argument echoed may not be UTF-8

    write_out(dumps(document, orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def emit_json_body(command: str, body: bytes, warnings: Sequence[ScanWarning | SinkWarning]) -> None:
    """``emit_json(envelope(command, …))`` for a body already printed as indented JSON
    (``scan.answers``): the same bytes, without decoding the body."""
    if not body.startswith(b"{\n") or not body.endswith(b"\n}"):
        raise ValueError("not an indented JSON object")
    listed = b"[]"  # a remembered answer had none: orjson and its imports (``dataclasses``, ``uuid``) not needed
    if warnings:
        import orjson

        listed = orjson.dumps([w.to_json() for w in warnings], option=orjson.OPT_INDENT_2).replace(b"\n", b"\n  ")
    out = sys.stdout.buffer
    out.write(b'{\n  "schema": "agentscan.' + command.encode("ascii") + b'/1",\n')
    out.write(memoryview(body)[2:-2])  # 10 MB for a heavy user's report: not copied again
    out.write(b',\n  "warnings": ' + listed + b"\n}\n")
    sys.stdout.flush()


def envelope(command: str, body: dict[str, Any], warnings: Sequence[ScanWarning]) -> dict[str, Any]:
    return {"schema": f"agentscan.{command}/1", **body, "warnings": [w.to_json() for w in warnings]}


def warn_summary(warnings: Sequence[ScanWarning | SinkWarning], *, verbose: bool = False, even_quiet: bool = False,
                 first: Collection[str] = ()) -> None:
    """``even_quiet``: said under ``--quiet`` too (``--strict`` fails on them: the error's reason).
    ``first``: paths whose warnings are said first, every one of them (an export's output: what
    the run did to the index, which a cron mail cut after five bad lines left out)."""
    if not warnings or (_term.quiet() and not even_quiet):
        return
    # An empty file is what an agent leaves after an aborted start (Codex, Gemini, Claude):
    # named one by one, a home's dozen of them fill the screen on every run.  Counted in one
    # line unless every warning is asked for (``--json`` lists each, as ``doctor`` does).
    from agentscan.context import EMPTY_FILE  # the readers' word: loaded with any scan's warnings

    empty = 0 if verbose else sum(1 for warning in warnings if warning.message == EMPTY_FILE)
    if empty:
        warnings = [warning for warning in warnings if warning.message != EMPTY_FILE]
    # A Priority Tier organisation's every file of calls says it: counted in one line, not five
    # paths and "… and 25 more" on every ``tokens`` (``valuewarnings.priority_tier``).
    from agentscan.toolkit.valuewarnings import priority_tier

    priority = 0 if verbose else sum(1 for warning in warnings if priority_tier(warning.message))
    if priority:
        warnings = [warning for warning in warnings if not priority_tier(warning.message)]
    # A model's no-price warning first: it is what a cost's "-" or "≥" refers to (a table's
    # note points to it without naming the model), and five bad lines would hide it; then a
    # session agentscan skipped (its own fault), hidden in "… and N more" under a file's bad lines.
    if not verbose and len(warnings) > 5:
        from agentscan.warningwords import SKIPPED_SESSION

        warnings = sorted(warnings, key=lambda warning: (not warning.path.startswith("model:"),
                                                         not warning.message.startswith(SKIPPED_SESSION)))
    leading = [warning for warning in warnings if warning.path in first] if first else []
    if leading:
        warnings = leading + [warning for warning in warnings if warning.path not in first]
    shown = warnings if verbose else warnings[:len(leading) + 5]
    # Wrapped on a terminal as a hint is (``note``); in a pipe each warning stays one line, for grep.
    width = _term.terminal_width() if _term.stderr_is_tty() else None
    for warning in shown:
        # On a terminal ``$HOME/…`` reads ``~/…``, as ``show`` and ``doctor`` name a path: a
        # transcript's 117 columns folded over three lines of a 40-column pane; a pipe's stays whole.
        path = _term.home_short(warning.path) if width is not None else warning.path
        where = f"{path}:{warning.line}" if warning.line else _said_where(path)
        _say_warning(f"warning: {where}: {warning.message}", width)
    if len(warnings) > len(shown):
        from agentscan.toolkit.andmore import and_more

        _say_warning(f"warning: … {and_more(len(warnings) - len(shown))} (use --verbose or --json to see all)", width)
    if empty:
        # A warning, not a note: ``--strict`` fails on them, and its count reads against these lines.
        _say_warning(f"warning: {plural(empty, EMPTY_FILE)} (an agent leaves one after an aborted start; "
                     f"`{doctor_command()}` or --verbose names {'it' if empty == 1 else 'them'})", width)
    if priority:
        # A warning, as the empty files': ``--strict`` fails on each, its count reads against this line.
        _say_warning(f"warning: {plural(priority, 'file')} of calls on Anthropic's Priority Tier, priced at the "
                     f"standard rates (its price is the organisation's contract's; --verbose names "
                     f"{'it' if priority == 1 else 'them'})", width)


def _said_where(path: str) -> str:
    """What a warning is about, for a person: JSON's ``model:codex/aide-gpt-5`` (a key to
    group by, docs/json.md) reads ``Codex CLI model aide-gpt-5``, its agent named as every
    sentence names it (``model:-/x``: ``model x``)."""
    if not path.startswith("model:"):
        return path
    from agentscan.providers import label_of

    provider, _, model = path[len("model:"):].partition("/")
    return f"model {model}" if provider in ("", "-") else f"{label_of(provider)} model {model}"


def _say_warning(text: str, width: int | None) -> None:
    # A warning names a file, a model or an id from the provider's files: an escape
    # sequence in one (a directory name, a transcript's ``model``) is shown as U+FFFD,
    # not obeyed, and a newline in one cannot split the warning (one line each, for grep).
    text = _term.clean_path(text)
    # A path longer than a line is left whole (the terminal folds it): cut in two, it
    # could not be copied.
    lines = [text] if width is None else _term.wrap(text, width, break_long_words=False)
    print(for_stderr("\n".join(lines)), file=sys.stderr)


def outcome(text: str) -> None:
    """What a command wrote, on stdout (``wrote 11 sessions to PATH (csv)``, ``exported 84
    spans … to PATH``): wrapped on a terminal, its path whole (50 columns at 30); a cron
    log's one line in a pipe."""
    from agentscan.cli.term import wrap as wrapped

    shown = terminal()
    print("\n".join(wrapped(text, shown.width, break_long_words=False)) if shown.tty else text)


def note(text: str, *, tty_only: bool = False, wrap: bool = True) -> None:
    """A hint for the person at the terminal, on stderr (``tty_only``: nothing when stderr is
    piped; nothing at all with ``--quiet``), wrapped to the terminal's width (``wrap``
    False: a command to copy, which the terminal may fold but must not be cut in lines)."""
    if _term.quiet() or (tty_only and not _term.stderr_is_tty()):
        return
    glue = _term.GLUE
    if not text.replace(glue, " ").isprintable():
        # A note names models, ids and paths from the provider's files (``no price for …``):
        # their control characters shown as U+FFFD, the note's own lines kept, and the
        # no-break spaces that keep a name whole (``unbroken``).
        text = glue.join("\n".join(map(_term.clean_path, part.split("\n"))) for part in text.split(glue))
    if wrap and _term.stderr_is_tty():
        # A word wider than a line (a path, a `command` run by its path: ``/venv/bin/agentscan
        # --demo list``) is left whole, for the terminal to fold, as an error's and a warning's
        # are: broken, the note's "(or try `" ended a line and the command began the next.
        text = "\n".join(_term.wrap(text, _term.terminal_width(), break_long_words=False))
    else:
        text = text.replace(glue, " ")  # (``unbroken``'s spaces: wrapping gives them back)
    print(for_stderr(text), file=sys.stderr)


def unbroken(text: str) -> str:
    """``text`` kept on one line when a ``note`` wraps: a column's name, ``CACHE WRITE``,
    cut as ``CACHE`` at one line's end and ``WRITE`` at the next's read as two columns."""
    return text.replace(" ", _term.GLUE)


def short_time(value: datetime | None, zone: tzinfo | None = None) -> str:
    """A time to the minute in ``zone`` (``None``: local), its zone not named:
    ``2026-12-01 09:49`` (``timeutil.shown_time``)."""
    return shown_time(value, zone).text


#: the columns ``short_time`` takes: ``2026-12-01 09:49``
TIME_WIDTH = 16


def time_column(value: datetime | None, zone: tzinfo | None = None) -> str:
    """``short_time`` padded to a time's width: a line with no time (``-``: every Cursor
    prompt) lines its text up with the timed ones'."""
    return short_time(value, zone).ljust(TIME_WIDTH)


def today(zone: tzinfo | None) -> date:
    """Today's date in ``zone`` (``None``: local): what tells a recent time from an older one
    (``list_text.compact_time``)."""
    return datetime.now(timezone.utc).astimezone(zone).date()


def short_date(value: datetime | None) -> str:
    """The local date, as ``value.astimezone().strftime("%Y-%m-%d")`` tells it
    (``timeutil.local_date``: 35 ms against 54 for a heavy user's 15,000 sessions)."""
    if value is None:
        return "-"
    if value.utcoffset() is None:
        return value.astimezone().strftime("%Y-%m-%d")  # naive: local already, as astimezone takes it
    year, month, day = local_date((value - _EPOCH) // _SECOND)  # whole seconds, floored, as astimezone does
    return f"{year:04d}-{month:02d}-{day:02d}"


def human_tokens(usage: TokenUsage | None, term: Terminal) -> str:
    """``130,883`` on a terminal, ``130883`` in a pipe: whole, as ``tokens`` prints it (``list``
    rounds it, ``130.9k``, only where that keeps a column: ``list_text.print_list``)."""
    if usage is None:
        return "-"
    return full_number(usage.total, term)


def human_usd(cost: Decimal | None, at_least: Decimal | None = None, *, grouped: bool = True) -> str:
    """Dollars rounded to the cent for people; JSON keeps the exact value.

    A cost is rounded half up (``$0.105`` is ``$0.11``), as money is, from its exact
    ``Decimal`` (never a float, whose ``0.105`` is ``0.10499…``); a cost above zero
    but under a cent is ``<$0.01``, not ``$0.00`` or ``$0.01``.  An unknown cost is ``-``
    (no call had a price), or ``≥$12.34`` when ``at_least`` (what the calls that have a
    price cost) says how much it is at least: rounded as a cost is, so a total's bound
    never reads below a priced row it holds (rounded down, a total of one $0.038 row and
    an unpriced one read ``≥$0.03`` under the row's ``$0.04``), and ``≥<$0.01`` when it
    is above zero but under a cent (a bound of nothing is ``-``).  ``grouped``: thousands
    apart (``$9,098.98``); a table in a pipe writes ``$9098.98``, as its token counts
    have no separators either.
    """
    if cost is None:
        return "≥" + _dollars(at_least, grouped) if at_least is not None and cost_bounded(cost, at_least) else "-"
    return _dollars(cost, grouped)


def cost_bounded(cost: Decimal | None, at_least: Decimal | None) -> bool:
    """Whether ``human_usd`` shows the cost as a lower bound (``≥$…``)."""
    return cost is None and at_least is not None and at_least > 0


def _dollars(cost: Decimal, grouped: bool) -> str:
    """``cost`` rounded half up to the cent; ``<$0.01`` above zero but under a cent."""
    from decimal import ROUND_HALF_UP

    if 0 < cost < _cent():
        return "<$0.01"
    # ``format`` alone rounds half to even (``$0.105`` as ``$0.10``): quantized first.
    cents = cost.quantize(_cent(), rounding=ROUND_HALF_UP)
    return f"${cents:,.2f}" if grouped else f"${cents:.2f}"


@functools.cache
def _cent() -> Decimal:
    from decimal import Decimal  # made once: a table prices 15,000 rows

    return Decimal("0.01")


def compact_number(value: int) -> str:
    """``830.9k``, ``65.3M``, ``1.5B``: a count of tokens, as people say it ("1.5B tokens";
    ``G`` read as gigabytes)."""
    for limit, suffix in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if value >= limit:
            return f"{value / limit:.1f}{suffix}"
    return str(value)


def full_number(value: int, term: Terminal) -> str:
    """``1,234,567`` for a person, ``1234567`` for a script."""
    return full_numbers(term)(value)


def full_numbers(term: Terminal) -> Callable[[int], str]:
    """``full_number`` for ``term``, chosen once for many numbers (a table's 90,000)."""
    return "{:,}".format if term.tty else str


def path_text(path: str | None, term: Terminal) -> str:
    """``~/src/app`` on a terminal; the whole path in a pipe."""
    if not path:
        return "-"
    return home_short(path) if term.tty else path


def model_text(model: str | None, term: Terminal) -> str:
    """``opus-4.5`` for ``claude-opus-4-5-20251101`` on a terminal: the snapshot's date
    tells a person little and took a narrow MODEL column's last characters, the version; a
    pipe gets the name whole, as ``show`` and ``--json`` do."""
    if not model:
        return "-"
    if not model.isprintable():
        model = _term.clean(model) or "-"  # the transcript's text: an escape sequence shown as U+FFFD
    if not term.tty:
        return model
    # The family names Claude alone (``opus-4.5``): a column cut to fit kept ``claude-opu…``
    # of every Claude model, telling none apart.
    return short_name(undated(model))


def none_under(cwd_text: str | None, elsewhere: int, cwd: str | os.PathLike[str] | None = None) -> str:
    """Why ``--cwd`` left no session, as ``list`` and ``tokens`` say it; ``cwd``: the folder
    asked for, said when it does not exist (a typo, or a project deleted: its sessions are
    listed by its path all the same, so said only here, where none matched)."""
    missing = "it does not exist; " if cwd is not None and _local_folder_missing(os.fspath(cwd)) else ""
    return f"no sessions under {cwd_text} ({missing}{elsewhere:,} elsewhere)"


def _local_folder_missing(cwd: str) -> bool:
    """Whether ``cwd`` names no file here; never a Windows path on Linux or macOS (a copied
    Windows home's ``C:\\Users\\me\\App`` is never a folder here, and the sessions it names were
    asked for all the same)."""
    from agentscan.scan.cwdmatch import is_windows_path

    if os.name != "nt" and is_windows_path(cwd):
        return False
    return not os.path.lexists(cwd)
