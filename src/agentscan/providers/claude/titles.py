"""What names a Claude session (``list``'s title): its ``summary`` records, and the rule
that picks among a transcript's candidates.  Shared by the row's pass (``row.summarize``)
and the table's facts read from a file's ends (``tablefacts``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from agentscan.providers.claude.records import as_str, collapse, is_bare_command, prompt_title
from agentscan.toolkit.imagetext import is_images_text

if TYPE_CHECKING:
    from pathlib import Path

    from agentscan.providers.claude.filesummary import FileSummary

TITLE_CHARS = 180
#: a ``<teammate-message …>`` wrapper's words (``others_words``)
_TEAMMATE_BODY = re.compile(r"<teammate-message\b[^>]*>(.*?)(?:</teammate-message>|$)", re.DOTALL)
#: ``summary`` records kept by leaf (a file of thousands of other sessions' summaries stays small)
MAX_SUMMARIES = 256


class PromptTitles(Protocol):
    """What a pass keeps of a transcript's prompts for its title (``FileSummary``, and
    ``tablefacts``' head): the first prompt of words, and the fallbacks."""

    first_prompt: str | None
    first_image_prompt: str | None
    first_bare_command: str | None
    first_local_command: str | None


def note_prompt(titles: PromptTitles, text: str) -> None:
    """A prompt (``records.real_prompt_text``) as a title: the first of words is kept; one of
    images alone (``[image]``) or a bare command (``/model``) only as a fallback for a session
    with no prompt of words (an image pasted first, its question typed next, is named by it)."""
    if is_bare_command(text):
        titles.first_bare_command = titles.first_bare_command or text
        return
    if titles.first_prompt is not None:
        return
    title = collapse(prompt_title(text), TITLE_CHARS)
    if is_images_text(title):
        titles.first_image_prompt = titles.first_image_prompt or title
    else:
        titles.first_prompt = title


def note_command(titles: PromptTitles, record: dict) -> None:
    """A command Claude Code ran itself (``records.local_command_text``: no prompt) names the
    session only when nothing was asked (a session of ``/model``), after a bare command that
    was a prompt (``/model`` then ``/init``: ``/init``, what the model was sent).  So does, in
    the same place, a message another sender wrote (``others_words``): a session another agent
    drove is named by what it was asked, not left with no title."""
    if titles.first_prompt is None and titles.first_local_command is None:
        from agentscan.providers.claude.records import local_command_text

        text = local_command_text(record)
        if text is None:
            text = others_words(record)
        if text is not None:
            titles.first_local_command = collapse(text, TITLE_CHARS)


def others_words(record: dict) -> str | None:
    """The words of a user record another sender wrote (``senders.sent_by_another``, or a
    teammate's ``<teammate-message>``: no prompt), read as a prompt's would be, the teammate's
    wrapper left out; ``None`` for any other record."""
    from agentscan.providers.claude.senders import from_a_subagent, sent_by_another, teammate_wrapped

    if record.get("type") != "user" or from_a_subagent(record):
        return None
    from agentscan.providers.claude.records import real_prompt_text

    origin = record.get("origin")
    if origin is not None and not sent_by_another(origin, record):
        return None
    # Read as a subagent's record (exempt from both rules); rare records: the copy costs nothing.
    text = real_prompt_text({**record, "origin": None, "isSidechain": True})
    if text is None or not teammate_wrapped(text):
        return text if origin is not None else None
    body = _TEAMMATE_BODY.match(text)
    if body is None:
        return None
    return body.group(1).strip() or None


def note_summary(summary: FileSummary, record: dict, at: int) -> None:
    """A ``summary`` record (its line ending at ``at``): the latest names the file last
    (``title_of``), each kept by its leaf, pending until its leaf is met (``lateleaves``)."""
    summary.summary_title = record["summary"]
    leaf = as_str(record.get("leafUuid"))
    if leaf is not None and (leaf in summary.summaries or len(summary.summaries) < MAX_SUMMARIES):
        summary.summaries[leaf] = record["summary"]
        summary.pending_summaries[leaf] = at


def note_leaf(summary: FileSummary, record: dict, at: int) -> None:
    """A record (its line ending at ``at``) that is a summary's leaf: that summary is this
    conversation's own (of several, the one whose leaf comes last)."""
    uuid = record.get("uuid")
    if isinstance(uuid, str) and uuid in summary.summaries:
        summary.summary_matched, summary.matched_at = summary.summaries[uuid], at
        summary.pending_summaries.pop(uuid, None)


def settle_summaries(summary: FileSummary, path: Path | None) -> None:
    """The pending summaries (whose leaf no record after them named) told against the records
    before them, in ``path``'s bytes (``lateleaves``): a summary names the file whatever the
    order of it and its leaf.  Of several, the one whose leaf comes last; of two naming that
    one leaf, the later written (a pending one)."""
    if not summary.pending_summaries or path is None:
        return
    from agentscan.providers.claude.lateleaves import late_leaves

    for leaf, at in sorted(late_leaves(path, summary.pending_summaries).items(), key=lambda item: item[1]):
        if summary.matched_at is None or at >= summary.matched_at:
            summary.summary_matched, summary.matched_at = summary.summaries[leaf], at
    summary.pending_summaries = {}


def title_of(summary: FileSummary) -> str | None:
    """The name Claude Code shows: a custom title (``/rename``), else the
    session's ``summary`` record (the one whose leaf is in this file), else the
    ``ai-title``, else the first prompt (one of images alone, then a bare command such
    as ``/init``, then a command Claude Code ran itself such as ``/model`` or another
    sender's words, whichever came first, only when nothing else was asked: ``note_prompt``,
    ``note_command``; docs/providers/claude.md says this order), else the latest
    ``summary`` record.

    A summary whose leaf is not in the file comes last: Claude Code has written
    summaries of other sessions into the session it was starting (claude-code
    issue 2597), so it names this session only when nothing else does, and only when
    the file holds records of its own (a ``cwd``: ``foreign_summary_names``)."""
    settle_summaries(summary, summary.path)
    return choose_title(summary.custom_title, summary.summary_matched, summary.ai_title, summary.first_prompt,
                        summary.first_image_prompt, summary.first_bare_command, summary.first_local_command,
                        foreign_summary_names(summary.summary_title, summary.cwd))


def foreign_summary_names(summary_title: str | None, cwd: str | None) -> str | None:
    """A summary of another session names a file only beside records of the file's own (every
    conversation record carries a ``cwd``): a file of nothing but such summaries is a stub
    Claude Code left, not a session, and with no title ``list`` leaves it out as it does an
    empty transcript (``SessionRow.recorded_nothing``).  Shared with ``tablefacts``."""
    return summary_title if cwd is not None else None


def choose_title(*candidates: str | None) -> str | None:
    """The first candidate given, in ``title_of``'s order (shared with ``tablefacts``)."""
    for candidate in candidates:
        if candidate:
            return collapse(candidate, TITLE_CHARS)
    return None
