"""JSON with comments (and trailing commas), as VS Code and Gemini CLI read their files: the
comments blanked, strings left whole (``"http://…"`` holds no comment).

One rule for both readers of such files: Cursor's multi-root workspace files
(``providers.cursor.multiroot``, read for a chat's folder) and an agent's settings file a hook
install refuses to write back with its comments lost (``hooks.configjson.commented``).  Each
comment is blanked in place, its line breaks kept, so that a parser's "line 3, column 5" is
the line and column an editor shows of the file as written.
"""

from __future__ import annotations

import re

#: a JSON string, kept as it is (one never closed runs to the end), before either rule below
_STRING = r'"(?:[^"\\]|\\.)*"?'
#: a string, a line comment, or a block comment (one never closed runs to the end)
_COMMENT = re.compile(_STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)", re.DOTALL)
_TRAILING_COMMA = re.compile(_STRING + r"|,(?=\s*[}\]])", re.DOTALL)
_NOT_A_BREAK = re.compile(r"[^\n]")


def blank_comments(text: str) -> tuple[str, bool]:
    """``text`` with each ``//`` and ``/* */`` comment blanked (spaces, its line breaks kept), and
    whether it held one."""
    found = False

    def blank(match: re.Match[str]) -> str:
        nonlocal found
        if match[0][0] == '"':
            return match[0]
        found = True
        return _NOT_A_BREAK.sub(" ", match[0])

    return _COMMENT.sub(blank, text), found


def without_comments(text: str) -> str:
    """``text`` with its comments blanked (``blank_comments``)."""
    return blank_comments(text)[0]


def without_trailing_commas(text: str) -> str:
    """``text`` (no comments left) without a comma just before a closing ``}`` or ``]``."""
    return _TRAILING_COMMA.sub(lambda found: found[0] if found[0][0] == '"' else "", text)
