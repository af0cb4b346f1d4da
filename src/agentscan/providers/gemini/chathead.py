"""A Gemini chat's identity from a bounded read of its head (docs/providers/gemini.md).

Identity comes from the head, never from the file name (which holds only 8
characters of the id): the first line of a JSONL chat (its metadata record),
or the ``sessionId``/``projectHash`` strings near the top of a legacy
whole-file chat, found by a regex without parsing a possibly huge document.

A head that gives no ``sessionId`` is said with the reason the line readers
give (``toolkit.jsonl``): JSON that is an array, nested too deep, bytes that are
not UTF-8.  "no sessionId in the file's header" sent a user looking for a
missing field in a file that was no chat at all.
"""

from __future__ import annotations

import re

import orjson

from agentscan.toolkit import laxjson
from agentscan.toolkit.jsonerrors import short_json_error
from agentscan.toolkit.jsonkinds import json_kind

HEADER_BYTES = 64 * 1024
#: where a head says why it gave no ``sessionId`` (kept with its fields: ``ScanContext.remembered``)
PROBLEM = "problem"
# The legacy file is pretty-printed with sessionId and projectHash first; a
# regex over its head finds them without parsing a possibly huge document.
_JSON_STRING = rb'"%s"\s*:\s*("(?:[^"\\]|\\.)*")'
_FIELDS = ("sessionId", "projectHash")
#: orjson's words for a text that stopped early: a head cut by its bound says nothing then
_CUT = "unexpected end of data"


def jsonl_header(head: bytes, whole: bool) -> dict[str, str]:
    """``sessionId``/``projectHash`` of the first line (the metadata record); ``whole``:
    ``head`` is the whole file.  A first line that is no JSON (a field nested too deep)
    gives the strings a legacy head would, the rest of the chat still read: its reader
    says what is wrong with the line."""
    first, newline, _ = head.partition(b"\n")
    complete = whole or bool(newline)
    first = (first if complete else _complete(first)).strip()
    try:
        record = laxjson.loads(first)
    except orjson.JSONDecodeError as exc:
        found = legacy_header(first)
        if "sessionId" not in found:
            fault = _fault(exc, first, complete)
            if fault is not None:
                found[PROBLEM] = f"its first line is invalid JSON ({fault})"
        return found
    if not isinstance(record, dict):
        return {PROBLEM: f"its first line is {json_kind(record)}, not an object"}
    return {key: record[key] for key in _FIELDS if isinstance(record.get(key), str) and record[key]}


def legacy_header(head: bytes, whole: bool | None = None) -> dict[str, str]:
    """The fields of a legacy chat's head; ``whole`` (``None``: not asked) is whether
    ``head`` is the whole file, for the reason a head without a ``sessionId`` gives."""
    found: dict[str, str] = {}
    for key in _FIELDS:
        match = re.search(_JSON_STRING % key.encode(), head)
        if match is None:
            continue
        try:
            value = laxjson.loads(match.group(1))
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, str) and value:
            found[key] = value
    if "sessionId" not in found and whole is not None:
        problem = _legacy_problem(head, whole)
        if problem is not None:
            found[PROBLEM] = problem
    return found


def _legacy_problem(head: bytes, whole: bool) -> str | None:
    """What load_legacy would say of the file, as far as its head tells; ``None``: an object,
    or a head cut before anything is wrong."""
    data = head if whole else _complete(head)
    try:
        value = laxjson.loads(data)
    except orjson.JSONDecodeError as exc:
        fault = _fault(exc, data, whole)
        return None if fault is None else f"invalid JSON: {fault}"
    return None if isinstance(value, dict) else f"chat file's JSON is {json_kind(value)}, not an object"


def _fault(exc: orjson.JSONDecodeError, data: bytes, whole: bool) -> str | None:
    """A decoder's refusal of ``data`` for a warning, ``None`` when ``data`` is a head cut
    by its bound and the decoder only ran out of it."""
    if not whole and str(exc).startswith(_CUT):
        return None
    return short_json_error(exc, data)


def _complete(head: bytes) -> bytes:
    """``head`` without a character its bound cut in two (it is not the file's fault)."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == _CUT:
            return head[: exc.start]
    return head
