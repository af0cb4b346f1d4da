"""Absolute paths a Gemini chat mentions: candidates for its project root.

Gemini CLI never writes the cwd into a chat, but its tool calls name files
and directories by absolute path (``read_file``'s ``absolute_path``,
``run_shell_command``'s ``directory``, ``list_directory``'s ``path``, a
``resultDisplay.filePath`` of a file written, …), the
metadata lists the workspace ``directories``, and a legacy tool result reads
``[Function Response: read_many_files]--- /abs/path ---``.  The project root
is one of those paths or one of their parents.  A candidate is only ever
*offered*: ``projects.py`` takes it only when its sha256 equals the
project's hash, so nothing here is a guess.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from agentscan.toolkit.jsonl import open_binary

if TYPE_CHECKING:
    from agentscan.context import ScanContext

#: bound on the candidates one chat contributes (memory stays small)
MAX_CANDIDATES = 256
_MAX_DEPTH = 4
_MAX_PATH = 4096
_WINDOWS = re.compile(r"^[A-Za-z]:[\\/]")
# "--- /abs/path ---" headers of read_many_files output inside a legacy result text.
_SECTION_PATH = re.compile(r"^--- ((?:/|[A-Za-z]:[\\/])[^\n]*?) ---$", re.MULTILINE)
FUNCTION_RESPONSE = "[Function Response:"


def looks_absolute(value: str) -> bool:
    if not value or len(value) > _MAX_PATH or "\n" in value or "\x00" in value:
        return False
    return (value.startswith("/") and not value.startswith("//")) or bool(_WINDOWS.match(value))


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth < _MAX_DEPTH and isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif depth < _MAX_DEPTH and isinstance(value, list):
        for item in value[:64]:
            yield from _strings(item, depth + 1)


def paths_in_message(record: dict[str, Any]) -> Iterator[str]:
    """Absolute paths in a message's tool-call arguments and ``cwd`` fields."""
    calls = record.get("toolCalls")
    if isinstance(calls, list):
        for call in calls[:256]:
            if isinstance(call, dict):
                # resultDisplay records e.g. {"filePath": "/abs/file"} for a
                # file a call wrote, even when its args named it relatively.
                for text in (*_strings(call.get("args")), *_strings(call.get("resultDisplay"))):
                    if looks_absolute(text):
                        yield text
    cwd = record.get("cwd")
    if isinstance(cwd, str) and looks_absolute(cwd):
        yield cwd
    content = record.get("content")
    if record.get("type") == "user" and isinstance(content, str) and content.lstrip().startswith(FUNCTION_RESPONSE):
        for match in _SECTION_PATH.finditer(content[:1 << 20]):
            yield match.group(1).strip()


def paths_in_metadata(meta: dict[str, Any]) -> Iterator[str]:
    """The workspace ``directories`` and a ``cwd`` of the chat's metadata."""
    directories = meta.get("directories")
    if isinstance(directories, list):
        for entry in directories[:64]:
            if isinstance(entry, str) and looks_absolute(entry):
                yield entry
    cwd = meta.get("cwd")
    if isinstance(cwd, str) and looks_absolute(cwd):
        yield cwd


def with_parents(paths: Iterable[str]) -> Iterator[str]:
    """Each path and each of its parents (deepest first), each once."""
    seen: set[str] = set()
    for path in paths:
        pure = PureWindowsPath(path) if _WINDOWS.match(path) else PurePosixPath(path)
        for candidate in (pure, *pure.parents):
            text = str(candidate)
            if text not in seen:
                seen.add(text)
                yield text


# A POSIX absolute path inside text: "/" then path characters (no spaces).
_PATH_IN_TEXT = re.compile(rb"(?<![\w.~-])(/[\w.@+-]+(?:/[\w.@+-]+)*)")
#: per file read, and in all, for the scan of a project's chat files
_FILE_BYTES = 16 * 1024 * 1024
_MAX_FROM_FILES = 4096


def paths_in_chat_files(project_dir: Path, ctx: ScanContext) -> set[str]:
    """Absolute POSIX paths written anywhere in a project's chat files.

    A raw scan (no JSON parse) of ``<project>/chats`` and its subagent dirs,
    bounded per file: tool outputs such as "Successfully overwrote file:
    /abs/x" name paths no argument does.  Only offered to a hash check.
    """
    found: set[str] = set()
    chats = project_dir / "chats"
    # Found by name, not listed with ``admit``: not followed out of the roots (discovery warned).
    pending = [] if os.path.islink(chats) and not ctx.resolved_inside_roots(os.path.realpath(chats)) else [chats]
    while pending and len(found) < _MAX_FROM_FILES:
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                # admit: the same rules as discovery (no symlink out of the roots)
                listed = sorted((e for e in entries if ctx.admit(e)), key=lambda e: e.name)
        except OSError:
            continue
        for entry in listed:
            try:
                if entry.is_dir(follow_symlinks=False) and directory == chats:
                    pending.append(Path(entry.path))
                    continue
                if not entry.name.endswith((".json", ".jsonl")) or not entry.is_file():
                    continue
                with open_binary(Path(entry.path)) as handle:
                    data = handle.read(_FILE_BYTES)
            except OSError as exc:
                ctx.cannot_read(entry.path, exc)
                continue
            for match in _PATH_IN_TEXT.finditer(data):
                if len(found) >= _MAX_FROM_FILES:
                    break
                text = match.group(1).decode("utf-8", "replace")
                if looks_absolute(text):
                    found.add(text)
    return found
