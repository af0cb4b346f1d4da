"""Several providers' sessions, most recent first, made into ``SessionRef``s only when asked for.

``Scanner.refs`` has always given the selected providers' sessions in one
recency order.  Sorting refs would make one for each of a heavy user's 15,000
stored sessions (``memorefs``) where ``list`` reads the 25 newest:
``MergedRefs`` sorts their recencies instead, and while a provider's stored
rows were read only to their top ones (``TopRefs``), it decides only the first
positions those rows settle, reading the rest when asked past them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence
from typing import Callable, Iterator, overload

from agentscan.model import SessionRef
from agentscan.scan.memorefs import LazyRefs, MemoRefs, TopRefs


class MergedRefs(LazyRefs):
    """Several providers' sessions, most recent first (equal recencies keep provider and
    discovery order, as a stable sort of the concatenation would)."""

    def __init__(self, parts: list[Sequence[SessionRef]]) -> None:
        self._parts = parts
        self._starts: list[int] = []
        start = 0
        for part in parts:
            self._starts.append(start)
            start += len(part)
        self._length = start
        self._ordered: list[int] | None = None
        #: while a part has only its top rows read: the first positions, as (part, index)
        self._head: list[tuple[int, int]] = []
        #: the parts read only to their top rows when the head was decided
        self._topped = {number for number, part in enumerate(parts) if isinstance(part, TopRefs) and part.unread}
        #: the positions after the head, as indexes into the parts laid end to end
        self._rest: list[int] | None = None
        #: the rest was discovered again and no longer follows the head in its own order
        self.reordered = False
        if self._topped:
            self._head = self._exact_head()
        else:
            self._order()

    def _order(self) -> list[int]:
        """Every session's index into the parts laid end to end (reading every row), most
        recent first."""
        if self._ordered is None:
            recencies: list[float] = []
            self._starts = []
            for part in self._parts:
                self._starts.append(len(recencies))
                recencies.extend(part.recencies if isinstance(part, MemoRefs) else [ref.recency for ref in part])
            self._ordered = sorted(range(len(recencies)), key=recencies.__getitem__, reverse=True)
            if not self._head:
                self._length = len(recencies)
        return self._ordered

    def _after_head(self) -> list[int]:
        """The positions after the head, as ``_order`` indexes: the full order less the
        head's sessions.  They are its first positions, unless the rest was discovered
        again (another run stored a newer discovery meanwhile: ``DiscoveryMemo._whole``):
        then every session the head did not show follows it, once."""
        if self._rest is None:
            order = self._order()
            count = len(self._head)
            if order[:count] == [self._starts[number] + index for number, index in self._head]:
                self._rest = order[count:] if count else order
            else:
                shown = {self._head_item(position).id for position in range(count)}
                self._rest = [at for at in order if self._at(at).id not in shown]
                self.reordered = True
            self._length = count + len(self._rest)
        return self._rest

    def _exact_head(self) -> list[tuple[int, int]]:
        """The first positions that the rows read so far decide: the order is by recency,
        newest first, then by part and index (a stable sort's); a part read only to its top
        rows decides no position after its last top row's."""
        keys: list[tuple[float, int, int]] = []
        bounds: list[tuple[float, int, int]] = []
        for number, part in enumerate(self._parts):
            if isinstance(part, TopRefs) and part.unread:
                tops = [(-float(row[2]), number, index) for index, row, _ in part.top]
                keys.extend(tops)
                if part.stored > len(tops):
                    if not tops:
                        return []  # rows, none of them read: nothing is decided
                    bounds.append(tops[-1])
            else:
                recencies = part.recencies if isinstance(part, MemoRefs) else [ref.recency for ref in part]
                keys.extend((-recency, number, index) for index, recency in enumerate(recencies))
        keys.sort()
        if bounds:
            last = min(bounds)
            keys = keys[:bisect_right(keys, last)]
        return [(number, index) for _, number, index in keys]

    def __len__(self) -> int:
        return self._length

    # Past the head, the length is the one of the rows read (``_after_head``): it is read
    # before a slice or an iteration goes past the head.

    @overload
    def __getitem__(self, index: int) -> SessionRef: ...

    @overload
    def __getitem__(self, index: slice) -> list[SessionRef]: ...

    def __getitem__(self, index: int | slice) -> SessionRef | list[SessionRef]:
        if self._rest is None:
            if isinstance(index, slice):
                positions = range(*index.indices(len(self)))
                past = bool(positions) and max(positions[0], positions[-1]) >= len(self._head)
            else:
                past = not 0 <= index < len(self._head)
            if past:
                self._after_head()
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[SessionRef]:
        yield from (self._head_item(position) for position in range(len(self._head)))
        rest = self._after_head()
        # Each part's own maker of a ref, asked directly: through ``_at`` and the parts'
        # ``__getitem__`` (a bounds check, ``TopRefs``' question whether it was read whole) the
        # 15,000 refs of a windowed ``tokens`` (it makes every one) cost twice as much.
        # (``_after_head`` read every part whole: its indexes are within their parts.)
        makers = [part.whole()._item if isinstance(part, TopRefs) else part._item if isinstance(part, MemoRefs)
                  else part.__getitem__ for part in self._parts]
        starts = self._starts
        if len(makers) == 1:
            yield from map(makers[0], rest)
            return
        for index in rest:
            part = bisect_right(starts, index) - 1
            yield makers[part](index - starts[part])

    def decided(self, stop: int) -> int:
        """``stop``, or less: where the positions the rows read so far decide end (reading on
        past them reads every stored row of a provider read only to its top)."""
        return stop if self._ordered is not None else min(stop, len(self._head))

    def sessions(self, fingerprint: Callable[[SessionRef], str | None]) -> list[tuple[str, str | None]] | None:
        """Each session's id and fingerprint (``fingerprint`` of a ref not from the index), in
        this sequence's order, without making a ref per stored row; ``None`` when the head and
        the rest no longer share one order (``reordered``)."""
        if self._head:
            self._after_head()
            if self.reordered:
                return None
        flat: list[tuple[str, str | None]] = []
        for part in self._parts:
            if isinstance(part, MemoRefs):
                prefix = part.provider + ":"
                flat.extend([(prefix + row[0], row[5]) for row in part.rows])
            else:
                flat.extend([(ref.id, fingerprint(ref)) for ref in part])
        return [flat[index] for index in self._order()]

    def whole_parts(self) -> list[Sequence[SessionRef]] | None:
        """Each provider's part read whole (``TopRefs.whole``), in part order: the rows behind
        ``at_positions``' positions; ``None`` when the head and the rest no longer share one
        order (``reordered``)."""
        if self._head:
            self._after_head()
            if self.reordered:
                return None
        self._order()
        return [part.whole() if isinstance(part, TopRefs) else part for part in self._parts]

    def at_positions(self, positions: Collection[int]) -> tuple[list[SessionRef], list[int]]:
        """The refs at ``positions`` (indexes into ``whole_parts`` laid end to end) in this
        sequence's order, made alone (a window's few of 15,000: ``scan.windowrefs``), and the
        numbers of the parts in the order their first sessions come in it."""
        order = self._order()
        starts = self._starts
        makers = [part.whole()._item if isinstance(part, TopRefs) else part._item if isinstance(part, MemoRefs)
                  else part.__getitem__ for part in self._parts]
        refs = []
        for index in order:
            if index in positions:
                part = bisect_right(starts, index) - 1
                refs.append(makers[part](index - starts[part]))
        first: list[int] = []
        wanted = sum(1 for part in self._parts if len(part))
        for index in order:  # (each part's newest comes early: a few steps)
            part = bisect_right(starts, index) - 1
            if part not in first:
                first.append(part)
                if len(first) == wanted:
                    break
        return refs, first

    def find(self, ids: Collection[str]) -> dict[str, SessionRef] | None:
        """Those of ``ids`` among these sessions, by id, as a walk of them all keeps them (the
        last of an id met twice), making the refs of those alone; ``None`` when the head and
        the rest no longer share one order."""
        parts = self.whole_parts()
        if parts is None:
            return None
        positions: list[int] = []
        start = 0
        for part in parts:
            if isinstance(part, MemoRefs):
                prefix = part.provider + ":"
                natives = {ref_id[len(prefix):] for ref_id in ids if ref_id.startswith(prefix)}
                if natives:
                    positions += [start + index for index, native in enumerate(part.native_ids) if native in natives]
            else:
                positions += [start + index for index, ref in enumerate(part) if ref.id in ids]
            start += len(part)
        return {ref.id: ref for ref in self.at_positions(set(positions))[0]}

    def providers(self) -> set[str]:
        """The providers of the sessions here, without making a ref of a stored one."""
        return {name for part in self._parts for name in
                (((part.provider,) if len(part) else ()) if isinstance(part, MemoRefs) else (ref.provider for ref in part))}

    def _head_item(self, position: int) -> SessionRef:
        number, index = self._head[position]
        part = self._parts[number]
        if number in self._topped and isinstance(part, TopRefs):
            return part.top_ref(index)
        return part._item(index) if isinstance(part, LazyRefs) else part[index]  # (a head's index is in its part)

    def _at(self, index: int) -> SessionRef:
        part = bisect_right(self._starts, index) - 1
        return self._parts[part][index - self._starts[part]]

    def _item(self, position: int) -> SessionRef:
        if position < len(self._head):
            return self._head_item(position)
        return self._at(self._after_head()[position - len(self._head)])
