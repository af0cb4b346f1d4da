"""A Gemini session's row made by its sums' pass, kept for the row's pass to take.

A Gemini row (``list``, and ``tokens``' table: its DATE, CWD and TITLE) and its sums
(``tokens``) both come from one replay of its chats (``chatlog``), which cost most of a
cold table: the sums' pass replayed 1,000 chats in the workers, then the rows' pass
replayed them again, one after the other where discovery is (a row's cwd may come from
other providers' sessions, which only that process found).  The sums' pass now builds the
row from the replay it made, when nothing but the chats and their project dir go into it,
and keeps it in the index (``keptjson``) at the session's id and fingerprint; the row's
pass takes it back instead of replaying.

Only a row whose pass would say nothing is kept: the chats read without a warning (a row
keeps the warnings its pass said, ``scan.rowstore``), a project dir that settles the cwd
(``ProjectIndex.settled_by_dir``: a ``.project_root``, or the registry) read without one,
and a chat whose prompts are its own (``logs.json`` is read for the others).  The rest are
replayed by the row's pass, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentscan.toolkit import keptjson

if TYPE_CHECKING:
    from agentscan.context import ScanContext
    from agentscan.model import SessionRef, SessionRow
    from agentscan.providers.gemini.chatlog import SessionChats
    from agentscan.providers.gemini.provider import GeminiProvider

#: what the index keeps it as (under the main chat's path); bump with the row's shape
KIND = "gemini-sums-row"
VERSION = "1"


def keep(provider: GeminiProvider, ref: SessionRef, chats: SessionChats, ctx: ScanContext) -> None:
    """Keep ``ref``'s row, built from ``chats`` (the sums' replay, which said nothing)."""
    from agentscan.providers.gemini.discovery import SessionFiles

    files = ref.hint
    if ref.path is None or not isinstance(files, SessionFiles) or files.primary is None or chats.main is None:
        return
    if not any(facts.prompt is not None for facts in chats.main.messages):
        return  # its row reads logs.json for its prompts
    stamp = keptjson.session_stamp(ref.id, provider.fingerprint(ref, ctx))
    if stamp is None:
        return
    with ctx.held_warnings() as held:
        row = provider.sums_row(ref, chats, ctx)
    if row is None or held.said:
        return  # the row's pass says them (a ``.project_root`` of junk): it is read there
    document = row.to_json()
    keptjson.keep(ctx, ref.path, KIND, VERSION, stamp, (row,), document)


def kept(provider: GeminiProvider, ref: SessionRef, ctx: ScanContext) -> SessionRow | None:
    """The row the sums' pass kept for ``ref``'s files as they are, else ``None``."""
    if ref.path is None:
        return None
    stamp = keptjson.session_stamp(ref.id, provider.fingerprint(ref, ctx))
    found = keptjson.kept(ctx, ref.path, KIND, VERSION, stamp, _decode)
    return found[0] if found is not None else None


def _decode(document: Any) -> tuple[SessionRow] | None:
    from agentscan.model import SessionRow

    if not isinstance(document, dict):
        return None
    try:
        return (SessionRow.from_json(document),)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
