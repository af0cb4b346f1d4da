"""``agentscan prices --update`` and ``--reset``: the only code that touches the network.

The update fetches the file genai-prices' own ``UpdatePrices`` fetches (its
default URL, its timeouts, its HTTP client), validates it with the
library's parser, and saves it with a small description, so every later
run can price with it offline.  The data file is written before the
description, each atomically: an interrupted update leaves the previous
state in use.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Mapping

import orjson

from agentscan.errors import AgentscanError
from agentscan.pricing import source


#: the vendors of the agents' models (Claude, Codex, Gemini; Cursor's are theirs too): data
#: pricing none of their models is refused (a mirror of one vendor's is fine)
AGENT_VENDORS = ("anthropic", "openai", "google")


class PriceUpdateFailed(AgentscanError):
    """The price data could not be fetched or was not valid (exit 1); nothing was changed."""


def update(env: Mapping[str, str]) -> tuple[source.PriceData, int]:
    """Fetch, validate and save the current price data; returns it and its number of models."""
    import httpx2
    from genai_prices.update_prices import DEFAULT_UPDATE_URL, UpdatePrices

    from agentscan.pricing import library

    updater = UpdatePrices()  # only for its settings: its background thread is never started
    url = env.get(source.URL_ENV) or DEFAULT_UPDATE_URL
    try:
        response = httpx2.get(url, timeout=updater.request_timeout, follow_redirects=True)
        response.raise_for_status()
    except httpx2.HTTPStatusError as exc:
        reply = exc.response
        raise PriceUpdateFailed(f"could not fetch price data from {url}: the server answered "
                                f"{reply.status_code} {reply.reason_phrase}".rstrip()) from None
    except httpx2.TimeoutException:
        raise PriceUpdateFailed(f"could not fetch price data from {url}: timed out") from None
    except httpx2.HTTPError as exc:
        from agentscan.toolkit.networds import network_problem

        raise PriceUpdateFailed(f"could not fetch price data from {url}: {network_problem(exc)}") from None
    raw = response.content
    try:
        providers = library.parse(raw)
    except Exception as exc:  # noqa: BLE001 - whatever the parser rejects, the saved data stays as it was
        raise PriceUpdateFailed(f"the price data at {url} is not valid: {type(exc).__name__}: {exc}") from None
    if not any(p.id in AGENT_VENDORS and p.models for p in providers):
        # Valid to the parser, useless to us (an empty list, another vendor's mirror): saved,
        # it would turn every cost unknown, and a nightly export would write that over good ones.
        raise PriceUpdateFailed(f"the price data at {url} prices no {', '.join(AGENT_VENDORS)} model; "
                                "the price data in use is kept")
    directory = source.prices_dir(env)
    from agentscan.filemodes import make_private_dirs

    meta = {
        "sha256": hashlib.sha256(raw).hexdigest(),
        "fetched_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "url": url,
        "library_version": source.package_version(),
        "bytes": len(raw),
    }
    try:
        make_private_dirs(directory)  # the data dir too, when this is its first use: 0700 whatever the umask
        _atomic_write(directory / source.DATA_FILE, raw)
        _atomic_write(directory / source.META_FILE, orjson.dumps(meta, option=orjson.OPT_INDENT_2))
    except OSError as exc:
        raise PriceUpdateFailed(f"cannot save price data in {directory}: {exc.strerror or exc}") from None
    return source.current(env), sum(len(p.models) for p in providers)


def reset(env: Mapping[str, str]) -> bool:
    """Forget fetched data (back to the bundled data); whether there was any."""
    directory = source.prices_dir(env)
    removed = False
    for name in (source.META_FILE, source.DATA_FILE):  # the description first: no half-active state
        try:
            (directory / name).unlink()
            removed = True
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise AgentscanError(f"cannot remove {directory / name}: {exc.strerror or exc}") from None
    return removed


def _atomic_write(path: Path, data: bytes) -> None:
    from agentscan.toolkit.atomicfile import atomic_write

    atomic_write(path, lambda handle: handle.write(data))
