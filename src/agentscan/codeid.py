"""Which agentscan code is running, as a digest, for results that stand for a run's output.

``scan.memo`` and ``scan.answers`` keep what a run found and printed; a
different agentscan must not print them again.  The version alone does not
say so (a source checkout, an editable install, a reinstall from a branch all
keep ``__version__``), so the digest covers every module's name, size and
mtime: a stat of some 180 files, about a millisecond.
"""

from __future__ import annotations

import os
from agentscan.digests import blake2b

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_memo: list[str] = []
#: directories that hold no code (the demo home is data)
_SKIPPED = frozenset({"__pycache__", "demo"})


def code_identity() -> str:
    if _memo:
        return _memo[0]
    from agentscan import __version__

    facts: list[str] = [__version__, _PACKAGE]
    _collect(_PACKAGE, "", facts)
    _memo.append(blake2b("\n".join(facts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest())
    return _memo[0]


def _collect(directory: str, prefix: str, facts: list[str]) -> None:
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name.endswith(".py"):
            try:
                info = entry.stat()
            except OSError:
                continue
            facts.append(f"{prefix}{name}\0{info.st_size}\0{info.st_mtime_ns}")
        elif name not in _SKIPPED and "." not in name and entry.is_dir(follow_symlinks=False):
            _collect(entry.path, f"{prefix}{name}/", facts)
