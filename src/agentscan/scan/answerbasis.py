"""A kept basis as stored (``scan.answerpatch``): a header line, then sections it places.

The header (JSON) holds the format, each section's place (start and length),
the sessions whose calls meet another's, the total (its tokens, how many rows
were recorded and priced, its cost) and the prices the answer names.  The
sections hold every row's id, fingerprint and details (tokens, exact cost,
where its key hashes are), the key hashes, each provider's all sorted, and
either the ``--json`` answer with each row's place in it, or a line of
extras for each row (the text table's, ``cli.tablepatch``).  ``Sections`` lays them out for
``answerpatch.keep``; ``Basis`` reads them back checked, and only as far as a
patch needs: a heavy user's basis is 20 MB, and a patch wants the details of
the few rows that changed.
"""

from __future__ import annotations

from decimal import Decimal

import orjson

#: the layout ``answerpatch.keep`` writes; a basis of another is not read (the answer is made whole)
FORMAT = 1
#: a row's cost in the basis when it cannot be taken out of the total (``answerpatch._cost_of``)
OPAQUE = ""


class Sections:
    """The basis's value after its header line: sections of bytes, each placed by the header
    (kept as parts, joined once when sealed: a heavy user's is 20 MB)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.places: dict[str, list[int]] = {}

    def append(self, data: bytes) -> int:
        """Add ``data`` unnamed; gives where it starts."""
        start = self.size
        self.parts.append(data)
        self.size += len(data)
        return start

    def add(self, name: str, data: bytes) -> None:
        self.places[name] = [self.append(data), len(data)]


class Damaged(Exception):
    """The basis does not decode to the shape ``answerpatch.keep`` writes."""


#: what may go wrong decoding a basis (``orjson.JSONDecodeError`` is a ``ValueError``)
_DECODING = (ValueError, KeyError, TypeError, IndexError, ArithmeticError)


#: a basis row's tokens, exact cost and key hashes
Details = tuple[list[int] | None, str | None, memoryview]


class Basis:
    """A kept basis, decoded as far as a patch needs: every row's id, fingerprint and place;
    the rest (tokens, costs, key hashes) only for the rows that changed."""

    def __init__(self, value: memoryview) -> None:
        """``value``: the unsealed basis (raises ``Damaged``)."""
        try:
            # The header line is short (the rows are in the sections): looked for in a prefix.
            split = value[:1 << 16].tobytes().find(b"\n")
            if split < 0:
                split = value.tobytes().index(b"\n")
            header = self.header = orjson.loads(value[:split])
            self.body = value[split + 1:]
            if header["format"] != FORMAT or not isinstance(header["sharing"], dict) or not isinstance(header["prices"], dict):
                raise ValueError("a basis of another format")
            self.total = [int(field) for field in header["total"]]
            self.recorded, self.known = int(header["recorded"]), int(header["known"])
            if type(header["cost"]) is not str:
                raise TypeError("a cost that is no decimal string")
            self.cost = Decimal(header["cost"])
            self.sharers = {str(session_id) for ids in header["sharing"].values() for session_id in ids}
            self.ids = self.section("ids").tobytes().decode("utf-8", "surrogateescape").split("\n")
            self.fingerprints = self.section("fingerprints").tobytes().decode("utf-8", "surrogateescape").split("\n")
            # A ``--json`` basis places each row in its answer; a text table's has a line of
            # extras a row instead (``answerpatch.keep``).
            self.places = self.section("places").cast("q") if "places" in header["sections"] else None
        except _DECODING as exc:
            raise Damaged(str(exc)) from None
        if len(self.total) != 5 or len(self.ids) != len(self.fingerprints) or (
                self.places is not None and len(self.places) != 2 * len(self.ids)):
            raise Damaged("rows of another shape")
        self.index = {session_id: index for index, session_id in enumerate(self.ids)}
        self._details: list[bytes] | None = None
        self._extras: list[bytes] | None = None

    def section(self, name: str) -> memoryview:
        try:
            start, length = self.header["sections"][name]
        except _DECODING as exc:
            raise Damaged(str(exc)) from None
        if not (type(start) is int and type(length) is int and 0 <= start <= start + length <= len(self.body)):
            raise Damaged(f"section {name} out of bounds")
        return self.body[start:start + length]

    def key_set(self, provider: str) -> memoryview:
        """Every key hash of the provider's sessions, sorted (none: the basis had no session of it)."""
        name = f"set:{provider}"
        sections = self.header["sections"]
        if not isinstance(sections, dict):
            raise Damaged("sections of another shape")
        if name not in sections:
            return memoryview(b"").cast("Q")
        found = self.section(name)
        if len(found) % 8:
            raise Damaged(f"{name} of another shape")
        return found.cast("Q")

    def details(self, index: int) -> Details:
        """Row ``index``'s tokens, cost and key hashes."""
        try:
            if self._details is None:
                self._details = self.section("details").tobytes().split(b"\n")
            tokens, cost, start, length = orjson.loads(self._details[index])
            if not (tokens is None or (type(tokens) is list and len(tokens) == 5 and all(type(t) is int for t in tokens))):
                raise TypeError("tokens of another shape")
            if cost is not None and cost != OPAQUE:
                Decimal(cost)  # a cost that is no number is a damaged basis, found here
            if not (type(start) is int and type(length) is int and 0 <= start <= start + length <= len(self.body)):
                raise ValueError("key hashes out of bounds")
            return tokens, cost, self.body[start:start + length].cast("Q")
        except _DECODING as exc:
            raise Damaged(str(exc)) from None

    def extras(self, index: int) -> bytes:
        """Row ``index``'s line of extras."""
        if self._extras is None:
            lines = self.section("extras").tobytes().split(b"\n")
            if len(lines) != len(self.ids):
                raise Damaged("extras of another shape")  # and again if asked again
            self._extras = lines
        return self._extras[index]

    def answer_of(self, first: int, last: int) -> bytes:
        """Rows ``first`` to ``last`` (adjacent in the kept answer) as printed there."""
        answer = self.section("answer")
        if self.places is None:
            raise Damaged("a basis with no answer")
        start = self.places[2 * first]
        return answer[start:self.places[2 * last] + self.places[2 * last + 1]].tobytes()
