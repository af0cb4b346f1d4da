"""``prices``: which price data costs come from, a model's prices, and the explicit update."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, List, Optional

import typer

from agentscan.cli.options import GlobalOptionsCommand, JsonOption, examples, handle_errors, state_of
from agentscan.toolkit.words import either

if TYPE_CHECKING:
    from datetime import datetime

    from agentscan.pricing.source import PriceData


def register(app: typer.Typer) -> None:
    app.command("prices", cls=GlobalOptionsCommand,
                short_help="The price data costs come from, and what a model costs.",
                epilog=examples("agentscan prices claude-sonnet-4-5",
                                "agentscan prices gpt-5 -p codex --at 2025-09-01",
                                "agentscan prices --update    # fetch the current prices (network)"))(prices_command)


@handle_errors
def prices_command(
    ctx: typer.Context,
    models: Optional[List[str]] = typer.Argument(None, metavar="[MODEL]...", help="Models to look up, as an agent records them."),
    provider: Optional[str] = typer.Option(None, "--provider", "-p", help="Look MODEL up as this agent records it (claude, codex, gemini, cursor).", metavar="P"),
    update: bool = typer.Option(False, "--update", help="Fetch the current price data from genai-prices (network) and use it from now on."),
    reset: bool = typer.Option(False, "--reset", help="Forget fetched price data; use the data bundled with genai-prices."),
    at: Optional[str] = typer.Option(None, "--at", help="MODEL's prices in force at WHEN (a date, an ISO time or a duration such as 90d; default: now), as a call made then is priced.", metavar="WHEN"),
    as_json: bool = JsonOption,
) -> None:
    """The price data costs come from (offline unless --update), and what MODEL costs per million tokens."""
    import os

    from agentscan.cli import render
    from agentscan.cli.state import reject_blank
    from agentscan.context import ScanContext
    from agentscan.errors import StrictWarnings, UsageProblem
    from agentscan.pricing import aliases, source

    if update and reset:
        raise UsageProblem("--update and --reset cannot be combined")
    reject_blank(at=at)
    if at is not None and not models:
        raise UsageProblem("--at needs a MODEL: the prices of which model, then? (agentscan prices MODEL --at WHEN)")
    # A call is priced at its own time (a price may change: a long-context premium that
    # ended), so the prices a cost was made of are asked for at that time.
    when = _when(at) if at is not None else None
    if provider is not None:
        from agentscan.providers import get_provider

        provider = provider.strip().casefold()  # any case, as every other --provider takes it
        get_provider(provider)  # an unknown name is a usage error, as for every other --provider
    state = state_of(ctx)
    scan = ScanContext.create(env=os.environ)  # no home is read: only the environment and the warnings sink
    env = scan.env
    notes: list[str] = []
    if reset:
        from agentscan.pricing.update import reset as forget

        notes.append("fetched price data removed" if forget(env) else "no fetched price data to remove")
    if update:
        from agentscan.pricing.update import update as fetch

        data, count = fetch(env)
        notes.append(f"fetched {count:,} models from {data.url}")
    data = source.current(env)
    stale = source.stale_fetch(env)
    looked_up = []
    guesses: list[tuple[str, list[str]]] = []  # (a name with no price, the names like it the data has)
    if models:
        from agentscan.pricing import library

        # Without --provider, a name one agent records differently (Cursor's "claude-4.5-sonnet")
        # is looked up as each agent records it, as ``list`` prices it: "no price" was wrong.
        agents = [provider] if provider is not None else ["", *aliases.PROVIDER_HINTS]
        for name in models:
            found: dict[str, object] = {
                "query": name, "provider": None, "model_id": None, "name": None, "prices": None, "price_fields": None,
            }
            for agent, ref in _lookups(agents, name):
                try:
                    found.update(library.describe(data, aliases.PROVIDER_HINTS.get(agent), ref, when))
                    break
                except library.NotPriceable:
                    pass
            if found["model_id"] is None:
                scan.warn(f"model:{provider or '-'}/{name}", f"no price for {name!r} in {data.label}")
                # Only for a name with no price: the others cost no look at the library's names.
                suggestions = close_names(data, provider, name)
                if suggestions:
                    guesses.append((name, suggestions))
                found["suggestions"] = suggestions
            else:
                found["suggestions"] = []
            looked_up.append(found)
    if as_json:
        from agentscan.timeutil import to_iso

        body = {"prices": data.to_json(), "stale_fetch": stale, "at": to_iso(when), "models": looked_up}
        render.emit_json(render.envelope("prices", body, scan.warnings.items))
    else:
        for note in notes:
            print(note)
        print(f"price data: {data.label}" + (f" from {data.url} (sha256 {data.sha256})" if data.source == "fetched" else ""))
        if stale:
            print(f"note: {stale}")
        if looked_up and when is not None:
            print(f"prices in force at {render.short_time(when)}")
        if looked_up:
            from agentscan.cli.prices_text import print_prices

            print_prices(looked_up)
        elif not notes:
            # Names as ``list`` shows them on a terminal, which ``prices`` takes back (``_lookups``).
            render.note("give model names for their prices: `agentscan prices sonnet-4.5 gpt-5`", tty_only=True)
    if scan.warnings.items and not as_json:
        render.warn_summary(scan.warnings.items, verbose=state.verbose)
        for name, suggestions in guesses:
            render.note(f"{name}: did you mean {either(suggestions)}?")
    if state.strict and scan.warnings.items:
        raise StrictWarnings(len(scan.warnings.items))


#: a Claude model's short name as ``render.model_text`` makes it on a terminal: a family, its
#: version (``4.5``, ``4``) and what followed it (``-fast``, ``-thinking``)
_SHORT_CLAUDE = re.compile(r"(?P<family>[A-Za-z]+)-(?P<major>[0-9]{1,2})(?:[.-](?P<minor>[0-9]{1,2}))?"
                           r"(?P<tail>(?![0-9A-Za-z.]).*)$")


def _lookups(agents: list[str], name: str) -> list[tuple[str, str]]:
    """(agent, name to look up) for each agent, then, for a Claude model's short name as
    ``list`` shows it on a terminal (``sonnet-4.5``, ``opus-4.8-fast``, ``sonnet-3.5``), the
    names it may have been made from (``render.model_text``, of which this is the inverse):
    a person copies the model from the table they see.  Anthropic's since Claude 4
    (``claude-sonnet-4-5``), Claude 3's (``claude-3-5-sonnet``) and Cursor's
    (``claude-4.5-sonnet``); the price data says which it knows."""
    from agentscan.pricing import aliases

    found = [(agent, ref) for agent in agents if (ref := aliases.model_ref(agent, name)) is not None]
    short = _SHORT_CLAUDE.match(name)
    if short is None or name.lower().startswith("claude-"):
        return found
    family, major, minor, tail = short["family"], short["major"], short["minor"], short["tail"]
    dashed = major + (f"-{minor}" if minor else "")
    made = []
    if "claude" in agents:
        made += [("claude", f"claude-{family}-{dashed}{tail}"), ("claude", f"claude-{dashed}-{family}{tail}")]
    if "cursor" in agents:
        made.append(("cursor", f"claude-{major}{f'.{minor}' if minor else ''}-{family}{tail}"))
    return found + [(agent, ref) for agent, recorded in made if (ref := aliases.model_ref(agent, recorded)) is not None]


#: how like the name asked a model's name must be to be offered (``difflib``'s ratio), and how
#: many are: the best, and those nearly as like it (``claude-sonnet-4-6`` beside ``-4-5``
#: would be a guess between two)
_CLOSE_ENOUGH, _NEARLY_AS_CLOSE, _OFFERED = 0.75, 0.05, 3


def close_names(data: PriceData, provider: str | None, name: str) -> list[str]:
    """The price data's model ids most like ``name`` (a misspelt ``claude-sonet-4-5``:
    ``claude-sonnet-4-5``): of the agent's vendor with ``--provider``, else of every
    provider; only those ``prices`` finds a price for."""
    import difflib

    from agentscan.pricing import aliases, library

    vendor = aliases.PROVIDER_HINTS.get(provider) if provider else None
    ids = {model.id.lower(): model.id for each in library.snapshot(data).providers
           if vendor is None or each.id == vendor for model in each.models}
    matcher = difflib.SequenceMatcher(b=name.lower())
    scored = []
    for lowered, model_id in ids.items():
        matcher.set_seq1(lowered)
        if matcher.real_quick_ratio() >= _CLOSE_ENOUGH and matcher.quick_ratio() >= _CLOSE_ENOUGH:
            ratio = matcher.ratio()
            if ratio >= _CLOSE_ENOUGH:
                scored.append((ratio, model_id))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    best = scored[0][0] if scored else 0.0
    offered: list[str] = []
    for ratio, model_id in scored:
        if ratio < best - _NEARLY_AS_CLOSE or len(offered) == _OFFERED:
            break
        try:
            library.find(data, vendor, model_id)
        except library.NotPriceable:
            continue  # a name the library lists but prices only with a context it is not asked with
        offered.append(model_id)
    return offered


def _when(text: str) -> datetime:
    """``--at``: a date is its start, in the local zone, as ``--since`` reads it; a duration
    (``3d``) is that long ago."""
    from agentscan.timeutil import parse_when

    return parse_when(text)
