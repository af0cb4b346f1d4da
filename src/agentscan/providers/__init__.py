"""The provider registry.

Built-in providers are named here and imported only when used, so that
``agentscan --help`` and a ``list --provider claude`` do not pay for the
others.  Tests register the fake provider through ``register``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Final, Iterable

from agentscan.errors import UnknownProvider

if TYPE_CHECKING:
    from agentscan.providers.base import Provider
    from agentscan.providers.runningquestions import RunningRegistry

#: provider name -> "module:Class", in display order
BUILTIN_PROVIDERS: Final[dict[str, str]] = {
    "claude": "agentscan.providers.claude.provider:ClaudeProvider",
    "codex": "agentscan.providers.codex.provider:CodexProvider",
    "gemini": "agentscan.providers.gemini.provider:GeminiProvider",
    "cursor": "agentscan.providers.cursor.provider:CursorProvider",
}

#: the built-in providers whose records never report reasoning apart from output: Claude
#: Code's thinking is inside its output tokens, Cursor records input and output alone
#: (docs/providers/*.md).  A table shows their REASONING as ``-``, not ``0`` (``cli.tokens_columns``).
REASONING_NOT_REPORTED: Final = frozenset({"claude", "cursor"})

#: the built-in providers whose ``Provider.liveness_known`` is false: no process holds their
#: session files open (Gemini CLI appends a record and closes the file), so ``running`` is
#: ``null`` for them.  Kept here so that a remembered ``list`` page (``cli.list_answer``) tells
#: it without importing the provider (``tests/test_liveness_by_provider_pass49.py`` checks
#: that it agrees with the classes).
LIVENESS_NOT_KNOWN: Final = frozenset({"gemini"})

#: the built-in providers only some of whose files tell a running session (``Provider.liveness_files``),
#: by how those files' names end: Cursor's Agent CLI holds its chat's ``store.db`` open (SQLite)
#: while it runs, but nothing shows Cursor holding an agent transcript open, so a session of
#: transcripts alone has ``running`` ``null``.  Mirrored here as ``LIVENESS_NOT_KNOWN`` is.
LIVENESS_FILES: Final[dict[str, tuple[str, ...]]] = {"cursor": ("store.db",)}

#: the built-in providers whose agents name the sessions they run in a registry of their own
#: (``Provider.running_registry``), by where it is ("module:name", as ``BUILTIN_PROVIDERS``):
#: ``scan.liveness`` asks it without importing the provider.  Mirrored as ``LIVENESS_FILES`` is.
RUNNING_REGISTRIES: Final[dict[str, str]] = {"claude": "agentscan.providers.claude.liveprocs:REGISTRY"}

#: the built-in providers' display names (``Provider.label``), for a sentence that names one
#: ("14 Claude Code sessions left out", never the key ``claude``) without importing the
#: provider; mirrored as ``LIVENESS_FILES`` is (``tests/test_words2_pass59.py``).
LABELS: Final[dict[str, str]] = {"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI",
                                 "cursor": "Cursor"}

_registered: dict[str, Provider] = {}
_instances: dict[str, Provider] = {}


def available_names() -> list[str]:
    names = [name for name in BUILTIN_PROVIDERS if _importable(name)]
    return names + [name for name in _registered if name not in names]


def is_provider_name(name: str) -> bool:
    """Whether ``name`` is a built-in or registered provider's name, importing none."""
    return name in BUILTIN_PROVIDERS or name in _registered


def label_of(name: str) -> str:
    """The display name of the provider ``name`` (``Claude Code``), importing none; ``name``
    itself for one not known."""
    registered = _registered.get(name)
    return registered.label if registered is not None else LABELS.get(name, name)


def provider_named(query: str, also: Iterable[str] = ()) -> str | None:
    """The provider ``query`` names (``gemini``, ``Codex``, ``cursor:``), of those available
    and ``also``, in lower case; ``None``: none.  A provider's name given where a session id
    is taken (``show``, ``trace``) is refused as that, never a prefix of ``provider:``."""
    name = (query[:-1] if query.endswith(":") else query).lower()
    return name if name in {*available_names(), *also} else None


def liveness_known(name: str) -> bool:
    """Whether a running session of provider ``name`` holds a file open (``Provider.liveness_known``)."""
    registered = _registered.get(name)
    if registered is not None:
        return registered.liveness_known
    return name not in LIVENESS_NOT_KNOWN


def liveness_files(name: str, files: list[str]) -> list[str]:
    """Those of a session's ``files`` whose being held open tells whether it runs (all of them
    but for a provider of ``Provider.liveness_files``; none for one whose liveness is not known)."""
    if not liveness_known(name):
        return []
    registered = _registered.get(name)
    endings = registered.liveness_files if registered is not None else LIVENESS_FILES.get(name)
    return files if endings is None else [text for text in files if text.endswith(endings)]


def running_registry(name: str) -> RunningRegistry | None:
    """Provider ``name``'s registry of the sessions its agent runs (``Provider.running_registry``)."""
    registered = _registered.get(name)
    if registered is not None:
        return registered.running_registry
    target = RUNNING_REGISTRIES.get(name)
    if target is None or name not in BUILTIN_PROVIDERS or not _importable(name):
        return None
    module, attribute = target.split(":")
    found: RunningRegistry = getattr(importlib.import_module(module), attribute)
    return found


def running_registries() -> list[RunningRegistry]:
    """The registries of running sessions of every provider that keeps one (``running_registry``)."""
    return [registry for name in dict.fromkeys([*RUNNING_REGISTRIES, *_registered])
            if (registry := running_registry(name)) is not None]


def _importable(name: str) -> bool:
    module = BUILTIN_PROVIDERS[name].split(":")[0]
    return importlib.util.find_spec(module) is not None


def get_provider(name: str) -> Provider:
    if name in _registered:
        return _registered[name]
    if name in _instances:
        return _instances[name]
    target = BUILTIN_PROVIDERS.get(name)
    if target is None or not _importable(name):
        raise UnknownProvider(name, available_names())
    module_name, class_name = target.split(":")
    provider = getattr(importlib.import_module(module_name), class_name)()
    _instances[name] = provider
    return provider


def iter_providers(selected: Iterable[str] | None = None) -> list[Provider]:
    names = list(selected) if selected else available_names()
    return [get_provider(name) for name in dict.fromkeys(names)]


def register(provider: Provider) -> None:
    """Add (or replace) a provider, e.g. the fake one in tests."""
    _registered[provider.name] = provider


def unregister(name: str) -> None:
    _registered.pop(name, None)


def provider_env_vars() -> tuple[str, ...]:
    """Every environment variable that chooses a provider's roots (built-in and registered)."""
    names: dict[str, None] = {}
    for provider in iter_providers():
        names.update(dict.fromkeys(provider.env_vars))
    return tuple(names)
