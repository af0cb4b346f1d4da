"""``--cwd``: whether a session's working directory is the one asked for, or below it.

Names are compared as the file system that holds them compares them, not byte for
byte.  A Windows path (a drive letter, a backslash) compares as ``ntpath`` does:
either separator, any case, as Cursor writes a workspace folder (``c:/Users/me/My
App``) and Gemini CLI its projects (lower-cased).  On macOS, whose file system
ignores case unless made otherwise, any case too (``~/Src/App`` is
``/Users/me/src/app``).  Linux compares exactly.  The directory asked for counts
under its resolved name too (``os.path.realpath``: macOS's ``/tmp`` is
``/private/tmp``, where an agent started there records its cwd), as well as the
name given.

Everything about the directory asked for is worked out once (``wanted_forms``);
each row costs a few string operations (``under``), the case mapping only when a
form needs it.
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple

#: how a form compares: byte for byte, case-folded (macOS), or as Windows does
EXACT, FOLDED, WINDOWS = "exact", "folded", "windows"

#: macOS's top-level links into ``/private``: an agent may record either name
_PRIVATE_LINKS = ("/private/tmp", "/private/var", "/private/etc")


class Form(NamedTuple):
    """One spelling of the wanted directory: ``exact`` the directory itself, ``prefixes``
    what a directory below it starts with, both as ``key(cwd, mode)`` spells a cwd."""

    mode: str
    exact: str
    prefixes: tuple[str, ...]


def asked_directory(cwd: str) -> str:
    """A ``--cwd`` as a person means it, for the CLI and a library caller alike: relative to
    the current directory (``.``, ``../api``), ``~`` their home; a Windows path as it is
    (``C:\\Users\\me\\App`` read on Linux from a copied home is no name under here)."""
    if is_windows_path(cwd) and os.sep == "/":
        return cwd
    return os.path.abspath(os.path.expanduser(cwd))


def wanted_forms(wanted: str) -> tuple[Form, ...]:
    """The spellings a cwd at or under ``wanted`` may start with: the name given, and the one
    it resolves to (when that differs)."""
    names = [wanted]
    if os.path.isabs(wanted):
        try:
            real = os.path.realpath(wanted)
        except (OSError, ValueError):  # a loop of links, a NUL: the name given is all there is
            real = wanted
        names.append(real)
    if sys.platform == "darwin":
        for name in list(names):
            if any(name == link or name.startswith(link + "/") for link in _PRIVATE_LINKS):
                names.append(name[len("/private"):])
    forms: list[Form] = []
    for name in names:
        form = _form(name)
        if form not in forms:
            forms.append(form)
    return tuple(forms)


def under(cwd: str | None, forms: tuple[Form, ...]) -> bool:
    """Whether ``cwd`` is one of ``forms`` or below it."""
    if not cwd:
        return False
    if not cwd.isascii():
        cwd = _composed(cwd)
    done, text = EXACT, cwd  # the spelling of the last mode, as forms of one mode come together
    for mode, exact, prefixes in forms:
        if mode != done:
            done, text = mode, _spelled(cwd, mode)
        if text == exact or text.startswith(prefixes):
            return True
    return False


def matched_folder(cwd: str | None, folders: tuple[str, ...], forms: tuple[Form, ...]) -> str | None:
    """The directory a table shows for a session that ``forms`` (``--cwd``) found: its ``cwd``,
    but for a chat of a multi-root Cursor workspace found by another of its ``folders``
    (``SessionRow.workspace_folders``), the first of them at or below ``--cwd``: under
    ``--cwd ~/src/web`` a row reading ``~/src/api``, the workspace's first, looked unfiltered."""
    if under(cwd, forms):
        return cwd
    return next((folder for folder in folders if under(folder, forms)), cwd)


def shown_folder(cwd: str | None, folders: tuple[str, ...], forms: tuple[Form, ...] | None,
                 grep_key: str | None) -> str | None:
    """The cwd a table shows for a row of ``cwd`` and ``folders`` (``ListFilter.shown_cwd``):
    a multi-root Cursor chat ``--cwd`` (``forms``) found by another of its workspace's folders
    shows that folder (``matched_folder``); ``--grep`` (``grep_key``) too, when its text is in
    that folder and not in the first: the row it found shows why."""
    if not folders:
        return cwd
    if forms is not None:
        return matched_folder(cwd, folders, forms)
    if grep_key is not None:
        from agentscan.scan.grepmatch import grep_hit  # (``tokens --cwd`` reads no ``--grep``)

        if not grep_hit(grep_key, (cwd,)):
            return next((folder for folder in folders if grep_hit(grep_key, (folder,))), cwd)
    return cwd


def key(path: str, mode: str) -> str:
    """``path`` spelled for comparing in ``mode``."""
    return _spelled(_composed(path) if not path.isascii() else path, mode)


def _composed(path: str) -> str:
    """One path in two Unicode spellings: macOS hands out decomposed names (NFD), a shell
    or a transcript may hold the composed one."""
    from unicodedata import normalize

    return normalize("NFC", path)


def _spelled(path: str, mode: str) -> str:
    if mode == EXACT:
        return path
    if mode == FOLDED:
        return path.casefold()
    text = path.replace("/", "\\").lower()  # ``ntpath.normcase``, without its platform call
    if "\\\\" in text[1:] or "\\.\\" in text or "\\..\\" in text or text.endswith(("\\", "\\.", "\\..")):
        import ntpath  # not imported on POSIX otherwise

        text = ntpath.normpath(text)  # ``c:\x\.\y``, ``c:\x\\y``, ``c:\x\``: rarely, so only then
    return text


def is_windows_path(path: str) -> bool:
    """A path as Windows writes it: a drive letter (``C:``, ``c:/``) or a backslash not in a
    POSIX absolute path (``\\\\server\\share``, ``C:\\x``)."""
    if len(path) >= 2 and path[1] == ":" and path[0].isascii() and path[0].isalpha():
        return True
    return "\\" in path and not path.startswith("/")


def same_directory(path: str) -> str:
    """``path`` as ``--cwd`` compares it: one text for every spelling of one directory
    (``c:/Users/me/App`` and ``C:\\Users\\me\\App``; any case on macOS), a trailing separator
    dropped (``tokens --by cwd`` groups by it)."""
    return _form(path).exact


def _form(name: str) -> Form:
    if sys.platform == "win32" or is_windows_path(name):
        exact = key(name, WINDOWS)
        return Form(WINDOWS, exact, (exact if exact.endswith("\\") else exact + "\\",))
    mode = FOLDED if sys.platform == "darwin" else EXACT
    exact = key(name, mode)
    base = exact.rstrip("/\\")
    if not base:  # the root: every absolute path is under it
        return Form(mode, exact, (exact[:1],))
    return Form(mode, base, (base + "/", base + "\\"))
