"""``prices``: which price data costs come from, a model's prices, and the explicit update."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from agentscan.cli.options import GlobalOptionsCommand, JsonOption, examples, handle_errors, state_of
from agentscan.fsview import legible
from agentscan.toolkit.words import either, quoted

if TYPE_CHECKING:
    from datetime import datetime

    from agentscan.pricing.source import PriceData
    from agentscan.scan.scanner import Scanner


def register(app: typer.Typer) -> None:
    app.command("prices", cls=GlobalOptionsCommand,
                short_help="The price data costs come from, and what a model costs.",
                epilog=examples("agentscan prices    # what the models your sessions recorded cost",
                                "agentscan prices claude-sonnet-4-5",
                                "agentscan prices gpt-5 -p codex --at 2025-09-01",
                                "agentscan prices --update    # fetch the current prices (network)"))(prices_command)


@handle_errors
def prices_command(
    ctx: typer.Context,
    models: Optional[List[str]] = typer.Argument(None, metavar="[MODEL]...", help="Models to look up, as an agent records them (default: every model your sessions recorded)."),
    provider: Optional[str] = typer.Option(None, "--provider", "-p", help="Look MODEL up as this agent records it (claude, codex, gemini, cursor); without MODEL, only the models its sessions recorded.", metavar="P"),
    update: bool = typer.Option(False, "--update", help="Fetch the current price data from genai-prices (network) and use it from now on."),
    reset: bool = typer.Option(False, "--reset", help="Forget fetched price data; use the data bundled with genai-prices."),
    at: Optional[str] = typer.Option(None, "--at", help="MODEL's prices in force at WHEN (a date, an ISO time or a duration such as 90d; default: now), as a call made then is priced.", metavar="WHEN"),
    as_json: bool = JsonOption,
) -> None:
    """The price data costs come from (offline unless --update), and what MODEL costs per million tokens (without MODEL: each model your sessions recorded)."""
    import os

    from agentscan.cli import render
    from agentscan.cli.optionvalues import reject_blank
    from agentscan.context import ScanContext
    from agentscan.errors import UsageProblem
    from agentscan.pricing import source

    if update and reset:
        raise UsageProblem("--update and --reset cannot be combined")
    reject_blank(at=at, provider=provider)
    if any(not name.strip() for name in models or ()):
        # As an empty option is (``reject_blank``): ``prices "$MODEL"`` with the variable unset
        # printed a blank row with no price, and exit 0.
        raise UsageProblem("MODEL is empty (is a variable unset?): give a model name such as sonnet-4.5, or leave it out")
    if at is not None and at.strip().casefold() == "now":
        at = None  # the default its help names: the prices now, as without --at (not a list of forms)
    # A call is priced at its own time (a price may change: a long-context premium that
    # ended), so the prices a cost was made of are asked for at that time.  Read before MODEL
    # is asked for, as a bad value is said before a missing argument (git, gh): "--at needs a
    # MODEL" for ``--at tomorrowish``, given one, said next that the date was bad.
    when = _when(at) if at is not None else None
    if at is not None and not models:
        raise UsageProblem("--at needs a MODEL: agentscan prices MODEL --at WHEN")
    if provider is not None:
        from agentscan.providers import get_provider

        provider = provider.strip().casefold()  # any case, as every other --provider takes it
        get_provider(provider)  # an unknown name is a usage error, as for every other --provider
    state = state_of(ctx)
    # Without a MODEL, the models the person's own sessions recorded (``-p``: one agent's).
    scanner = state.scanner([provider] if provider else None, memo=True) if not models and not (update or reset) else None
    # Else no home is read: only the environment and the warnings sink.
    scan = scanner.ctx if scanner is not None else ScanContext.create(env=os.environ)
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
    as_written: list[str] = []  # what a tier's word at the end of a name priced as written is not
    if models:
        from agentscan.pricing.aliases import agent_alias, typed_tier, typed_tier_name
        from agentscan.pricing.lookup import fast_mode_gap, look_up, tier_gap
        from agentscan.pricing.typednames import typed_name

        recorded: set[str] | None = None  # the tiers the person's Codex sessions recorded, read once if needed
        asked_as = provider
        for asked in models:
            # (``(us-only)`` any way, a Claude model's ``(fast)``, a ``tokens --by model`` row's agents)
            spelt, provider = typed_name(asked, asked_as)
            name = typed_tier_name(spelt)
            found = look_up(data, name, provider, when)
            if name == asked and provider in (None, "codex") and typed_tier(asked) is not None and found["model_id"] is None:
                # ``gpt-5.5 (Turbo)``, as ``show`` says "on the turbo tier": that tier when the
                # person's sessions ran on it (a name merely ending so, ``(preview)``, is as written)
                recorded = _recorded_tiers(state) if recorded is None else recorded
                name = typed_tier_name(asked, recorded)
                if name != asked:
                    found = look_up(data, name, provider, when)
            if found["model_id"] is None:
                # A fast-mode name whose model is priced: the gap is its fast-mode price alone,
                # and the standard one (shown by ``prices <model>``) is not what it is billed at.
                base = fast_mode_gap(data, name, provider, when)
                gap = _variant_gap(data, name, provider, when, "fast-mode", base) if base is not None else ""
                tiered = tier_gap(data, name, provider, when)
                if tiered is not None:  # (a Codex service tier's name: ``aliases.service_tier_name``)
                    gap = _variant_gap(data, name, provider, when, f"{tiered[1]}-tier", tiered[0])
                alias = agent_alias(provider or "codex", name) if provider in (None, "codex") else None
                if alias is not None:  # as ``tokens`` says it (``book.PriceBook._report``)
                    gap = f": {legible(name)} is {alias}: left unpriced"
                no_tier = _no_such_tier(data, asked, provider, when, found) if name == asked and alias is None \
                    and provider in (None, "codex") else None
                if no_tier is None:  # ("": the brackets name a model, ``gpt-4o (mini)``: its guesses stand)
                    no_tier = _no_such_suffix(data, name, provider, when, found)
                # (no price data's name: no update prices a word that is no tier)
                message = f"no price for {quoted(legible(name))}: {no_tier}" if no_tier else _no_price(data, name, gap)
                scan.warn(f"model:{provider or '-'}/{name}", message)
                if found["suggestions"]:
                    guesses.append((name, found["suggestions"]))
            else:
                as_written.extend(_tier_word_note(data, name, found, provider, when))
            looked_up.append(found)
        provider = asked_as
    elif scanner is not None:
        looked_up = _recorded(scanner, data)
    if as_json:
        from agentscan.timeutil import to_iso

        # Each MODEL as typed, as a script matches its answers to its questions (the text table
        # shows it as priced: ``gpt-5.5 (priority)`` for ``gpt-5.5 (fast)``, the spelling to use).
        echoed = [{**found, "query": asked} for found, asked in zip(looked_up, models, strict=True)] if models else looked_up
        body = {"prices": data.to_json(), "stale_fetch": stale, "at": to_iso(when), "models": echoed}
        render.emit_json(render.envelope("prices", body, scan.warnings.items))
    else:
        said = [*notes, f"price data: {data.label}"
                + (f" from {data.url} (sha256 {data.sha256})" if data.source == "fetched" else "")]
        if stale:
            said.append(f"note: {stale}")
        if looked_up and when is not None:
            from agentscan.pricing.lookup import undated_then

            said.append(f"prices in force at {render.short_time(when)}")
            said += [_undated_note(found["query"], render.short_time(when)) for found in looked_up
                     if found["model_id"] is not None and undated_then(data, found["query"], provider, when)]
        # Above a table in a pipe, they are no row of it (``awk '{print $2}'`` read ``data:``):
        # said on stderr after it, as ``tokens`` says what is in no row (before it, a reader
        # gone at the first line heard of the price data still).
        term = render.terminal()
        piped = bool(looked_up) and not term.tty
        if not piped:
            from agentscan.cli.term import wrap

            for line in said:
                # On a terminal wrapped as a hint is (a 40-column one folded it mid-word); a
                # fetch's URL and hash whole, to be copied.
                print("\n".join(wrap(line, term.width, break_long_words=False)) if term.tty else line)
        if looked_up:
            from agentscan.cli.prices_text import print_prices

            print_prices(looked_up)
        elif not notes:
            assert scanner is not None  # (no MODEL, no --update or --reset: the sessions were read)
            _say_none_recorded(len(scanner.refs()), provider)
        if piped:
            for line in said:
                render.note(line, wrap=False)
    if scanner is not None:
        from agentscan.cli.state import finish

        finish(state, scanner, as_json=as_json)  # the warnings of reading the sessions too
        return
    if scan.warnings.items and as_json and state.verbose:  # --verbose: on stderr with --json too (``state.finish``)
        render.warn_summary(scan.warnings.items, verbose=True)
    if scan.warnings.items and not as_json:
        render.warn_summary(scan.warnings.items, verbose=state.verbose)
        for name, suggestions in guesses:
            # (quoted as a shell takes it back: ``'gpt-5.5 (priority)'``)
            render.note(f"{name}: did you mean {either([shlex.quote(each) for each in suggestions])}?")
    if not as_json:
        for line in as_written:
            render.note(line)
    from agentscan.cli.strictend import strict_end

    strict_end(state, scan.warnings.items, verbose=state.verbose)


def _variant_gap(data: Any, name: str, provider: str | None, when: Any, variant: str, base: str) -> str:
    """What the warning for a fast-mode or tier name with no price adds: the data lacks that
    variant's price for ``base``, or has none yet at ``when`` (``--at`` before it starts)."""
    from datetime import UTC, datetime

    from agentscan.pricing.aliases import codex_tier_spelling
    from agentscan.pricing.lookup import variant_start

    start = variant_start(data, codex_tier_spelling(name), provider)
    article = "an" if variant[0] in "aeiou" else "a"  # (``ultrafast-tier``)
    if start is not None and start > (when or datetime.now(UTC)).date():
        return (f": its {variant} prices for {legible(base)} start {start.isoformat()}, after that time ({article}"
                f" {variant} call is not billed at its standard price)")
    return (f": it has no {variant} price for {legible(base)} ({article} {variant} call is not billed at its standard"
            " price)")


def _no_such_tier(data: Any, asked: str, provider: str | None, when: Any, found: dict[str, Any]) -> str | None:
    """What ``prices "gpt-5.5 (turbo)"`` says when ``turbo`` is no tier agentscan knows nor one
    this home's Codex sessions recorded, and the model before it is OpenAI's and priced: the
    word is no tier's, and its guesses (``found["suggestions"]``) are that model's priced
    tiers (the standard one first), not the names most like the whole text ("did you mean
    gpt-3.5-turbo?"); ``""`` when the words name a model (``_names_a_model``), ``None`` for any
    other name."""
    from agentscan.pricing.aliases import SERVICE_TIER_WORDS, service_tier_name, typed_tier
    from agentscan.pricing.lookup import look_up

    typed = typed_tier(asked)
    if typed is None or typed[2] or typed[1] in SERVICE_TIER_WORDS:
        return None  # (``gpt-5.5 (turbo tier)``, ``gpt-5.5 (scale)``: a tier's name, said so by ``_no_price``)
    model, word = typed[0], typed[1]
    base = look_up(data, model, provider, when)
    if base["provider"] != "openai":
        return None  # (only OpenAI's models run on Codex's service tiers)
    if _names_a_model(data, model, word, provider, when, found):
        return ""  # (``gpt-4o (mini)``: "did you mean gpt-4o-mini?", no tier's word nor unknown suffix)
    tiers = [service_tier_name(model, tier) for tier in SERVICE_TIER_WORDS]
    found["suggestions"] = [model, *(each for each in tiers if look_up(data, each, provider, when)["model_id"])]
    return (f"{quoted(word)} is not a service tier agentscan knows ({', '.join(SERVICE_TIER_WORDS)}; fast is"
            " priority), nor one this home's Codex sessions recorded")


def _no_such_suffix(data: Any, name: str, provider: str | None, when: Any, found: dict[str, Any]) -> str | None:
    """What ``prices "claude-opus-4-6 (foo)"`` says: the text in brackets is no suffix agentscan
    knows (``typednames``), so the name has no price, not its model's list price; its guesses are
    that model and its priced variants.  ``None`` for any other name."""
    from agentscan.pricing.lookup import look_up
    from agentscan.pricing.typednames import (KNOWN_SUFFIXES, bracketed_model, claude_variants, unknown_suffix,
                                              unknown_suffix_reason)

    words, model = unknown_suffix(name), bracketed_model(name)
    if words is None or model is None:
        return None
    priced = [each for each in (model, *claude_variants(model)) if look_up(data, each, provider, when)["model_id"]]
    if not priced:
        return None  # (``nosuchmodel (turbo)``: no model's list price to refuse, so the plain "no price")
    found["suggestions"] = priced
    return f"{unknown_suffix_reason(words, model, KNOWN_SUFFIXES)}: not priced at {legible(model)}'s list price"


def _names_a_model(data: Any, model: str, word: str, provider: str | None, when: Any, found: dict[str, Any]) -> bool:
    """Whether ``model (word)`` reads as a model's name typed with brackets rather than a tier
    misspelt: ``gpt-4o (mini)`` is ``gpt-4o-mini`` (priced as named), ``gpt-5 (codex)``'s guesses
    are ``gpt-5.1-codex``... (names of that model's family).  Then ``found["suggestions"]`` keeps
    those, the joined name first; a word like a tier's (``priorty``, ``prio``) is a tier's."""
    from difflib import get_close_matches

    from agentscan.pricing.aliases import SERVICE_TIER_WORDS
    from agentscan.pricing.lookup import look_up

    joined = f"{model}-{word}"
    # (priced as named: ``gpt-4o-turbo`` matched no ``gpt-4o`` by its start)
    exact = str(look_up(data, joined, provider, when)["model_id"] or "").casefold() == joined.casefold()
    tiers = (*SERVICE_TIER_WORDS, "fast")
    if not exact and (get_close_matches(word, tiers, n=1, cutoff=0.75) or any(t.startswith(word) for t in tiers)):
        return False
    kin = [each for each in found["suggestions"] if each.casefold().startswith(model.casefold())]
    if not exact and not kin:
        return False  # (``gpt-5.5 (turbo)``: gpt-3.5-turbo is another model's name)
    found["suggestions"] = list(dict.fromkeys([*([joined] if exact else []), *found["suggestions"]]))
    return True


def _undated_note(name: str, when: str) -> str:
    """Under ``prices --at`` a time (``when``, as shown) no price of ``name`` is dated before
    (``lookup.undated_then``): a user took the prices for the model's at a time it had none."""
    return (f"note: the price data dates no price of {name} at or before {when}: these are its "
            "earliest prices, shown for any earlier time, though the model may have had no price then "
            "(the data holds no release date)")


def _no_price(data: Any, name: str, gap: str) -> str:
    """The warning for ``name`` with no price: the data lacks it (and ``gap``: what of it), or a
    Codex tier's name has none whatever the data (``aliases.unpriced_tier``), said as ``tokens``
    says it (``library._service_tier``): "no scale-tier price" read as a gap ``--update`` fills."""
    from agentscan.pricing.aliases import codex_tier_spelling, service_tier_of, unpriced_tier

    tier = service_tier_of(codex_tier_spelling(name))[1]
    why = unpriced_tier(tier) if tier is not None else None
    if why is not None:
        return f"no price for {quoted(legible(name))}: {why}"
    return f"no price for {quoted(legible(name))} in {data.label}{gap}"


def _tier_word_note(data: Any, name: str, found: dict[str, Any], provider: str | None, when: Any) -> list[str]:
    """What ``prices gpt-5-nano-flex`` priced as written (genai-prices matches ``gpt-5-nano`` by
    its start: the standard price) is not: a Codex call on that tier, ``gpt-5-nano (flex)``,
    which has a price of its own (``aliases.codex_tier_spelling``)."""
    from agentscan.pricing.aliases import codex_tier_spelling, service_tier_of
    from agentscan.pricing.lookup import look_up

    spelt = codex_tier_spelling(name)
    tier = service_tier_of(spelt)[1]
    if tier is None or spelt == name or look_up(data, spelt, provider, when)["model_id"] is None:
        return []
    return [f"{name} is priced as written, at {found['provider']}/{found['model_id']}'s standard price;"
            f" a Codex call on the {tier} tier is {shlex.quote(spelt)}"]


def _recorded_tiers(state: Any) -> set[str]:
    """The service tiers the calls of this home's Codex sessions were counted on (``turbo`` of
    ``gpt-5.5 (turbo tier)``): read only for a ``prices`` name typed with a ``(word)`` no tier
    agentscan knows, which has no price as written."""
    from agentscan.cli.state import end_progress
    from agentscan.pricing.aliases import service_tier_of
    from agentscan.scan.recordedmodels import recorded_models

    scanner = state.scanner(["codex"], memo=True, home_must_exist=False)
    try:
        tiers = {service_tier_of(model)[1] for _, model in recorded_models(scanner, ["codex"])}
    finally:
        end_progress()
        scanner.close()
    return {tier for tier in tiers if tier is not None}


def _say_none_recorded(sessions: int, provider: str | None) -> None:
    """Why ``prices`` printed no table: this home's sessions named no model, or it has none;
    and the two ways to a table.  On stderr even in a pipe, as ``list`` says an empty home:
    ``agentscan prices 2>&1 | less`` showed the price data's line alone."""
    from agentscan.cli import render
    from agentscan.providers import label_of

    kind = f"{label_of(provider)} " if provider else ""
    why = (f"no {kind}sessions found in this home" if not sessions
           else f"no models recorded in this home's {render.plural(sessions, kind + 'session')}")
    # Names as ``list`` shows them on a terminal, which ``prices`` takes back (``pricing.lookup``).
    render.note(why)
    from agentscan.invocation import command

    render.note(f"`{command('prices MODEL')}` gives a model's prices (`{command('prices sonnet-4.5 gpt-5')}`);"
                f" or try `{command('prices', demo=True)}`")


def _recorded(scanner: Scanner, data: PriceData) -> list[dict[str, Any]]:
    """The entries of the models ``scanner``'s sessions recorded, a warning for each agent's
    name that has no price (as ``tokens`` warns of it)."""
    from agentscan.cli.state import end_progress
    from agentscan.pricing.lookup import tier_gap
    from agentscan.pricing.ownmodels import recorded_prices
    from agentscan.scan.recordedmodels import recorded_models

    looked_up = recorded_prices(data, recorded_models(scanner), scanner.cache)
    end_progress()  # the sessions are read: the table follows
    for found in looked_up:
        if found["model_id"] is None:
            for agent in found["recorded_by"]:
                # A Codex tier's calls (``gpt-5.5 (scale)``) say what is missing, as ``prices MODEL`` does.
                tiered = tier_gap(data, found["query"], agent, None)
                gap = _variant_gap(data, found["query"], agent, None, f"{tiered[1]}-tier", tiered[0]) if tiered else ""
                scanner.ctx.warn(f"model:{agent}/{found['query']}", _no_price(data, found["query"], gap))
    return looked_up


def _when(text: str) -> datetime:
    """``--at``: a date is its start, in the local zone, as ``--since`` reads it; a duration
    (``3d``) is that long ago."""
    from agentscan.whentext import parse_when

    return parse_when(text)
