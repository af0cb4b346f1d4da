"""Evidence scoring: how two hook events are judged to belong together.

Hooks carry no timestamps and Cursor reuses ``tool_use_id`` across a batch, so
arrival order proves nothing.  Instead each shared field is compared:

* a field missing on either side says nothing (score 0);
* a field present on both sides and different rules the candidate out (``None``);
* a field equal on both sides adds its weight.

``unique_best`` then takes the highest score only when no other candidate has
it: a tie leaves the event unattached rather than guessing.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

T = TypeVar("T")
Score = int | None  # None: a conflicting field ruled the candidate out

_DRIVE = re.compile(r"^[a-z]:/")


def canonical(value: Any) -> str | None:
    """Canonical JSON text: JSON-in-a-string parsed, object keys sorted recursively, array order kept."""
    if value is None:
        return None
    return canonical_json(json_read(value))


def json_read(value: Any) -> Any:
    """``value``, or the object or array a string of JSON text holds (as ``canonical`` reads it)."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "["):
            try:
                return json.loads(stripped)
            except ValueError:
                pass
    return value


def canonical_json(value: Any) -> str:
    """``value`` (read: ``json_read``) as canonical JSON text: object keys sorted recursively."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def command_text(value: Any) -> str | None:
    """A shell command as compared: CRLF -> LF, trailing newlines trimmed."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value.replace("\r\n", "\n").rstrip("\r\n")


def path_text(value: Any) -> str | None:
    """A file or directory path as compared: slashes unified, trailing separator trimmed, case folded."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("\\", "/")
    if text.startswith("file://"):
        text = text[len("file://"):]
    if re.match(r"^/[A-Za-z]:/", text):  # "/c:/Users/…" URL-ish Windows paths
        text = text[1:]
    while len(text) > 1 and text.endswith("/") and not _DRIVE.fullmatch(text.casefold()):
        text = text[:-1]
    return text.casefold()


def same_path(left: str, right: str) -> bool:
    """Equal normalised paths, or a relative path that is the tail of an absolute one."""
    if left == right:
        return True
    for relative, absolute in ((left, right), (right, left)):
        if not _is_absolute(relative) and _is_absolute(absolute):
            tail = relative[2:] if relative.startswith("./") else relative
            if tail and absolute.endswith("/" + tail):
                return True
    return False


def _is_absolute(path: str) -> bool:
    return path.startswith("/") or bool(_DRIVE.match(path))


def compare(left: Any, right: Any, weight: int, equal: Callable[[Any, Any], bool] | None = None) -> Score:
    if left is None or right is None:
        return 0
    matched = equal(left, right) if equal is not None else left == right
    return weight if matched else None


#: (field, weight, equality) triples; equality None means ``==``
Rules = Sequence[tuple[str, int, Callable[[Any, Any], bool] | None]]


def score(left: Mapping[str, Any], right: Mapping[str, Any], rules: Rules) -> Score:
    total = 0
    for key, weight, equal in rules:
        part = compare(left.get(key), right.get(key), weight, equal)
        if part is None:
            return None
        total += part
    return total


def unique_best(scored: Iterable[tuple[T, Score]]) -> T | None:
    """The single highest-scoring candidate; ``None`` on a tie or when all were ruled out."""
    best: list[T] = []
    top = -1
    for candidate, value in scored:
        if value is None:
            continue
        if value > top:
            best, top = [candidate], value
        elif value == top:
            best.append(candidate)
    return best[0] if len(best) == 1 else None
