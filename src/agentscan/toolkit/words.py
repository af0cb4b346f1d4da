"""Counted words, as every message says them: ``1 span``, ``2 spans``, ``1,204 tool calls``.

Here, not in ``cli.render``: the library's own messages (an export's warnings, a hook's
log) count things too, and must not import the CLI.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, NamedTuple, TypeVar

_Target = TypeVar("_Target", bound=Hashable)


def plural(count: int, word: str, words: str | None = None) -> str:
    """``count`` and ``word``, or ``words`` (default: ``word`` + ``s``) when it is not one."""
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


class Agreeing(NamedTuple):
    """The words that agree with a count said before them (``plural``'s): one's or many's.
    ``1 session ... left as it was``, ``2 sessions ... left as they were``: ``agreeing(count)``
    in an f-string, ``{they.it_was}``, instead of ``'it was' if count == 1 else 'they were'``
    written again at each message (and a slip where one was missed)."""

    #: a noun's ending (``row{s}``)
    s: str
    it: str
    its: str
    is_: str
    was: str
    has: str

    @property
    def it_was(self) -> str:
        return f"{self.it} {self.was}"

    @property
    def it_is(self) -> str:
        return f"{self.it} {self.is_}"


_ONE = Agreeing("", "it", "its", "is", "was", "has")
_MANY = Agreeing("s", "they", "their", "are", "were", "have")


def agreeing(count: int) -> Agreeing:
    """The words agreeing with ``count`` (many for none, as ``plural`` says ``0 sessions``)."""
    return _ONE if count == 1 else _MANY


def either(names: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: the choices a "did you mean" offers."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


#: how alike a typed name and a known one must be to be offered (``difflib``'s ratio, dashes
#: and case aside): click's own cutoff, 0.6 with the dashes, offered ``--verbose`` for
#: ``--bogus``, ``--json`` for ``--sinc`` and ``trace`` for ``cache``
SLIP_CUTOFF = 0.75


def close_names(typed: str, names: Iterable[str]) -> list[str]:
    """Those of ``names`` (options, commands, a choice's values) that ``typed`` is plausibly a
    slip for, in their order: nearly the same (``--verbos``, ``gemni``), one it begins
    (``--dry`` of ``--dry-run``, ``claud``), or the same letters with two swapped (``dya``,
    whose ratio to ``day`` is only 0.67)."""
    from difflib import SequenceMatcher

    name = typed.lstrip("-").casefold()
    close = []
    for known in names:
        other = known.lstrip("-").casefold()
        if (SequenceMatcher(None, name, other).ratio() >= SLIP_CUTOFF
                or (len(name) >= 3 and (other.startswith(name) or sorted(name) == sorted(other)))):
            close.append(known)
    return close


#: the vendors whose models agents run, with the providers whose sessions run them and the word
#: ``--grep`` finds their models by: ``-p openai`` is no slip for Codex alone (Cursor runs GPT models
#: too), so the providers are said, and one offered only when it is the vendor's own (``anysphere``)
_VENDORS = {"anthropic": ("Anthropic", ("claude", "cursor"), "claude"), "openai": ("OpenAI", ("codex", "cursor"), "gpt"),
            "google": ("Google", ("gemini", "cursor"), "gemini"), "anysphere": ("Anysphere", ("cursor",), "")}
#: what follows an agent's name in its product's (``Claude Code``, ``Codex CLI``, ``Cursor Agent``);
#: not ``desktop``: Claude Desktop's chats are not sessions agentscan reads (``_NOT_READ``)
_PRODUCT_WORDS = frozenset({"code", "cli", "agent", "ide"})
#: products named like an agent whose chats agentscan does not read: said, never offered
_NOT_READ = {"claude desktop": "Claude Desktop's chats are not read; claude is Claude Code's sessions",
             "claude app": "the Claude app's chats are not read; claude is Claude Code's sessions",
             "chatgpt": "ChatGPT's chats are not read; codex is Codex CLI's sessions"}


def agent_named_otherwise(name: str, known: list[str]) -> list[str]:
    """The provider an agent's product name (``claude-code``, ``Claude_Code``, ``codex-cli``,
    ``cursor-agent``: what the README's table calls them) or its vendor's, when only that
    provider runs the vendor's models (``anysphere``), stands for, which no slip of a letter
    or two reaches (``close_names``)."""
    folded = name.strip().casefold()
    for provider in known:
        rest = folded.removeprefix(provider)
        # only the products' own words: ``-p claude-dashboard`` is a project (ccusage's ``-p``)
        if rest != folded and rest.lstrip("-_ .") in _PRODUCT_WORDS:
            return [provider]
    vendor = _VENDORS.get(folded)
    return list(vendor[1]) if vendor is not None and len(vendor[1]) == 1 and vendor[1][0] in known else []


def agent_aside(name: str, known: list[str], *, pick: str = "", model: str | None = None) -> str:
    """What to say of a product agentscan does not read (``claude-desktop``) or a vendor whose
    models more than one provider runs (``openai``: codex and cursor), else ``""``.
    ``pick``: how the command is told the agent (``hooks install`` takes no ``-p``), after the
    providers; by default ``-p``'s, then ``model``: how the command picks the models (``None``:
    ``list``'s ``--grep``; ``""``: the command has no way, and nothing is said of one)."""
    folded = " ".join(name.strip().casefold().replace("-", " ").replace("_", " ").split())
    if folded in _NOT_READ:
        return _NOT_READ[folded]
    if folded in ("all", "any", "every", "*") and not pick:  # (``-p all``: not a project, as it was said)
        return "leave -p out: every provider is read by default"
    vendor = _VENDORS.get(folded)
    if vendor is None or len(vendor[1]) == 1:
        return ""
    runs = listed([provider for provider in vendor[1] if provider in known])
    if not pick:
        model = f"--grep {vendor[2]} the model" if model is None else model
        pick = f"-p picks the agent, {model}" if model else "-p picks the agent"
    return f"{vendor[0]}'s models run in {runs} sessions: {pick}"


def unknown_choice(what: str, given: object, names: list[str], *, meant: str | None = None, aside: str = "") -> str:
    """``unknown --by 'dya' (did you mean day?); choose from: session, day, …``: a value no
    choice is, led by the one it is a slip for (``close_names``), if any; an unlike one
    (``--by foo``) gets the list alone, as an unlike command gets no guess.
    ``meant``: the guess, when the caller knows it (another tool's word, ``--by project``;
    ``close_names`` worked out already), ``""`` for none; ``aside``: said after the guess
    (``did you mean cwd? a project is its working directory``)."""
    text = str(given)
    if meant is None:
        close = close_names(text, names)
        meant = close[0] if close else ""
    guess = f" (did you mean {meant}?{f' {aside}' if aside else ''})" if meant else ""
    return f"unknown {what} {quoted(text)}{guess}; choose from: {', '.join(names)}"


def quoted(text: object) -> str:
    """``text`` in quotes, as a message echoes what a user typed (or a file named): as typed
    when every character prints (a backslash stays one: ``'C:\\Users\\me'`` reads as typed,
    not doubled as ``repr`` doubles it, the common case of a Windows path); else as ``repr``
    quotes it, so a character that would not print never reaches the terminal raw (a real
    tab shows as ``\\t``; a typed backslash-t reads the same, a rarer case than a Windows
    path full of ``\\U`` and ``\\t``)."""
    text = str(text)
    if not text.isprintable() or ("'" in text and '"' in text):
        return repr(text)
    quote = '"' if "'" in text else "'"
    return f"{quote}{text}{quote}"


def listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"



#: how many ids one slip away a "did you mean" offers (``'codex:019ac2d4' or 'codex:019ac2d6'``):
#: ``show``'s (``scan.notfound``) and ``trace``'s (``hooks.storedids``)
NEAR_SHOWN = 2


def one_slip(typed: str, real: str) -> bool:
    """Whether ``typed`` is ``real`` with one character changed, or two neighbours swapped."""
    if len(typed) != len(real) or typed == real:
        return False
    apart = [at for at, (a, b) in enumerate(zip(typed, real)) if a != b]
    if len(apart) == 1:
        return True
    return (len(apart) == 2 and apart[1] == apart[0] + 1 and typed[apart[0]] == real[apart[1]]
            and typed[apart[1]] == real[apart[0]])


def one_letter_off(typed: str, real: str) -> bool:
    """Whether ``typed`` is a slip of ``real`` (``one_slip``) or ``real`` with one character
    added or left out (``wether-app`` for ``weather-app``)."""
    if one_slip(typed, real):
        return True
    short, long = sorted((typed, real), key=len)
    if len(long) != len(short) + 1:
        return False
    at = next((index for index, (a, b) in enumerate(zip(short, long)) if a != b), len(short))
    return short[at:] == long[at + 1:]


def meant_ids(typed: str, names: Iterable[tuple[str, str, _Target]], opens: Callable[[str, set[_Target]], bool],
              *, shortest: int) -> str | None:
    """``hint: did you mean 'claude:7f3c9a12'?`` for an id ``typed`` (its ``provider:`` left
    off) that begins one of ``names`` (each ``(provider, id, what it opens)``) but for one
    character changed or two swapped: ``show``'s (``scan.notfound``) and ``trace``'s
    (``hooks.storedids``).  At most ``NEAR_SHOWN`` ids (``None`` for more, or none); each
    offered only when ``opens(the id offered, what it was offered for)``: a hint never offers
    a line that fails (a prefix two sessions begin opens neither)."""
    typed = typed.lower()
    if len(typed) < shortest or not typed.replace("-", "").isalnum():
        return None
    near: dict[str, set[_Target]] = {}
    for provider, name, target in names:
        start = name[:len(typed)]
        if one_slip(typed, start.lower()):
            near.setdefault(f"{provider}:{start.rstrip('-')}", set()).add(target)
    if not near or len(near) > NEAR_SHOWN:
        return None
    offered = [repr(meant) for meant, targets in sorted(near.items()) if opens(meant, targets)]
    return f"hint: did you mean {' or '.join(offered)}?" if offered else None
