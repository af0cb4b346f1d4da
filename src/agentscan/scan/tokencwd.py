"""``tokens --cwd`` and ``tokens --by cwd``: a session's working directory, for its tokens.

A session's cwd is its row's (``SessionRow.cwd``), found as the table finds the CWD beside
each session (``scan.tablefacts``: from the files' bytes where the provider can, else the
row, kept in the index either way): a Gemini session's project may be named by another
provider's sessions, which only its row knows.  Subagents are their session's: a delegated
run works in its parent's project, and is counted with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from agentscan.model import SessionRef
    from agentscan.scan.scanner import Scanner

#: the ``--by cwd`` row of the sessions that recorded no working directory
NO_CWD = "unknown"


def session_cwds(scanner: Scanner, refs: Sequence[SessionRef]) -> dict[str, str | None]:
    """``_places``' cwds."""
    return _places(scanner, refs)[0]


def _places(scanner: Scanner, refs: Sequence[SessionRef]) -> tuple[dict[str, str | None], dict[str, tuple[str, ...]]]:
    """Each of ``refs``' working directory (by session id), ``None`` where it recorded none;
    one directory spelled two ways (Cursor's ``c:/Users/me/App``, Claude Code's
    ``C:\\Users\\me\\App``) is given as the spelling met first, so that ``--by cwd`` makes one
    row of it, as ``--cwd`` finds both; and, by session id, the folders of the multi-root
    workspace of those that ran in one (a row's ``workspace_folders``), which ``--cwd`` matches
    too."""
    from agentscan.scan import tablefacts
    from agentscan.scan.cwdmatch import same_directory

    spelled: dict[str, str] = {}  # a directory's one text -> the spelling met first
    shown: dict[str, str] = {}  # a spelling -> that spelling: sessions share a few directories
    cwds: dict[str, str | None] = {}
    folders: dict[str, tuple[str, ...]] = {}
    for session_id, facts in tablefacts.gather(scanner, refs).items():
        cwd = facts.cwd
        if cwd and cwd not in shown:
            shown[cwd] = spelled.setdefault(same_directory(cwd), cwd)
        cwds[session_id] = shown[cwd] if cwd else None
        roots = getattr(facts, "workspace_folders", ())  # a row's (``TableFacts`` have none)
        if roots:
            folders[session_id] = roots
    return cwds, folders


def within(scanner: Scanner, refs: Sequence[SessionRef], cwd: str
           ) -> tuple[list[SessionRef], list[tuple[SessionRef, str | None]], dict[str, str | None], dict[str, str]]:
    """Those of ``refs`` whose working directory is ``cwd`` or below it (as ``list --cwd``
    compares them: ``scan.cwdmatch``), in their order; those it leaves out, each with its
    working directory (``None``: it recorded none), in their order, for the sessions asked
    for by id that ``cwd`` leaves out to be named (``tokens ID --cwd OTHER``: silently
    dropped, the id the user typed looked unread); every one's cwd; and the multi-root
    Cursor chats' cwd moved to the folder ``cwd`` matched (``TokenReport.matched_cwds``)."""
    from agentscan.scan.cwdmatch import asked_directory, matched_folder, under, wanted_forms

    forms = wanted_forms(asked_directory(cwd))
    cwds, folders = _places(scanner, refs)
    inside: list[SessionRef] = []
    outside: list[tuple[SessionRef, str | None]] = []
    matched: dict[str, str] = {}
    for ref in refs:
        where = cwds.get(ref.id)
        if under(where, forms):
            inside.append(ref)
        elif any(under(folder, forms) for folder in folders.get(ref.id, ())):
            inside.append(ref)
            # ``--by cwd`` groups it under the folder asked for, not its workspace's first
            # (as ``list``'s CWD shows it: ``cwdmatch.matched_folder``).
            cwds[ref.id] = shown = matched_folder(where, folders[ref.id], forms)
            if shown is not None:
                matched[ref.id] = shown
        else:
            outside.append((ref, where))
    return inside, outside, cwds, matched
