"""``tokens --breakdown``: each row's models (ccusage's ``--breakdown``), added up with the row.

The report's hot loops (``scan.tokenfill.add_sums``, ``add_entries``) are left as they are:
with a breakdown, a call (or a cached group, which is one model's) lands in the bucket of its
row *and* its model (``keyed_by_model``), and a row's bucket is its models' merged
(``merged``).  So a row is the exact sum of its models, tokens and cost alike (the parts
summed are the same integers under the same price keys), and a model's figures are those
``--by model`` gives the row's calls (its key is ``--by model``'s: ``unknown`` for a call of
no model, a Codex tier's ``<model> (<tier>)``).  Cached sums are one group per model and
quarter hour, so a warm breakdown decodes no more calls than the plain report.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Hashable, Iterable, cast

from agentscan.errors import UsageProblem
from agentscan.scan.rowkeys import NO_MODEL, RowOf
from agentscan.scan.tokenbucket import Bucket
from agentscan.scan.tokensort import sorted_rows

if TYPE_CHECKING:
    from agentscan.pricing import PriceBook
    from agentscan.scan.groupby import GroupBy
    from agentscan.scan.tokenreport import TokenRow



def check(by: GroupBy, breakdown: object) -> bool:
    """``breakdown`` as a bool, or a usage error naming the library's parameters: ``by='model'``
    rows are models already (the CLI says it in its own words first: ``cli.tokensrules``)."""
    if not isinstance(breakdown, bool):  # a library caller's ``breakdown="yes"``
        raise UsageProblem(f"breakdown must be a bool, not {type(breakdown).__name__}", parameter="breakdown")
    if breakdown and by == "model":
        raise UsageProblem("breakdown=True splits each row by model, and by='model' rows are models already: "
                           "give by='day', 'week', 'month', 'session', 'provider', 'cwd' or 'agent' with it",
                           parameter="breakdown")
    return breakdown


def keyed_by_model(row_of: RowOf) -> RowOf:
    """``row_of`` with each call's bucket its row's and its model's, ``(row key, model)``
    (taken apart again by ``merged``)."""

    def keyed(session_id: str, provider: str, model: str | None, ts: float | None,
              run: str | None) -> tuple[str, str | None]:
        key, sub_key = row_of(session_id, provider, model, ts, run)
        return cast(str, (key, model or NO_MODEL)), sub_key

    return keyed


def merged(buckets: dict[Hashable, Bucket]) -> tuple[dict[str, Bucket], dict[str, list[tuple[str, Bucket]]]]:
    """``keyed_by_model``'s buckets as each row's (its models' merged) and each row's models'."""
    rows: dict[str, Bucket] = {}
    models: dict[str, list[tuple[str, Bucket]]] = {}
    for pair, bucket in buckets.items():
        key, model = cast("tuple[str, str]", pair)
        found = rows.get(key)
        if found is None:
            found = rows[key] = Bucket()
            models[key] = []
        found.merge(bucket)
        models[key].append((model, bucket))
    return rows, models


def with_models(row: TokenRow, parts: Iterable[tuple[str, Bucket]], book: PriceBook) -> TokenRow:
    """``row`` with its models' rows (``TokenRow.models``), the dearest first (a cost known in
    part by its bound, an unknown one last), ties the largest first, then by name."""
    made = sorted((bucket.row(model, book)[0] for model, bucket in parts), key=lambda part: part.key)
    made.sort(key=lambda part: -(part.tokens.total if part.tokens is not None else 0))
    return replace(row, models=sorted_rows(made, "cost"))  # (dearest first, as ``--sort cost``)
