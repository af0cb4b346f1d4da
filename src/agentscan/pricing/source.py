"""Which price data is in use, and its version, without importing genai-prices.

By default prices come from the data bundled with the installed
genai-prices package: no network, ever.  ``agentscan prices --update``
fetches the library's current data file (through the library's own update
URL and parser) into ``<data dir>/prices/``; later runs use that file,
still offline, for as long as the same genai-prices version is installed.
Upgrading the package brings newer bundled data, so an older fetched file
is then ignored.

The version string keys the price rows cached in agentscan's index, so a
change of data never reuses a stale price.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, NamedTuple

PACKAGE = "genai_prices"
PRICES_DIR = "prices"
DATA_FILE = "genai-prices-data.json"
META_FILE = "meta.json"
#: where ``--update`` fetches from instead of the library's default (mirrors, tests)
URL_ENV = "AGENTSCAN_PRICES_URL"


class PriceData(NamedTuple):
    """The price data a run uses (``source`` is ``bundled`` or ``fetched``); a named tuple
    (see ``cli.term.Terminal``)."""

    source: str
    package_version: str
    sha256: str | None = None
    fetched_at: str | None = None
    url: str | None = None
    path: Path | None = None

    @property
    def key(self) -> str:
        """Identifies the data exactly: the cache key of its price rows."""
        if self.source == "fetched":
            return f"fetched/{self.sha256}"
        return f"bundled/{self.package_version}"

    @property
    def label(self) -> str:
        if self.source == "fetched":
            return f"genai-prices data fetched {self.fetched_at}"
        return f"genai-prices {self.package_version} (bundled data)"

    def to_json(self) -> dict[str, Any]:
        return {
            "library": "genai-prices",
            "library_version": self.package_version,
            "source": self.source,
            "version": self.key,
            "fetched_at": self.fetched_at,
            "url": self.url,
        }


def prices_dir(env: Mapping[str, str]) -> Path:
    from agentscan.datadir import data_dir  # not hooks.store: list and tokens need none of the hooks

    return Path(data_dir(env)) / PRICES_DIR


def package_version() -> str:
    """The installed genai-prices version, read from its dist-info directory name.

    ``importlib.metadata`` would answer too, but importing it costs ~45 ms,
    a fifth of a warm ``tokens`` run.
    """
    import importlib.util

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        from agentscan.errors import AgentscanError

        raise AgentscanError("genai-prices is not installed; reinstall agentscan")
    parent = os.path.dirname(next(iter(spec.submodule_search_locations)))
    try:
        for name in os.listdir(parent):
            if name.startswith(PACKAGE + "-") and name.endswith(".dist-info"):
                return name[len(PACKAGE) + 1:-len(".dist-info")]
    except OSError:
        pass
    from importlib.metadata import version  # an unusual layout (egg, zip): the slow way

    return version("genai-prices")


def read_meta(env: Mapping[str, str]) -> dict[str, Any] | None:
    """The fetched data's description, or ``None`` when nothing was fetched (or it is unreadable)."""
    try:
        text = (prices_dir(env) / META_FILE).read_bytes()
    except OSError:
        return None
    import orjson  # here: only a fetched file has a meta file to read (a warm ``tokens`` needs no orjson)

    try:
        meta = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return meta if isinstance(meta, dict) and isinstance(meta.get("sha256"), str) else None


def current(env: Mapping[str, str]) -> PriceData:
    """The data this run prices with: fetched when usable, else bundled."""
    installed = package_version()
    meta = read_meta(env)
    if meta is not None and meta.get("library_version") == installed:
        path = prices_dir(env) / DATA_FILE
        if path.is_file():
            return PriceData("fetched", installed, meta["sha256"], meta.get("fetched_at"), meta.get("url"), path)
    return PriceData("bundled", installed)


def identity(env: Mapping[str, str]) -> str | None:
    """What ``current(env)`` is made of, as text, without reading it: the installed
    version, where fetched data lives, and each fetched file's size, times and inode
    (the change time too: a file made unreadable turns ``current`` back to the bundled
    data; ``None``: cannot be told).  Reading the description would import orjson, on
    every warm run of a user who fetched prices once (``scan.answers``)."""
    parts = [package_version(), str(prices_dir(env))]
    for name in (META_FILE, DATA_FILE):
        try:
            info = (prices_dir(env) / name).stat()
        except FileNotFoundError:
            parts.append("-")
            continue
        except OSError:
            return None
        parts.append(f"{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_ino}")
    return "\0".join(parts)


def stale_fetch(env: Mapping[str, str]) -> str | None:
    """Why a fetched file exists but is not used (``agentscan prices`` says so)."""
    meta = read_meta(env)
    if meta is None:
        return None
    installed = package_version()
    if meta.get("library_version") != installed:
        return (f"the data fetched on {meta.get('fetched_at')} was made for genai-prices "
                f"{meta.get('library_version')}, not the installed {installed}; run `agentscan prices --update`")
    return None
