"""What one scan runs against: the home, the environment, and the warnings sink.

Providers never read ``os.environ`` or ``Path.home()`` themselves; they get a
``ScanContext``.  That is what lets tests (and ``--home``/``--demo``) point a
whole scan at a fake home without patching anything.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from agentscan.model import ScanWarning

# After this many warnings for one file, further ones are counted, not kept:
# a 2 GB file of garbage must not become 2 GB of warnings.
_PER_FILE_WARNINGS = 20


class WarningSink:
    """Collects ``ScanWarning``s, bounded per file and deduplicated."""

    def __init__(self) -> None:
        self._items: list[ScanWarning] = []
        self._seen: set[tuple[str, int | None, str]] = set()
        self._per_file: dict[str, int] = {}
        self._suppressed: dict[str, int] = {}
        self._captures: list[list[ScanWarning]] = []

    @contextmanager
    def capture(self) -> Iterator[list[ScanWarning]]:
        """Collect the warnings raised inside the block (to cache with a result)."""
        captured: list[ScanWarning] = []
        self._captures.append(captured)
        try:
            yield captured
        finally:
            # By identity: two captures can hold equal lists.
            self._captures = [c for c in self._captures if c is not captured]

    def add(self, path: object, message: str, line: int | None = None) -> None:
        key_path = str(path)
        for captured in self._captures:
            if len(captured) < _PER_FILE_WARNINGS * 5:
                captured.append(ScanWarning(key_path, message, line))
        key = (key_path, line, message)
        if key in self._seen:
            return
        self._seen.add(key)
        count = self._per_file.get(key_path, 0)
        self._per_file[key_path] = count + 1
        if count >= _PER_FILE_WARNINGS:
            self._suppressed[key_path] = self._suppressed.get(key_path, 0) + 1
            return
        self._items.append(ScanWarning(key_path, message, line))

    def extend(self, warnings: list[ScanWarning]) -> None:
        for warning in warnings:
            self.add(warning.path, warning.message, warning.line)

    @property
    def items(self) -> list[ScanWarning]:
        extra = [
            ScanWarning(path, f"{count} more warnings for this file were not listed")
            for path, count in self._suppressed.items()
        ]
        return self._items + extra

    def __len__(self) -> int:
        return len(self._items) + len(self._suppressed)


@dataclass
class ScanContext:
    """The home and environment a scan reads, and where its warnings go.

    ``home_source`` says what chose the home (``--home``, ``HOME``, ``demo``)
    so that ``doctor`` can explain every root.
    """

    home: Path
    env: Mapping[str, str]
    home_source: str = "HOME"
    warnings: WarningSink = field(default_factory=WarningSink)
    # Per-scan memo space for providers (parsed indexes, DB handles' results).
    memo: dict[str, Any] = field(default_factory=dict)
    # Set by the Scanner when its persistent cache is open: providers may keep
    # per-file parse state there (``agentscan.cache.Cache.get_file``).
    file_cache: Any = None
    # Set by the Scanner: the cwds every provider knows, for hash-named dirs.
    cwd_candidates: Callable[[], set[str]] = field(default=lambda: set())

    @classmethod
    def create(cls, *, home: Path | str | None = None, env: Mapping[str, str] | None = None) -> ScanContext:
        env = dict(os.environ if env is None else env)
        if home is not None:
            return cls(home=Path(home).expanduser(), env=env, home_source="--home")
        for name in ("HOME", "USERPROFILE"):
            if env.get(name):
                return cls(home=Path(env[name]), env=env, home_source=name)
        return cls(home=Path.home(), env=env, home_source="default")

    def on_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the scan ends (providers close DB handles here)."""
        self.memo.setdefault("_closers", []).append(callback)

    def close(self) -> None:
        for callback in self.memo.pop("_closers", []):
            try:
                callback()
            except Exception:  # closing must never turn a result into a failure
                pass

    def env_value(self, name: str) -> str | None:
        value = self.env.get(name)
        return value if value else None

    def warn(self, path: object, message: str, line: int | None = None) -> None:
        self.warnings.add(path, message, line)
