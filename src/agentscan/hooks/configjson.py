"""An agent's JSON config read and written back as it was (``hooks.install``).

Read: refused, rather than rewritten lossily, when it could not come back the
same (a key twice in one object, a number too large for a double, ``NaN``).
Written: in the file's own indentation, line endings and final newline, so for a
file laid out as the agents write it (plain JSON, one value a line) an uninstall
after an install gives back the very bytes the install started from; another
layout keeps its values (``install.Plan.relaid`` says so).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

from agentscan.errors import HookConfigError

_SURROGATE = re.compile("[\ud800-\udfff]")


#: a config nested deeper than ``json`` decodes (``TooDeep``)
TOO_DEEP = "nests its values too deeply to be read"


class TooDeep(ValueError):
    """A config nested deeper than ``json`` decodes (its ``RecursionError``): a ``ValueError``
    as any other config that is no JSON to read, said ``TOO_DEEP`` (``reason``)."""


def loads(text: str, **kwargs: Any) -> Any:
    """``json.loads``, a config nested too deeply refused as ``TooDeep``: every reader of one
    handles a ``ValueError`` alone."""
    return _bounded(lambda: json.loads(text, **kwargs))


def copied(config: Any) -> Any:
    """A copy of a config ``parse`` read, for a merge to change: through ``json`` (one frame a
    level, as it was read), where ``copy.deepcopy`` took two and met its ``RecursionError`` at
    half the depth ``loads`` reads (a traceback from ``hooks install``); ``TooDeep`` if even so."""
    return _bounded(lambda: json.loads(json.dumps(config)))


def _bounded(work: Callable[[], Any]) -> Any:
    # The one place a config's ``RecursionError`` is met (read, copied or written back).
    try:
        return work()
    except RecursionError:
        raise TooDeep(TOO_DEEP) from None


def too_deep(path: Path) -> HookConfigError:
    """An install's or uninstall's refusal of the config at ``path`` nested too deeply."""
    return HookConfigError(f"{path} {TOO_DEEP}; agentscan will not overwrite it")


def reason(exc: ValueError, text: str, agent: str | None = None) -> str | None:
    """Why a config ``loads`` refused (``exc``) is not read, when it has a reason of its own:
    ``TOO_DEEP`` (its comments blanked too), or for ``agent`` ``gemini`` ``GEMINI_COMMENTS`` (JSON
    once they are blanked); ``None``: it is not valid JSON (``fault`` says where)."""
    try:
        return TOO_DEEP if isinstance(exc, TooDeep) else GEMINI_COMMENTS if agent == "gemini" and commented(text) else None
    except TooDeep:
        return TOO_DEEP


def parse(path: Path, text: str | None, agent: str | None = None, *, install: bool = True,
          wrapped: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``text``, the config at ``path``, parsed, or refused (``HookConfigError``) when agentscan
    could not write it back as it was; ``agent``'s file (``gemini``: one with comments is
    said so, since Gemini CLI reads them, with what to do by hand for an ``install`` or not;
    ``wrapped``: ``commented_refusal``'s)."""
    if text is None or not text.strip():
        return {}
    try:
        config = loads(text, object_pairs_hook=_unique, parse_float=_finite, parse_constant=_not_json)
    except _Duplicate as exc:
        raise HookConfigError(f"{path} holds the key {exc} twice; the agent reads only the last one and "
                              "agentscan would drop the other: remove one first, agentscan will not overwrite it",
                              unwritten=f"it holds the key {exc} twice (the agent reads the last one), which "
                              "agentscan cannot write back") from None
    except _TooLarge as exc:
        raise HookConfigError(f"{path} holds the number {exc}, which would be written back as Infinity; "
                              "agentscan will not overwrite it",
                              unwritten=f"it holds the number {exc}, which agentscan would write back as Infinity") from None
    except ValueError as exc:
        said = reason(exc, text, agent)
        if said == TOO_DEEP:
            raise too_deep(path) from None
        if said is not None:
            raise HookConfigError(f"{path} {commented_refusal(path, text, install=install, wrapped=wrapped)}",
                                  unwritten="it holds comments, which agentscan cannot write back") from None
        raise HookConfigError(f"{path} is not valid JSON ({fault(exc, text, agent)}); fix it first, "
                              "agentscan will not overwrite it") from None
    if not isinstance(config, dict):
        raise HookConfigError(f"{path} does not hold a JSON object; agentscan will not overwrite it")
    return config


def fault(exc: ValueError, text: str | None = None, agent: str | None = None) -> str:
    """What is wrong with a config ``json`` refused, and where as a person finds it in an
    editor: ``expecting ',' delimiter at line 3, column 5``, without the ``(char 40)`` (an
    offset no editor shows) the decoder's own words end with.  Python's words, not the
    phrases a transcript's bad line gets (``toolkit.jsonerrors``, which maps orjson's): a
    config is a document a person edits, its fault said as ``json`` finds it, already in
    plain English; a transcript line is the agent's, and orjson's words for it were not.
    For ``agent`` ``gemini``, ``text`` with comments: the fault once they are blanked, as
    Gemini CLI meets it (not "expecting value" at its first comment)."""
    if agent == "gemini" and text is not None:
        from agentscan.toolkit.jsoncomments import blank_comments

        if blank_comments(text)[1]:
            try:
                as_gemini_reads(text)
            except ValueError as blanked:
                exc = blanked
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg[:1].lower()}{exc.msg[1:]} at line {exc.lineno}, column {exc.colno}"
    if isinstance(exc, NotJson) and text is not None:
        return f"{exc}{_constant_at(text)}"
    return str(exc)


#: why a Gemini CLI settings file with comments is refused (after its path)
GEMINI_COMMENTS = ("holds comments, which Gemini CLI allows but agentscan cannot write back: remove them, "
                   "or add agentscan's entries by hand; agentscan will not overwrite it")
#: the same for ``hooks uninstall`` (whose entries are there to take out, not to add)
GEMINI_COMMENTS_OUT = ("holds comments, which Gemini CLI allows but agentscan cannot write back: remove "
                       "agentscan's entries by hand (or the comments, then uninstall again); agentscan will "
                       "not overwrite it")


#: ``hooks status``'s note on a Gemini CLI settings file with comments, which Gemini CLI reads
#: and runs the entries of: it is judged as Gemini CLI reads it
GEMINI_REMARK = ("it holds comments, which Gemini CLI allows but agentscan cannot write back: `hooks install` and "
                 "`hooks uninstall` will not change it (edit agentscan's entries by hand, or remove the comments)")


def commented(text: str) -> bool:
    """Whether ``text`` holds ``//`` or ``/* */`` comments and is JSON once they are blanked
    (Gemini CLI reads its settings with ``strip-json-comments``): a comment written back would
    be lost, so such a file is refused as any other, with its own reason.  NaN and Infinity
    are no JSON here either, as Gemini CLI (``as_gemini_reads``) reads them."""
    from agentscan.toolkit.jsoncomments import blank_comments

    blanked, found = blank_comments(text)
    if not found:
        return False
    try:
        loads(blanked, parse_constant=_not_json)
    except TooDeep:
        raise  # (not "not commented": too deep, as ``reason`` says it)
    except ValueError:
        return False
    return True


def commented_refusal(path: Path, text: str, *, install: bool = True, wrapped: frozenset[str] = frozenset()) -> str:
    """Why a Gemini CLI settings file with comments (``commented``) is refused (with what to do
    by hand for an ``install`` or not), and what a removal of them would meet next (no object,
    ``"hooks": []``, a key twice), said at once rather than after the user removed them;
    ``wrapped``: the events where an object is one more matcher group Gemini CLI runs
    (``geminionce.listed_before``), not said to be skipped."""
    from agentscan.hooks.events import GEMINI_EVENTS
    from agentscan.hooks.merging import merge_claude
    from agentscan.toolkit.jsoncomments import blank_comments

    said = GEMINI_COMMENTS if install else GEMINI_COMMENTS_OUT
    try:  # (as the install, or the uninstall, meets it: each shape it would change checked)
        command = "agentscan hook --agent gemini" if install else None
        merge_claude(path, parse(path, blank_comments(text)[0], "gemini"), GEMINI_EVENTS, command, "gemini", wrapped)
    except HookConfigError as exc:
        return f"{said}; and without them: {str(exc).removeprefix(str(path)).lstrip(': ')}"
    return said


def as_gemini_reads(text: str) -> Any:
    """``text`` as Gemini CLI reads a settings file (``settings.ts``: ``stripJsonComments``, then
    ``JSON.parse``: a key twice is the last, NaN and Infinity are no JSON), for a file agentscan
    only reads; ``ValueError`` (``TooDeep`` for one nested too deeply) when Gemini CLI would not
    read it either."""
    from agentscan.toolkit.jsoncomments import blank_comments

    return loads(blank_comments(text)[0], parse_constant=_not_json)


class _Duplicate(ValueError):
    pass


class _TooLarge(ValueError):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json keeps the last of two equal keys: rewriting the file would silently lose the first
    # (and {"//": "note", "//": "note"} is a common way to comment JSON).
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _Duplicate(json.dumps(key, ensure_ascii=False))
        seen.add(key)
    return dict(pairs)


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise _TooLarge(text)
    return number


def _not_json(name: str) -> Any:
    raise NotJson(f"{name} is not JSON")  # Python reads NaN/Infinity; the agents do not


class NotJson(ValueError):
    """``NaN`` or ``Infinity`` in a config: Python's ``json`` reads them, the agents'
    ``JSON.parse`` does not (``fault`` says where the first one is)."""


def as_agents_read(text: str) -> Any:
    """``text`` as the agents read a config (``JSON.parse``: a key twice is the last, NaN and
    Infinity are no JSON: ``NotJson``), for a file only read (``hooks status``); ``TooDeep``
    for one nested too deeply."""
    return loads(text, parse_constant=_not_json)


#: a JSON string, or a word Python's ``json`` reads as a number and the agents refuse
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN', re.DOTALL)


def _constant_at(text: str) -> str:
    """Where a ``NotJson`` word first stands outside a string and a comment in ``text``, as an
    editor shows it (its comments blanked in place: a word, or a quote, in one is not read)."""
    from agentscan.toolkit.jsoncomments import blank_comments

    for found in _CONSTANT.finditer(blank_comments(text)[0]):
        if found[0][0] != '"':
            at = json.JSONDecodeError("", text, found.start())  # (its line and column, as ``fault`` says them)
            return f" at line {at.lineno}, column {at.colno}"
    return ""


def render(config: dict[str, Any], before: str | None) -> str:
    """The config as JSON text laid out like ``before``: its indentation (tabs or N
    spaces, else 2), its line endings and whether it ended with a newline."""
    found = re.search(r"\n( +|\t+)\S", before or "")
    text = _bounded(lambda: json.dumps(config, indent=found.group(1) if found else 2, ensure_ascii=False))
    # A lone surrogate (a "\ud83d" escape with no partner) cannot be written in UTF-8:
    # keep it as the escape it was read from.
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    if not before or before.endswith("\n"):
        text += "\n"
    return text.replace("\n", "\r\n") if before and "\r\n" in before else text
