"""A ``tokens --by model`` table's model names on a terminal (``tokens_text.print_report``).

A row is a model as recorded, and two rows must not read as one.  Each model is named in
the shortest form no other reads alike as: as ``list`` names it (``sonnet-4.5``); where two
read alike and were recorded by different agents, that name with the agents that recorded
it (``sonnet-4.5 (claude)`` beside ``sonnet-4.5 (cursor)``: one model, two agents'
spellings); else without its snapshot's date; else whole (two snapshots of one model).
Which agents recorded a model is looked up only where two names read alike (``agents_of``,
``scan.recordedmodels``): a table of none reads nothing more.  A name cut to fit keeps its
agents whole (``sonn… (cursor)``), its model cut (``fitted``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping, NamedTuple

from agentscan.cli import render
from agentscan.cli.term import clean_path, cut, width_of

if TYPE_CHECKING:
    from agentscan.cli.tableparts import Column, Row
    from agentscan.cli.term import Terminal

#: (agent, model) of each model the table's sessions recorded (``recorded_models``)
AgentsOf = Callable[[], Iterable[tuple[str, str]]]

#: a model cut to fit beside its agents keeps this much of its name at least (``s… (cursor)`` read as nothing)
_LEAST_OF_MODEL = 4


class ModelNames(NamedTuple):
    """Each model's name as shown, and where the agents in those that name them begin
    (name -> index of `` (cursor)``): what a narrow column keeps (``fitted``)."""

    names: list[str]
    tails: dict[str, int]


def _seen(name: str) -> str:
    """How a name reads: ``claude-4.5-sonnet`` as ``claude-4-5-sonnet``."""
    return name.lower().replace(".", "-")


def model_names(models: list[str], term: Terminal, agents_of: AgentsOf | None = None) -> ModelNames:
    """``models`` (as the table shows them: ``tokens_text.shown_keys``) as a terminal names them
    (the module's rule); ``agents_of``: who recorded which (``None``: none is named)."""
    shorts = [render.model_text(model, term) for model in models]
    if len({_seen(short) for short in shorts}) == len(shorts):
        return ModelNames(shorts, {})  # none read alike: no agent looked up
    agents: dict[str, list[str]] = {}
    for agent, model in agents_of() if agents_of is not None else ():
        listed = agents.setdefault(model if model.isprintable() else clean_path(model), [])
        if agent not in listed:
            listed.append(agent)
    # Each model's forms, shortest first: short, with its agents (when known), undated, whole.
    forms = [[short, *([f"{short} ({', '.join(agents[model])})"] if model in agents else []),
              render.undated(model), model] for short, model in zip(shorts, models)]
    chosen = [0] * len(models)
    while True:
        alike: dict[str, int] = {}
        for form, at in zip(forms, chosen):
            alike[_seen(form[at])] = alike.get(_seen(form[at]), 0) + 1
        # A longer form can read as another's shorter one: told again until none do.
        longer = [index for index, (form, at) in enumerate(zip(forms, chosen))
                  if at < len(form) - 1 and alike[_seen(form[at])] > 1]
        if not longer:
            break
        for index in longer:
            chosen[index] += 1
    names = [form[at] for form, at in zip(forms, chosen)]
    tails = {name: len(short) for name, short, form, at, model in zip(names, shorts, forms, chosen, models)
             if at == 1 and model in agents}
    return ModelNames(names, tails)


def fitted(name: str, width: int, tails: Mapping[str, int]) -> str:
    """``name`` in ``width`` columns: a name with its agents (``tails``) cut in its model,
    its agents whole (``sonn… (cursor)``), or, too narrow for that, without them (it then
    reads as the others' it was told from: ``told_apart`` takes no such width); else as any
    label is (``term.cut``).  Never ``sonnet-4.5 (cu…``."""
    at = tails.get(name)
    if at is None or width_of(name) <= width:
        return cut(name, width)
    room = width - width_of(name[at:])
    return cut(name[:at], room) + name[at:] if room >= min(_LEAST_OF_MODEL, at) else cut(name[:at], width)


def shown(row: Row, width: int, tails: Mapping[str, int]) -> str:
    """A row's key as a label column ``width`` wide shows it: without its droppable tail
    where that would be cut (``tokens_runs.droppable_tails_fitted``), then ``fitted``."""
    name = row.cells[0]
    if row.droppable_at is not None and width_of(name) > width:
        name = name[:row.droppable_at]
    return fitted(name, width, tails)


def told_apart(column: Column, rows: list[Row], tails: Mapping[str, int]) -> Column:
    """A label ``column`` whose ``min_width`` is raised to where its ``rows``' keys, as shown
    that wide (``shown``: for names whose agents are kept whole), still read apart
    (``tablefit.told_apart``)."""
    from agentscan.cli.tablefit import told_apart as names_told_apart

    by_name = {row.cells[0]: row for row in rows}
    return names_told_apart(column, by_name, lambda name, width: shown(by_name[name], width, tails))


def tails_fitted(rows: list[Row], width: int, tails: Mapping[str, int]) -> list[Row]:
    """``rows`` with each key that names its agents and is wider than ``width`` cut in its
    model (``fitted``), so that the table's own cut leaves its agents whole."""
    return [row._replace(cells=[fitted(row.cells[0], width, tails), *row.cells[1:]])
            if row.cells[0] in tails and width_of(row.cells[0]) > width else row for row in rows]
