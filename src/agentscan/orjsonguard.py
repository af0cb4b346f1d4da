"""orjson's extension module loaded with Ctrl-C held until it is done.

orjson initialises by importing ``uuid``, ``dataclasses``, ``json`` and others from its
native code, and does not check that they imported (ijl/orjson#310): a Ctrl-C that lands
in one of them (the first ``import orjson`` of a run, 30 ms of a cold start) failed that
import and the process died of a segmentation fault, not exit 130.  While the extension
loads, a Ctrl-C is noted, not raised; it is raised once the load is over, where the
command's own handling ends it (exit 130, saying nothing).

Only the CLI installs it (``entry``), first on ``sys.meta_path``: it answers for
``orjson.orjson`` alone, and a library caller's signal handling is left as it is.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

#: the extension module whose load is guarded
GUARDED = "orjson.orjson"


class _Finder:
    """Finds ``GUARDED`` as the finders after it do, with its loader wrapped (``_Held``)."""

    @staticmethod
    def find_spec(fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != GUARDED:
            return None
        for finder in sys.meta_path:
            if finder is _Finder or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Held(spec.loader)  # type: ignore[assignment]  # (a loader by its two methods)
                return spec
        return None


class _Held:
    """A loader whose ``create_module`` and ``exec_module`` run with Ctrl-C held (``_held``)."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return _held(lambda: self.loader.create_module(spec))

    def exec_module(self, module: Any) -> None:
        _held(lambda: self.loader.exec_module(module))


def _held(load: Callable[[], Any]) -> Any:
    """``load()`` with SIGINT noted rather than raised, then raised as ``KeyboardInterrupt``
    once it returned.  Only where Python's own handler is in place and this is the main
    thread (only there is a ``KeyboardInterrupt`` raised: a thread's import is safe)."""
    import threading

    import _signal  # type: ignore[import-not-found]  # built in: ``signal`` imports enum

    if (threading.current_thread() is not threading.main_thread()
            or _signal.getsignal(_signal.SIGINT) is not _signal.default_int_handler):
        return load()
    caught: list[int] = []
    _signal.signal(_signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        return load()
    finally:
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        if caught:
            raise KeyboardInterrupt


def install() -> None:
    """Guard ``GUARDED``'s load from here on (once; nothing when it is loaded already)."""
    if GUARDED not in sys.modules and _Finder not in sys.meta_path:
        sys.meta_path.insert(0, _Finder)  # type: ignore[arg-type]
