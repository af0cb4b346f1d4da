"""The card's ``subagents`` list (``show_text.card_lines``): one line a subagent, its id,
its type and the model it ran in columns only some subagent fills, and its tokens."""

from __future__ import annotations

from agentscan.cli import render
from agentscan.cli.term import Terminal, clean, clean_path, cut, width_of
from agentscan.detailmodel import SessionDetail


def subagent_rows(detail: SessionDetail, term: Terminal, names: dict[str, str]) -> list[str]:
    """One line each: id (as ``names`` shortens it: ``show_text.subagent_names``), type, the
    model it ran (a column only when some subagent's is known: often another than the
    session's, as Claude's ``Explore`` on Haiku), tokens."""
    ids = [clean_path(names.get(sub.id, sub.id)) for sub in detail.subagents]
    types = [clean(sub.agent_type) or "-" for sub in detail.subagents]
    models = [clean(sub.model) or "-" for sub in detail.subagents]
    rows = _subagent_lines(detail, term, ids, types, models)
    if term.tty and any(width_of(row) > term.width for row in rows):
        # Too narrow: the models as ``list`` names them (``haiku-4.5``) before the tokens are cut.
        rows = _subagent_lines(detail, term, ids, types, [clean(render.model_text(sub.model, term)) or "-"
                                                         for sub in detail.subagents])
    return [cut(row, term.width) for row in rows] if term.tty else rows


def _subagent_lines(detail: SessionDetail, term: Terminal, ids: list[str], types: list[str],
                    models: list[str]) -> list[str]:
    id_width, type_width = max(map(width_of, ids)), max(map(width_of, types))
    model_width = max(map(width_of, models)) if any(sub.model for sub in detail.subagents) else 0
    # A column of dashes is a column nobody can name: the type only when some run has one.
    type_width = type_width if any(sub.agent_type for sub in detail.subagents) else 0
    rows = []
    for sub, name, kind, model in zip(detail.subagents, ids, types, models):
        # Whole, as the card's own total a few lines above is (``6.3k`` beside ``75,433``
        # read as two units of one thing); grouped for a person, plain in a pipe.
        count = "" if not sub.tokens else f"{sub.tokens.total:,}" if term.tty else str(sub.tokens.total)
        total = f"{count:>8} tokens" if sub.tokens else "tokens not recorded"
        # Progress records hold no copy of a subagent's final reply: a count short of it.
        note = (f"  (no transcript: from {sub.recovered_from} records, final reply not in them)"
                if sub.recovered_from else "")
        shown_model = f"{_pad(model, model_width)}  " if model_width else ""
        shown_type = f"{_pad(kind, type_width)}  " if type_width else ""
        rows.append(f"  {_pad(name, id_width)}  {shown_type}{shown_model}{total}{note}")
    return rows


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns (a CJK character takes two)."""
    return text + " " * (width - width_of(text))


__all__ = ["subagent_rows"]
