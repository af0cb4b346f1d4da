"""Sessions taken from the index (``scan.memo``), made into ``SessionRef``s only when asked for.

``list`` over a heavy user's 15,000 sessions reads the 25 newest; making a
``SessionRef`` (and its ``Path``s) for every one of them cost more than the
rest of a warm run.  ``MemoRefs`` keeps one provider's stored rows and makes a
``MemoRef`` per row on first access; ``MergedRefs`` orders several providers'
sessions newest first, as ``Scanner.refs`` always has, without making them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Iterator, overload

from agentscan.model import SessionRef


class _Unresolved:
    """The ``hint`` of a memo ref: the provider's own data was not loaded."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNRESOLVED"


UNRESOLVED = _Unresolved()


def is_memo_ref(ref: SessionRef) -> bool:
    return ref.hint is UNRESOLVED


class MemoRef(SessionRef):
    """A ``SessionRef`` taken from the index: its ``Path``s are made when first
    asked for, and it carries the fingerprint the session had when stored
    (valid while the census is unchanged)."""

    __slots__ = ("_path_text", "_file_texts", "_made", "fingerprint", "_id")
    _path_text: str | None
    _file_texts: list[str]
    _made: tuple[Path | None, tuple[Path, ...]] | None
    fingerprint: str
    _id: str

    def __init__(self, provider: str, native_id: str, path_text: str | None, recency: float,
                 file_texts: list[str], children: tuple[str, ...], fingerprint: str) -> None:
        setter = object.__setattr__
        setter(self, "provider", provider)
        setter(self, "native_id", native_id)
        setter(self, "recency", recency)
        setter(self, "hint", UNRESOLVED)
        setter(self, "children", children)
        setter(self, "_path_text", path_text)
        setter(self, "_file_texts", file_texts)
        setter(self, "_made", None)
        setter(self, "fingerprint", fingerprint)
        setter(self, "_id", f"{provider}:{native_id}")  # asked for a few times per session and run

    @property
    def id(self) -> str:
        return self._id

    def _paths(self) -> tuple[Path | None, tuple[Path, ...]]:
        made = self._made
        if made is None:
            made = (Path(self._path_text) if self._path_text is not None else None, tuple(map(Path, self._file_texts)))
            object.__setattr__(self, "_made", made)
        return made

    @property  # type: ignore[override]
    def path(self) -> Path | None:
        return self._paths()[0]

    @property  # type: ignore[override]
    def files(self) -> tuple[Path, ...]:
        return self._paths()[1]


class _LazyRefs(Sequence[SessionRef]):
    """A sequence whose items are made on access (``_item``), slices and iteration included."""

    def _item(self, index: int) -> SessionRef:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> SessionRef: ...

    @overload
    def __getitem__(self, index: slice) -> list[SessionRef]: ...

    def __getitem__(self, index: int | slice) -> SessionRef | list[SessionRef]:
        size = len(self)
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(size))]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(index)
        return self._item(index)

    def __iter__(self) -> Iterator[SessionRef]:
        return (self._item(i) for i in range(len(self)))


class MemoRefs(_LazyRefs):
    """One provider's stored sessions, in discovery order: rows of ``[native id, path,
    recency, files, children, fingerprint]`` (``DiscoveryMemo.store``)."""

    def __init__(self, provider: str, rows: list[list[Any]], refreshable: bool = False) -> None:
        self.provider = provider
        self._rows = rows
        #: ``Provider.refreshable_discovery`` said so when they were discovered: one of
        #: them may be rebuilt alone (``Provider.locate``) for a parse
        self.refreshable = refreshable
        self._made: list[MemoRef | None] = [None] * len(rows)
        self.recencies: list[float] = [row[2] for row in rows]
        self.native_ids: list[str] = [row[0] for row in rows]

    @classmethod
    def checked(cls, provider: str, rows: object, refreshable: bool = False) -> MemoRefs | None:
        """``rows`` as stored, or ``None`` when they are not of that shape (checked in
        bulk: the seal already vouches for the bytes)."""
        if type(rows) is not list or {type(row) for row in rows} - {list} or {len(row) for row in rows} - {6}:
            return None
        columns = list(zip(*rows)) if rows else [()] * 6
        kinds = [set(map(type, column)) for column in columns]
        if (kinds[0] - {str} or kinds[1] - {str, type(None)} or kinds[2] - {float, int} or kinds[3] - {list}
                or kinds[4] - {list} or kinds[5] - {str}):
            return None
        if any(type(item) is not str for files in columns[3] for item in files):
            return None
        if any(type(item) is not str for children in columns[4] for item in children):
            return None
        return cls(provider, rows, refreshable)  # type: ignore[arg-type]

    @property
    def rows(self) -> list[list[Any]]:
        """A copy of the stored rows (``[native id, path, recency, files, children, fingerprint]``)."""
        return list(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def _item(self, index: int) -> MemoRef:
        made = self._made[index]
        if made is None:
            native_id, path, recency, files, children, fingerprint = self._rows[index]
            made = self._made[index] = MemoRef(self.provider, native_id, path, float(recency), files,
                                               tuple(children), fingerprint)
        return made


class MergedRefs(_LazyRefs):
    """Several providers' sessions, most recent first (equal recencies keep provider and
    discovery order, as a stable sort of the concatenation would)."""

    def __init__(self, parts: list[Sequence[SessionRef]]) -> None:
        self._parts = parts
        self._starts: list[int] = []
        recencies: list[float] = []
        for part in parts:
            self._starts.append(len(recencies))
            recencies.extend(part.recencies if isinstance(part, MemoRefs) else [ref.recency for ref in part])
        self._order = sorted(range(len(recencies)), key=recencies.__getitem__, reverse=True)

    def __len__(self) -> int:
        return len(self._order)

    def sessions(self, fingerprint: Callable[[SessionRef], str | None]) -> list[tuple[str, str | None]]:
        """Each session's id and fingerprint (``fingerprint`` of a ref not from the index), most
        recent first, without making a ref per stored row."""
        flat: list[tuple[str, str | None]] = []
        for part in self._parts:
            if isinstance(part, MemoRefs):
                prefix = part.provider + ":"
                flat.extend([(prefix + row[0], row[5]) for row in part._rows])
            else:
                flat.extend([(ref.id, fingerprint(ref)) for ref in part])
        return [flat[index] for index in self._order]

    def _item(self, position: int) -> SessionRef:
        index = self._order[position]
        part = bisect_right(self._starts, index) - 1
        return self._parts[part][index - self._starts[part]]
