"""Sessions taken from the index (``scan.memo``), made into ``SessionRef``s only when asked for.

``list`` over a heavy user's 15,000 sessions reads the 25 newest; making a
``SessionRef`` (and its ``Path``s) for every one of them cost more than the
rest of a warm run.  ``MemoRefs`` keeps one provider's stored rows and makes a
``MemoRef`` per row on first access; ``TopRefs`` reads only a provider's most
recent stored rows (what ``list`` shows), the rest on first need.
``mergedrefs.MergedRefs`` orders several providers' sessions newest first, as
``Scanner.refs`` always has, without making them either.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Iterator, overload

from agentscan.model import SessionRef
from agentscan.memohint import UNRESOLVED


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

    @property
    def path_text(self) -> str | None:
        return self._path_text  # stored as ``str(path)`` (``stored_row``)

    @property  # type: ignore[override]
    def files(self) -> tuple[Path, ...]:
        return self._paths()[1]


def file_texts(ref: SessionRef) -> list[str]:
    """The session's files (else its path) as text, without making a ``Path`` for a stored
    one (a filtered ``list`` asks whether each of 15,000 sessions is running)."""
    if isinstance(ref, MemoRef):
        if ref._made is None:
            return ref._file_texts or ([ref._path_text] if ref._path_text is not None else [])
    return [str(path) for path in ref.read_files]


def memo_ref(provider: str, row: list[Any]) -> MemoRef:
    """A stored row (``[native id, path, recency, files, children, fingerprint]``) as a ref."""
    native_id, path, recency, files, children, fingerprint = row
    return MemoRef(provider, native_id, path, float(recency), files, tuple(children), fingerprint)


def stored_row(ref: SessionRef, fingerprint: str | None) -> list[Any]:
    """``ref`` as the index keeps it (``memo_ref`` makes it again)."""
    return [ref.native_id, str(ref.path) if ref.path is not None else None, ref.recency,
            [str(path) for path in ref.files], list(ref.children), fingerprint]


class LazyRefs(Sequence[SessionRef]):
    """A sequence whose items are made on access (``_item``), slices and iteration included
    (``MemoRefs``, and ``mergedrefs.MergedRefs``)."""

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


class MemoRefs(LazyRefs):
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

    @property
    def fingerprints(self) -> list[str]:
        """Each stored row's fingerprint, in discovery order (``scan.windowrefs``: no ref made)."""
        return [row[5] for row in self._rows]

    def __len__(self) -> int:
        return len(self._rows)

    def _item(self, index: int) -> MemoRef:
        made = self._made[index]
        if made is None:
            made = self._made[index] = memo_ref(self.provider, self._rows[index])
        return made


class TopRefs(MemoRefs):
    """One provider's stored sessions of which only the most recent rows were read
    (``memo.TOP`` of them, with each one's shortest shown id): ``list`` shows 25 of a
    heavy user's 15,000.  Anything beyond them reads the rest (``whole``) first."""

    def __init__(self, provider: str, top: list[tuple[int, list[Any], str]], count: int, refreshable: bool,
                 load_whole: Callable[[], MemoRefs]) -> None:
        """``top``: (discovery index, stored row, shown id) in recency order; ``count``: all
        the rows stored; ``load_whole``: every row, as a ``MemoRefs``."""
        self.provider = provider
        self.refreshable = refreshable
        self.stored = count
        self.top = top
        self._top_rows = {index: row for index, row, _ in top}
        self._top_made: dict[int, MemoRef] = {}
        self._load_whole = load_whole
        self._whole: MemoRefs | None = None

    @property
    def unread(self) -> bool:
        """Whether only the top rows have been read (all of them, when ``count`` is theirs)."""
        return self._whole is None

    def whole(self) -> MemoRefs:
        if self._whole is None:
            if self.stored == len(self.top):  # every row is a top row: nothing more to read
                whole = MemoRefs(self.provider, [row for _, row, _ in sorted(self.top, key=lambda item: item[0])],
                                 self.refreshable)
            else:
                whole = self._load_whole()
            for index, made in self._top_made.items():
                if index < len(whole) and whole._rows[index][0] == made.native_id:
                    whole._made[index] = made  # the refs handed out already stay the ones used
            self._whole = whole
        return self._whole

    @property
    def _rows(self) -> list[list[Any]]:  # type: ignore[override]
        return self.whole()._rows

    @property
    def _made(self) -> list[MemoRef | None]:  # type: ignore[override]
        return self.whole()._made

    @property
    def recencies(self) -> list[float]:  # type: ignore[override]
        return self.whole().recencies

    @property
    def native_ids(self) -> list[str]:  # type: ignore[override]
        return self.whole().native_ids

    def __len__(self) -> int:
        # Once read, the rest decides: rediscovered (``DiscoveryMemo._whole``) they may be more or fewer.
        return self.stored if self._whole is None else len(self._whole)

    def top_indexes(self, native_ids: set[str]) -> list[int] | None:
        """The discovery indexes of ``native_ids``, ascending, if every one is a top row."""
        found = sorted(index for index, row, _ in self.top if row[0] in native_ids)
        return found if len(found) == len(native_ids) else None

    def shown_ids(self) -> dict[str, str]:
        """The top rows' native ids -> their shortest unique shown prefix."""
        return {row[0]: shown for _, row, shown in self.top}

    def top_ref(self, index: int) -> MemoRef:
        """The top row at discovery ``index``, as stored, whether or not the rest was read
        since (``MergedRefs``' head: the rows it decided stay the ones shown)."""
        whole = self._whole
        row = self._top_rows[index]
        if whole is not None and index < len(whole) and whole._rows[index][0] == row[0]:
            return whole._item(index)
        made = self._top_made.get(index)
        if made is None:
            made = self._top_made[index] = memo_ref(self.provider, row)
        return made

    def _item(self, index: int) -> MemoRef:
        if self._whole is None and index in self._top_rows:
            return self.top_ref(index)
        return self.whole()._item(index)
