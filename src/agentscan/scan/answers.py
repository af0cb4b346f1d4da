"""Whole answers remembered while every input they were computed from is unchanged.

``tokens --json`` over a heavy user's history adds up 15,000 sessions' sums
and prices each one: work whose result cannot differ while no file under
any selected provider's roots changed (the census, ``scan.census``), the
settings that chose those roots are the same (``scan.memo.settings_identity``, in
each census stamp: the warnings they raise are said again with the answer), the price data is
the same, and the question (its options) is the same.  The
answer is stored in the index with those as its key; a run that finds the
same key prints it again, warnings included.  Any change is a miss, and
the answer is computed as usual (and stored again).

The key is worked out *before* the answer is computed, so a file that
changes while a run reads it makes the stored answer unreachable rather
than stale.

An answer whose hints name the program to run (``invocation.program_word``:
``agentscan``, ``python3 -m agentscan``) keeps that word: printed again only
while this run's word is the same (checked without working it out while
``argv[0]``, this Python and ``PATH`` are those it was worked out from).
"""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple

from agentscan import invocation
from agentscan.sealing import framed, framed_parts, sealed_parts, unframed, unseal
from agentscan.digests import blake2b
from agentscan.toldwarnings import Counted, Told

# Printing a remembered answer imports neither orjson nor the model: orjson imports
# ``dataclasses`` (and with it ``inspect``, ``ast``, ``dis``), ``uuid`` and ``json``, and
# the model makes its dataclasses; together a quarter of a warm ``tokens``.
if TYPE_CHECKING:
    from agentscan.warningsink import Captured
    from agentscan.scan.scanner import Scanner

#: (2: the warnings as ``toldwarnings`` keeps them, each file's count in its place; 3: the
#: program its hints name, if any, kept with them)
_FORMAT = 3


def answer_key(scanner: Scanner, command: str, question: Mapping[str, Any], providers: list[str], *,
               witnesses: bool = False) -> str | None:
    """What the answer depends on, as one digest (``None``: do not remember it).
    ``witnesses``: the answer shows facts other providers reveal (a Gemini session's
    project): every provider's census counts, not just the selected ones'."""
    if scanner.cache is None:
        return None
    stamps = []
    stamped = scanner.witnesses if witnesses else scanner.selected(providers)
    scanner.take_censuses(stamped)
    for provider in stamped:
        stamp = scanner.census_stamp(provider)
        if stamp is None or not stamp.settled:  # a file changed just now may change again unseen
            return None
        stamps.append(f"{provider.name}={stamp.value}")
    asked = question_identity(scanner, command, question)
    if asked is None:
        return None
    # Each stamp holds the settings that chose the roots too (``memo.census_plan``): the
    # warnings they raise (a relative ``CODEX_HOME`` ignored) are said again with the answer.
    text = "\n".join([asked, *stamps])
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def question_identity(scanner: Scanner, command: str, question: Mapping[str, Any]) -> str | None:
    """The code, the price data and the question (``None``: it cannot be told): what an
    answer depends on besides the files (``scan.answerpatch`` keeps a whole answer by it)."""
    from agentscan.codeid import code_identity

    prices = price_identity(scanner)
    if prices is None:
        return None
    asked = _identity_text(question)
    if asked is None:
        return None
    # Not the program run (``PATH``, ``argv[0]``): an answer whose hints name it keeps the word
    # and is checked on recall (``_same_program``).  In the key, cron's ``PATH`` and a shell's
    # (a venv activated, direnv) took turns pushing out each other's answer, byte for byte the same.
    text = "\n".join([code_identity(), str(_FORMAT), command, asked, prices])
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def price_identity(scanner: Scanner) -> str | None:
    """The price data costs are computed from, as ``pricing.source.identity`` tells it
    (the installed genai-prices and the fetched files' stats; ``None``: it cannot be
    told).  Once per scan: a ``tokens`` run asks for its answer's key and again for its
    kept rows."""
    memo = scanner.ctx.memo
    if _PRICES not in memo:
        from agentscan.pricing import source

        memo[_PRICES] = source.identity(scanner.ctx.env)
    return memo[_PRICES]


_PRICES = "answers.price_identity"


def _identity_text(value: Any) -> str | None:
    """``value`` (JSON: a question) as text that is equal exactly when the values are
    (a mapping's order aside); ``None``: not JSON."""
    try:
        return repr(_canonical(value))
    except TypeError:
        return None


def _canonical(value: Any) -> Any:
    # ``repr`` tells ``1`` from ``"1"`` and ``True``, and quotes every string: text as
    # unambiguous as JSON's, without importing a JSON library.
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, Mapping):
        if not all(type(key) is str for key in value):
            raise TypeError("a JSON object's keys are strings")
        return ("{", sorted((key, _canonical(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    raise TypeError(f"not JSON: {type(value).__name__}")


def zone_identity(zone: tzinfo | None) -> str:
    """A zone for the key: an IANA name, or what makes up the local zone (``None``)."""
    if zone is not None:
        return str(zone)
    import os
    import time

    return f"local:{os.environ.get('TZ')}:{time.tzname}:{time.timezone}:{time.altzone}"


#: the answers of one command kept by their own slots (``remember(kept=…)``): ``list``'s pages
#: and ``tokens --cwd``'s directories, the ones stored last
KEPT_SLOTS = 16


def slot_of(text: str, prefix: str = "") -> str:
    """A question's own ``slot`` for ``text`` (its options, a directory), short and fixed
    in size; ``prefix`` keeps such slots apart from a command's others (``remember``'s
    ``kept_under``)."""
    return prefix + blake2b(text.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()


def _slot(command: str, question: Mapping[str, Any]) -> str:
    # One stored answer per command and grouping (or the question's own ``slot``, kept
    # ``remember(kept=…)`` at most): bounded, and a user who asks for --by day and
    # --by session in turn keeps both.
    return f"answer:{command}:{question.get('slot', question.get('by', ''))}"


class Recalled(NamedTuple):
    """A stored answer: the bytes it was printed as (``remember``), and the warnings its
    computation raised, to be said again (``say_again``) once the caller prints it."""

    answer: bytes
    #: each file's count past those kept in its place (``toldwarnings``)
    told: tuple[Told, ...]


def recall(scanner: Scanner, command: str, question: Mapping[str, Any], key: str | None) -> Recalled | None:
    """The stored answer; ``None``: not stored (or damaged), or its hints name another program."""
    if key is None or scanner.cache is None:
        return None
    payload = unseal(scanner.cache.get_snapshot(_slot(command, question), key))
    parts = unframed(payload) if payload is not None else None
    head = unframed(parts[0]) if parts is not None else None
    told = _told_of(head[1]) if head is not None else None
    found = Recalled(parts[1], told) if parts is not None and head is not None and told is not None \
        and _same_program(head[0]) else None
    # From here the answer is made (on a miss): whether that names the program (``remember``).
    scanner.ctx.memo[_ASKED] = invocation.program_asked()
    return found


def _program_blob() -> bytes:
    """The program as an answer keeps it: what the word was worked out from (a digest), then
    the word."""
    word = invocation.program_word()
    return _program_digest() + word.encode("utf-8", "surrogateescape")


def _program_digest() -> bytes:
    text = "\0".join(invocation.program_key())
    return blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest().encode("ascii")


def _same_program(kept: bytes) -> bool:
    """Whether an answer that kept ``kept`` (``_program_blob``; empty: its making never asked
    the program) names the program this run would: worked out from the same (``argv[0]``,
    this Python, ``PATH``), or to the same word."""
    if not kept:
        return True
    digest, word = kept[:32], kept[32:]
    if digest == _program_digest():
        return True
    return invocation.program_word().encode("utf-8", "surrogateescape") == word


#: the memo's count of ``invocation.program_asked`` when the answer began to be made (``recall``)
_ASKED = "answers.program_asked"


def say_again(scanner: Scanner, recalled: Recalled) -> None:
    """Say the warnings of an answer printed again, as its computation said them
    (``cli.recorded.print_again``)."""
    scanner.ctx.warnings.say_again(recalled.told)


# The warnings an answer is stored with are not JSON: decoding them would import orjson
# (and with it ``dataclasses``) where a warm run needs nothing else of it.  Each entry is a
# warning's three fields or, after a ``+`` (no field begins so), a file's count past its
# listed ones (path, count, last line) in its place; each field its length in bytes, a colon,
# then the field (a line number as digits, or nothing).


def _told_blob(told: tuple[Told, ...]) -> bytes:
    fields = []
    for item in told:
        if isinstance(item, Counted):
            fields.append(b"+")
            texts = (item.path, str(item.past), str(item.last))
        else:
            path, message, line, _ = item
            texts = (path, message, "" if line is None else str(line))
        for text in texts:
            field = text.encode("utf-8", "surrogatepass")
            fields.append(b"%d:%s" % (len(field), field))
    return b"".join(fields)


def _told_of(blob: bytes) -> tuple[Told, ...] | None:
    """``_told_blob``'s entries; ``None``: damaged."""
    told: list[Told] = []
    fields: list[str] = []
    counted = False
    at = 0
    while at < len(blob):
        if blob[at] == 43 and not fields:  # ``+``: a count's fields follow
            counted, at = True, at + 1
            continue
        colon = blob.find(b":", at)
        length = blob[at:colon]
        if colon < 0 or not length.isdigit() or colon + 1 + int(length) > len(blob):
            return None
        end = colon + 1 + int(length)
        try:
            fields.append(blob[colon + 1:end].decode("utf-8", "surrogatepass"))
        except UnicodeDecodeError:
            return None
        at = end
        if len(fields) == 3:
            path, second, line = fields
            if counted:
                if not (second.isascii() and second.isdigit() and line.isascii() and line.isdigit()):
                    return None
                told.append(Counted(path, int(second), int(line)))
            else:
                # A line number as ``str(int)`` wrote it (none is negative today; one would read back as is).
                if not (line == "" or (line.isascii() and line.removeprefix("-").isdigit())):
                    return None
                told.append((path, second, int(line) if line else None, False))
            fields, counted = [], False
    return None if fields or counted else tuple(told)


def remember(scanner: Scanner, command: str, question: Mapping[str, Any], key: str | None,
             answer: bytes, warnings: Captured, *, kept: int | None = None, kept_under: str = "") -> None:
    """Keep ``answer`` (what was printed) under ``key``; ``warnings``: every warning its
    computation raised, as ``ScanContext.warnings.capture(MAX_WARNINGS)`` caught them (said
    again on recall, they fold into the same list).  ``kept``: the command's answers stored
    last that are kept (each question its own ``slot``), of those whose slot begins with
    ``kept_under``; the others are forgotten."""
    # Something not read this time (``ScanContext.warn(passing=True)``) must be read next time.
    # Those past what was kept are kept as a count in its place (``Captured.told``): said again, they fold
    # as they did; one the count cannot say (``lost``) would go unsaid.
    if key is None or scanner.cache is None or warnings.lost or warnings.passing:
        return
    blob = _told_blob(warnings.told())
    # Its hints (or its warnings) name the program run when its making asked for the word:
    # kept, to be checked on recall; an answer that names none is the same whatever ran it.
    asked = invocation.program_asked() > scanner.ctx.memo.get(_ASKED, 0)
    head = framed(_program_blob() if asked else b"", blob)
    scanner.cache.put_snapshot_parts(_slot(command, question), key, sealed_parts(framed_parts(head, answer)))
    if kept is not None:
        scanner.cache.keep_newest_snapshots(f"answer:{command}:{kept_under}", kept)
    scanner.cache.commit()
