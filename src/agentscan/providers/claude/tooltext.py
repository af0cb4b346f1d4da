"""What ``show`` says of a few Claude Code tools whose input is no command or path, and
how a call ended (ok, error, or declined by the user).

Kept apart from ``detail`` (the stream) so that the words and the status rules can be
read, and tested, in one place; ``detail``, ``tail`` and ``showfacts`` use them alike.
"""

from __future__ import annotations

import re
from typing import Any

from agentscan.providers.claude.records import as_dict, as_str, collapse
from agentscan.toolkit.errortext import ERROR_CHARS as ERROR_CHARS, error_line  # ERROR_CHARS: said here too

#: a call the user declined: ``denied``, as the hooks trace names a permission refused
DENIED = "denied"
#: characters of a question, and of its answers, in a summary: both together stay under
#: the collector's ``SUMMARY_BYTES`` even in four-byte characters, so adding the answer
#: to a kept call never clips it (``showfacts`` counts clipped summaries from the input)
QUESTION_CHARS = 180
ANSWER_CHARS = 180
_ERROR_TAGS = re.compile(r"</?tool_use_error>")
#: how Claude Code answers a call the user declined, in the result's text or its
#: ``toolUseResult`` (plain text: "User rejected tool use"; 1.0.x: "Error: The user …")
_DECLINED = ("The user doesn't want to proceed with this tool use", "User rejected tool use",
             "Error: The user doesn't want to proceed with this tool use")


def special_summary(name: str, data: dict[str, Any]) -> str | None:
    """The summary of a question, a to-do list or a plan, whose input is a JSON structure (its
    keys sorted, the question would be cut off after the option descriptions); else ``None``."""
    if name == "AskUserQuestion":
        return _questions(data.get("questions"))
    if name == "TodoWrite":
        return _todos(data.get("todos"))
    if name == "ExitPlanMode":
        return _plan(data.get("plan"))
    return None


def _plan(plan: object) -> str | None:
    """A plan proposed for approval (``ExitPlanMode``'s markdown) as one line, its lines
    parted by `` / `` (``plan: 1. add redis client / 2. swap session store``)."""
    if not isinstance(plan, str):
        return None
    lines = [collapse(line) for line in plan.splitlines() if line.strip()]
    return "plan: " + " / ".join(lines) if lines else None


def task_summary(name: str, data: dict[str, Any]) -> str | None:
    """The summary of a task call (Claude Code 2.1.16+'s task list): what it creates or
    changes, not its ``description``, a paragraph; else ``None``."""
    if name == "TaskCreate":
        subject = _words(data.get("subject")) or _words(data.get("activeForm"))
        return f"new task: {subject}" if subject else None
    if name == "TaskUpdate":
        task = data.get("taskId")
        task = _words(task) if isinstance(task, str) else task if type(task) is int else None
        if task is None:
            return None
        changes = [status] if (status := _words(data.get("status"))) else []
        if subject := _words(data.get("subject")):
            changes.append(f"subject: {subject}")
        if not changes and (owner := _words(data.get("owner"))):
            changes.append(f"owner: {owner}")
        return f"task #{task}" + (f" {', '.join(changes)}" if changes else "")
    return None


def _words(value: object) -> str | None:
    """A task field as one line of words (``None``: none, or blank)."""
    return collapse(value, QUESTION_CHARS) or None if isinstance(value, str) else None


def _questions(questions: object) -> str | None:
    if not isinstance(questions, list):
        return None
    texts = [q["question"] for q in questions if isinstance(q, dict) and as_str(q.get("question"))]
    if not texts:
        return None
    more = f" (+{len(texts) - 1} more)" if len(texts) > 1 else ""
    return collapse(texts[0], QUESTION_CHARS) + more


def _todos(todos: object) -> str | None:
    if not isinstance(todos, list):
        return None
    items = [todo for todo in todos if isinstance(todo, dict)]
    done = sum(1 for todo in items if todo.get("status") == "completed")
    active = [todo for todo in items if todo.get("status") == "in_progress"]
    parts = [f"{done} done"] if done else []
    if active:
        doing = as_str(active[0].get("activeForm")) or as_str(active[0].get("content"))
        parts.append(f"{len(active)} in progress" + (f": {collapse(doing, QUESTION_CHARS)}" if doing else ""))
    return f"todos: {len(items)}" + (f" ({', '.join(parts)})" if parts else "")


def answers_text(record: dict[str, Any]) -> str | None:
    """The answers the user picked, from a question call's result record (``toolUseResult``
    ``answers``: question -> answer), in the questions' order; ``None`` when it has none."""
    answers = as_dict(as_dict(record.get("toolUseResult")).get("answers"))
    picked = [answer for answer in answers.values() if isinstance(answer, str) and answer.strip()]
    return collapse("; ".join(picked), ANSWER_CHARS) if picked else None


def result_status(record: dict[str, Any], block: dict[str, Any]) -> str:
    """``ok``, ``error``, or ``denied``: the user declined the call (it never ran)."""
    if block.get("is_error") is not True:
        return "ok"
    return DENIED if _declined(record, block) else "error"


def error_text(block: dict[str, Any]) -> str | None:
    """A failed call's error (its ``tool_result``'s text: ``PreToolUse:Bash hook error: blocked
    by policy``) as one line, cut at ``ERROR_CHARS``, without the ``<tool_use_error>`` tags
    Claude Code wraps some in; ``None`` when the result tells none."""
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(part["text"] for part in content
                            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str))
    if not isinstance(content, str):
        return None
    text = _ERROR_TAGS.sub(" ", content) if "tool_use_error>" in content else content
    return error_line(text)


def _declined(record: dict[str, Any], block: dict[str, Any]) -> bool:
    if as_str(record.get("toolDenialKind")):  # newer builds name the refusal
        return True
    told = record.get("toolUseResult")
    if isinstance(told, str) and told.startswith(_DECLINED):
        return True
    content = block.get("content")
    if isinstance(content, list):  # blocks: the first text says it
        content = next((part.get("text") for part in content if isinstance(part, dict) and part.get("type") == "text"),
                       None)
    return isinstance(content, str) and content.startswith(_DECLINED)
