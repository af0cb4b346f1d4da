"""The ``show`` card's lines of one field (``show_text.card_lines``): ``  label    value``
wrapped to the terminal (a path never split), the ``tokens`` value, and one text cut to
its line."""

from __future__ import annotations

from agentscan.cli.showfit import WORDS, tokens_field, word_field
from agentscan.cli.term import Terminal, clean, cut, width_of, wrap_columns
from agentscan.model import TokenUsage


#: the tokens and counts of a session whose data could not be read (a Cursor chat listed from
#: its workspace with the global DB unreadable): ``list`` shows ``-``, ``tokens`` leaves it out
UNREAD = "not known (could not be read)"
#: the tokens of a session whose own file was read only up to its damage, before any usage (a
#: legacy Gemini chat cut: ``SessionRow.usage_cut``): it was read, its prompts are on the card
READ_IN_PART = "not known (the chat was read only up to its damage)"


def tokens_line(usage: TokenUsage | None, *, grouped: bool = True, by_subagents: int = 0, unread: bool = False) -> str:
    """``grouped``: thousands separated, for a person (a pipe gets plain integers, as
    ``list`` and ``tokens`` print them there: docs/cli.md); ``by_subagents``: how much of
    the total its subagents made, said beside it (``75,433 total (6,313 by subagents)``);
    ``unread``: the row's counts are partial (``counts_partial``), so no usage is not none."""
    if usage is None:
        return UNREAD if unread else "not recorded"
    n = digits_grouped if grouped else str
    theirs = f" ({n(by_subagents)} by subagents)" if by_subagents else ""
    return (
        f"{n(usage.total)} total{theirs} = {n(usage.input)} input + {n(usage.cache_read)} cache read"
        f" + {n(usage.cache_write)} cache write + {n(usage.output)} output"
        + (f" ({n(usage.reasoning)} reasoning)" if usage.reasoning else "")
    )


def digits_grouped(value: int) -> str:
    return f"{value:,}"


def plain_plural(count: int, word: str) -> str:
    """``plural`` for a pipe: ``1234 prompts``."""
    return f"{count} {word if count == 1 else word + 's'}"


def fit(text: str | None, room: int, term: Terminal, pipe_limit: int) -> str:
    text = clean(text) or "-"
    return cut(text, max(room, 10) if term.tty else pipe_limit)


#: the card's fields whose value is a path: never split (it is copied whole from the screen)
PATHS = frozenset({"cwd", "path"})


def field(label: str, value: str, term: Terminal) -> list[str]:
    """``  label    value``; on a terminal a long value wraps under itself in the columns it
    takes (CJK and emoji two each); a path is never split, nor a term of ``tokens``."""
    line = f"  {label:<8} {value}"
    if label == "tokens" and term.tty and width_of(line) > term.width:
        return tokens_field(value, term)
    # A path stays whole whatever it holds (spaces, CJK): it is copied from here.  One too
    # wide for its line (the transcript's, the cwd) goes on a line of its own under its label,
    # as ``doctor`` puts one (the terminal folds it there, and a triple click copies it alone).
    # One word (a model, a branch) goes under its label too, else is cut (``word_field``);
    # only text of wide characters without a space (CJK) is broken by columns.
    if term.tty and label in PATHS and width_of(line) > term.width:
        return [f"  {label}", f"    {value}"]
    if term.tty and label in WORDS and width_of(line) > term.width and " " not in value and value.isascii():
        return word_field(label, value, term)
    if not term.tty or width_of(line) <= term.width or label in PATHS or (" " not in value and value.isascii()):
        return [line]
    if label == "counts" and value.isascii():
        return counts_wrapped(value, term.width)
    if value.isascii():
        import textwrap

        # A long word (a URL in a title) is kept whole, as a path is.
        return textwrap.wrap(line, width=term.width, subsequent_indent=" " * 11,
                             break_long_words=False, break_on_hyphens=False) or [line]
    return wrap_columns(value, term.width, indent=f"  {label:<8} ", subsequent=" " * 11)


def counts_wrapped(value: str, width: int) -> list[str]:
    """The ``counts`` field wrapped between its counts, not inside one: a line broken by
    words read ``12 tool calls, 1`` with ``interrupted`` alone under it.  A count too wide
    for a line of its own (``7 tool calls (+3 by subagents)`` in a 40-column pane) is broken
    by words."""
    import textwrap

    parts = value.split(", ")
    lines: list[str] = []
    line = f"  {'counts':<8} {parts[0]}"
    for part in parts[1:]:
        if width_of(f"{line}, {part}") > width:
            lines.append(line + ",")
            line = " " * 11 + part
        else:
            line = f"{line}, {part}"
    return [piece for line in (*lines, line) for piece in (
        textwrap.wrap(line, width=width, subsequent_indent=" " * 11, break_long_words=False, break_on_hyphens=False)
        if width_of(line) > width else [line])]
