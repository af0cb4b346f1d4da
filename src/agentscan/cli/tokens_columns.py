"""The columns of ``tokens``' text table: their order, and which go first on a narrow terminal."""

from __future__ import annotations

from agentscan.cli.table import Column

#: (header, ``TokenUsage`` attribute, drop order on a narrow terminal: higher goes first; 0 never).
#: The figures that add up to TOTAL outlast a session's date, project and title (the id
#: tells a session; ``show`` tells the rest): REASONING goes first, a part of OUTPUT never
#: added again; then the text (``columns_of``); then the parts, the one that is most often 0
#: or small first: CACHE WRITE (Claude's alone), OUTPUT, INPUT, and CACHE READ, most of a
#: Claude or Codex total, last.  TOTAL stays, and COST goes only when nothing else is left.
NUMBER_COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("INPUT", "input", 3),
    ("CACHE READ", "cache_read", 2),
    ("CACHE WRITE", "cache_write", 5),
    ("OUTPUT", "output", 4),
    ("REASONING", "reasoning", 9),
    ("TOTAL", "total", 0),
)
NOT_RECORDED = "not recorded"


def session_columns() -> list[Column]:
    """The columns of the table by session."""
    return columns_of("session")


def columns_of(by: str) -> list[Column]:
    """The columns of the table grouped ``by``, in their order."""
    # A model's name is a label, no id: cut (``gemini-3-flash-previ…``) once no column is left
    # to go, rather than the TOTAL beside it (``371,6…``); a session's id and a date never are.
    columns = [Column("MODEL", label=True, min_width=10) if by == "model"
               else Column(by.upper(), style="yellow" if by == "session" else None)]
    if by == "session":
        columns += [
            Column("DATE", drop=6),
            # Named as in ``list``, and fitted alike: a project's name whole or the column left
            # out (``tablepaths.named_floors``).
            Column("CWD", flex=True, min_width=12, keep_end=True, drop=7),
            # A dozen characters still tell sessions apart (``list``'s title's least width); the
            # title goes first, before any figure, so it never costs one.
            Column("TITLE", flex=True, min_width=12, weight=2, drop=8),
        ]
    columns += [Column(header, right=True, drop=drop) for header, _, drop in NUMBER_COLUMNS]
    # Rounded to the cent (--json has it exact); left out only when nothing else is left to go.
    columns.append(Column("COST", right=True, drop=1))
    return columns


#: the columns worth rounding every number to keep: a total's parts, TOTAL and COST
#: (REASONING is a part of OUTPUT, shown again)
FIGURES = frozenset(header for header, _, _ in NUMBER_COLUMNS if header != "REASONING") | {"COST"}
