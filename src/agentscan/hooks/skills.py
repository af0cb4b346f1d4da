"""Skills and commands seen in a turn (docs/hooks.md, "The tree").

Four signals, kept apart because they mean different things:

* a skill **loaded**: a ``SKILL.md`` read (its parent directory names the
  skill; ``inferred`` from the path) or Claude's ``Skill`` tool (``native``);
* a command **invoked**: a ``/command`` in the prompt (``inferred`` from the
  text) or Claude's ``UserPromptExpansion`` naming it (``native``);
* a skill **mentioned** in a thought ("the `foo-bar` skill"; ``inferred``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from agentscan.hooks.model import EVENT, FILE, INFERRED, NATIVE, THOUGHT, TOOL, Node

_USER_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.DOTALL | re.IGNORECASE)
# "/" at the start or after whitespace, a letter or digit, then word chars and
# dashes, ending at the end, whitespace or closing punctuation: rejects
# "and/or", "http://…" and "/c:/Users/…".
_SLASH = re.compile(r"(?:(?<=\s)|^)/([A-Za-z0-9][A-Za-z0-9_-]*)(?=$|\s|[.,;!?)\]}\"'])")
_MENTION = re.compile(r"(?<![\w-])([A-Za-z0-9]+(?:-[A-Za-z0-9]+)+)[*`_]*\s+skills?\b", re.IGNORECASE)
_SKILL_KEYS = ("skill", "skillName", "skill_name")


@dataclass(frozen=True, slots=True)
class Finding:
    name: str
    source: str  # skill_file | skill_tool | prompt | expansion | thought
    provenance: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "source": self.source, "provenance": self.provenance}


def skill_from_path(path: Any) -> str | None:
    """``…/skills/<name>/SKILL.md`` -> ``<name>``."""
    if not isinstance(path, str):
        return None
    parts = [p for p in re.split(r"[\\/]+", path.strip()) if p]
    if len(parts) >= 2 and parts[-1].lower() == "skill.md":
        return parts[-2]
    return None


def skill_from_tool(name: str, tool_input: Any) -> str | None:
    if name.lower() != "skill" or not isinstance(tool_input, dict):
        return None
    for key in _SKILL_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def slash_commands(prompt: str | None) -> list[str]:
    if not prompt:
        return []
    queries = _USER_QUERY.findall(prompt)
    text = "\n".join(queries) if queries else prompt
    return _dedupe(match.group(1) for match in _SLASH.finditer(text))


def thought_mentions(text: str | None) -> list[str]:
    if not text:
        return []
    return _dedupe(match.group(1).lower() for match in _MENTION.finditer(text))


def findings(prompts: Iterable[str | None], nodes: Iterable[Node]) -> tuple[list[Finding], list[Finding], list[Finding]]:
    """(skills loaded, commands invoked, skills mentioned), each deduplicated case-insensitively."""
    skills: list[Finding] = []
    commands = [Finding(name, "prompt", INFERRED) for prompt in prompts for name in slash_commands(prompt)]
    mentions: list[Finding] = []
    for node in nodes:
        if node.kind in (TOOL, FILE):
            tool_input = node.input if isinstance(node.input, dict) else {}
            path = tool_input.get("file_path") or tool_input.get("path")
            from_path = skill_from_path(path)
            if from_path:
                skills.append(Finding(from_path, "skill_file", INFERRED))
            from_tool = skill_from_tool(node.name, node.input) if node.kind == TOOL else None
            if from_tool:
                skills.append(Finding(from_tool, "skill_tool", NATIVE))
        elif node.kind == THOUGHT and isinstance(node.input, dict):
            mentions.extend(Finding(n, "thought", INFERRED) for n in thought_mentions(node.input.get("text")))
        elif node.kind == EVENT and node.name == "UserPromptExpansion" and isinstance(node.input, dict):
            name = node.input.get("command_name")
            if isinstance(name, str) and name:
                commands.append(Finding(name.lstrip("/"), "expansion", NATIVE))
    return _unique(skills), _unique(commands), _unique(mentions)


def _dedupe(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for name in names:
        if name.lower() not in seen:
            seen.add(name.lower())
            kept.append(name)
    return kept


def _unique(found: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    kept = []
    for item in found:
        key = (item.name.lower(), item.source)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept
