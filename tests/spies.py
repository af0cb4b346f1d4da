"""A spy on a function or method: what each call was about, listed as the calls come."""

from __future__ import annotations

from typing import Any, Callable

import pytest


def record_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, note: Callable[..., Any]) -> list[Any]:
    """``owner.name`` replaced by one that lists ``note(*args, **kwargs)`` of each call, then
    makes it; the list, as it grows (a forked process's calls are its own)."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append(note(*args, **kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return seen


def record_results(monkeypatch: pytest.MonkeyPatch, owner: object, name: str,
                   note: Callable[[Any], Any] = lambda result: result) -> list[Any]:
    """``owner.name`` replaced by one that makes each call, then lists ``note(result)``; the list."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def recording(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        seen.append(note(result))
        return result

    monkeypatch.setattr(owner, name, recording)
    return seen


def recording_progress() -> Any:
    """A ``Progress`` that notes every change: (phase, done, total)."""
    from agentscan.progress import Progress

    class Recording(Progress):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[str, int, int]] = []

        def changed(self) -> None:
            self.seen.append((self.phase, self.done, self.total))

    return Recording()


def reads_told() -> Any:
    """A ``Progress`` that lists each file read it is told of: ``(name, done, size)``."""
    from agentscan.progress import Progress

    class ReadsTold(Progress):
        def __init__(self) -> None:
            super().__init__()
            self.reads: list[tuple[str, int, int]] = []

        def reading(self, name: str, done: int, size: int) -> None:
            self.reads.append((name, done, size))

    return ReadsTold()
