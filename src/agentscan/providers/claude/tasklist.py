"""A Claude session's plan: its newest todo list (``TodoWrite``) or its task list
(``TaskCreate``/``TaskUpdate``, Claude Code 2.1.16+), whichever was written last.

Both readers that give ``show`` its plan fold the main transcript's records into a
``PlanFold`` in file order: ``detail.TranscriptStream`` (the forward read) and
``showfacts.ShowFacts`` (the row's pass, whose plan a huge transcript shown from its
end takes, and which a resume state keeps), so the two agree.  A subagent's own calls
are its own list, not the session's: only the main transcript's are folded.

The task tools, as public readers of 2.1.x transcripts read them: a ``TaskCreate``
call (``subject``, ``activeForm``, …) adds a pending task; its result gives the task's
id (``toolUseResult.task.id``, else its text ``Task #N created …``); a ``TaskUpdate``
call names a task by ``taskId`` and may set its ``status`` (``deleted`` takes it off
the list), ``subject`` or ``activeForm``.  While no result read so far has given an id
(a transcript cut before its results), an update names the task created N-th, as
Claude Code numbers a list's tasks from 1; once one has, only ids count (a list may
not start at 1).  A create whose result is an error made no task.

The task list is not taken back by an edited prompt (``detail.LiveBranch``): Claude
Code keeps it outside the conversation, and the ids it gives later tasks count those
created on the abandoned branch.  Which of the two lists is the plan is.

Memory stays bounded: the newest ``MAX_TASKS`` tasks are kept, each text cut at
``STEP_BYTES``.  A second half's fold (``halves``) starts from nothing, so it notes its
changes (``journal``, at most ``MAX_JOURNAL`` of them and ``MAX_JOURNAL_BYTES`` of their
texts: past either, the halves are not joined) for the join to replay on the first half's list.
"""

from __future__ import annotations

import re
from typing import Any

from agentscan.bounds import clip_text
from agentscan.providers.claude.records import as_dict, as_str

#: the calls that write a plan
PLAN_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate"})
#: tasks kept; past this many, the oldest is dropped
MAX_TASKS = 1000
#: a task's subject or active form is cut here (a hostile file's could be megabytes)
STEP_BYTES = 1600
#: changes a second half notes for the join, and their texts' characters; past either, it is
#: read again here
MAX_JOURNAL = 65_536
MAX_JOURNAL_BYTES = 8 * 1024 * 1024
_ID_CHARS = 64  # longer is no task id
_CALL_CHARS = 256  # longer is no call id worth remembering
_STATUS_CHARS = 64
_CREATED = re.compile(r"Task #([0-9]{1,18}) created")
_NEWEST = (None, "todo", "tasks")


def _id(value: object) -> str | None:
    if type(value) is int:
        return str(value)
    return value if isinstance(value, str) and 0 < len(value) <= _ID_CHARS else None


def _text(value: object) -> str | None:
    return clip_text(value, STEP_BYTES)[0] if isinstance(value, str) else None


def _is_result(block: object) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_result"


def _created_id(content: object) -> str | None:
    """The id in a ``TaskCreate`` result's text (``Task #1 created successfully: …``)."""
    if isinstance(content, list):  # blocks: the first text says it
        content = next((part.get("text") for part in content if isinstance(part, dict) and part.get("type") == "text"),
                       None)
    if isinstance(content, str) and content.startswith("Task #"):
        found = _CREATED.match(content)
        return found.group(1) if found else None
    return None


class PlanFold:
    """The plan as the records read so far leave it."""

    def __init__(self, *, journal: bool = False) -> None:
        self.todos: tuple[tuple[str, str], ...] | None = None
        self.newest: str | None = None  # which list is the plan: "todo", "tasks" or none yet
        #: creation number -> [id or None, subject, activeForm, status, call id awaiting its result]
        self.tasks: dict[int, list] = {}
        self.created = 0
        self.ided = False  # a result has given a task's id
        self.journal: list[list] | None = [] if journal else None
        self.overflowed = False  # the journal outgrew ``MAX_JOURNAL`` (changes or bytes)
        self.guessed = False  # an update named a task by its creation number (no id known yet)
        self._journal_bytes = 0
        self._pending: dict[str, int] = {}
        self._by_id: dict[str, int] = {}

    @property
    def waiting(self) -> bool:
        """Whether a created task still waits for its result (its id)."""
        return bool(self._pending)

    def plan(self) -> list[tuple[str, str]] | None:
        """``(step, status)`` of each step; ``None``: no plan written."""
        if self.newest == "todo" and self.todos is not None:
            return list(self.todos)
        if self.newest == "tasks":
            return [(task[1] or task[2] or "", task[3]) for task in self.tasks.values()]
        return None

    # -- what the records say --------------------------------------------------

    def call(self, name: str, block: dict) -> None:
        """A ``tool_use`` block of the session's own (``name`` in ``PLAN_TOOLS``)."""
        data = block.get("input")
        if name == "TodoWrite":
            todos = as_dict(data).get("todos")
            if isinstance(todos, list):
                self.todo(tuple((str(t.get("content") or t.get("activeForm") or ""), str(t.get("status") or "pending"))
                                for t in todos if isinstance(t, dict)))
        elif not isinstance(data, dict):
            return
        elif name == "TaskCreate":
            call = as_str(block.get("id"))
            self.create(call if call is not None and len(call) <= _CALL_CHARS else None,
                        _text(data.get("subject")), _text(data.get("activeForm")))
        elif name == "TaskUpdate":
            task_id, status = _id(data.get("taskId")), as_str(data.get("status"))
            if task_id is not None:
                self.update(task_id, None if status is None else status[:_STATUS_CHARS], _text(data.get("subject")),
                            _text(data.get("activeForm")))

    def results(self, record: dict) -> None:
        """A user record that is no prompt: a ``TaskCreate``'s result gives its task's id.
        (Read inline, not through ``records.tool_result_blocks``: a second half's fold looks
        at every result of a huge transcript.)"""
        if not self._pending:
            # No call of this fold's waits for its result (the common case: no task calls at
            # all).  A second half's fold looks at no other result either: a first half whose
            # create still waited at the seam is not joined (``halfjoin.Join.checks``).
            return
        journal = self.journal
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list) or record.get("type") != "user":
            return
        told = record.get("toolUseResult")
        task = told.get("task") if isinstance(told, dict) else None
        told_id = None
        if isinstance(task, dict) and sum(_is_result(block) for block in content) == 1:
            told_id = _id(task.get("id"))  # the record's own result names its one call's task
        for block in content:
            if not _is_result(block):
                continue
            call = block.get("tool_use_id")
            if not isinstance(call, str) or (journal is None and call not in self._pending):
                continue
            failed = block.get("is_error") is True
            task_id = None if failed else told_id or _created_id(block.get("content"))
            if failed or task_id is not None:
                self.result(call, task_id, failed)

    # -- the changes (each noted in a second half's journal) ----------------------

    def todo(self, steps: tuple[tuple[str, str], ...]) -> None:
        self._note(["t"])
        self.todos, self.newest = steps, "todo"

    def create(self, call: str | None, subject: str | None, active: str | None) -> None:
        self._note(["c", call, subject, active])
        self.created += 1
        number = self.created
        if call is not None:
            older = self._pending.get(call)
            if older is not None:  # a call id used again: the newer call's result is the one awaited
                self.tasks[older][4] = None
            self._pending[call] = number
        self.tasks[number] = [None, subject, active, "pending", call]
        self.newest = "tasks"
        if len(self.tasks) > MAX_TASKS:
            self._drop(next(iter(self.tasks)))

    def result(self, call: str, task_id: str | None, failed: bool) -> None:
        self._note(["r", call, task_id, failed])
        number = self._pending.pop(call, None)
        if number is None:
            return
        task = self.tasks[number]
        task[4] = None
        if failed:
            self._drop(number)
            return
        if task_id is None:
            return
        self.ided = True
        older = self._by_id.get(task_id)
        if older is not None:
            self._drop(older)  # an id names one task: that one is gone from Claude Code's list
        task[0] = task_id
        self._by_id[task_id] = number

    def update(self, task_id: str, status: str | None, subject: str | None, active: str | None) -> None:
        self._note(["u", task_id, status, subject, active])
        number = self._by_id.get(task_id)
        if number is None and not self.ided and task_id.isascii() and task_id.isdigit():
            found = self.tasks.get(int(task_id))
            number = int(task_id) if found is not None and found[0] is None else None
            # A second half's guess by creation number may name another task than the one
            # pass's, whose list goes on from the first half's (``halfjoin.Join.checks``).
            self.guessed = self.guessed or number is not None
        if number is None:
            return  # a task this file never created (another session's list), or one dropped
        self.newest = "tasks"
        if status == "deleted":
            self._drop(number)
            return
        task = self.tasks[number]
        if status:
            task[3] = status
        if subject is not None:
            task[1] = subject
        if active is not None:
            task[2] = active

    def _drop(self, number: int) -> None:
        task = self.tasks.pop(number)
        if task[0] is not None and self._by_id.get(task[0]) == number:
            del self._by_id[task[0]]
        if task[4] is not None and self._pending.get(task[4]) == number:
            del self._pending[task[4]]

    def _note(self, change: list) -> None:
        journal = self.journal
        if journal is None or self.overflowed:
            return
        self._journal_bytes += sum(len(part) for part in change if isinstance(part, str))
        if len(journal) >= MAX_JOURNAL or self._journal_bytes > MAX_JOURNAL_BYTES:
            self.overflowed = True
            journal.clear()
            return
        journal.append(change)

    def join(self, second: PlanFold) -> None:
        """This fold (a first half's) brought on by what a second half's noted (``halfjoin``)."""
        if second.journal is None and second.newest is None:
            return  # (a fold that noted nothing and changed nothing)
        if second.journal is None or second.overflowed:
            raise ValueError("the second half's plan changes were not noted")  # (``Join.checks`` joins no such half)
        for change in second.journal:
            kind = change[0]
            if kind == "t":
                self.newest = "todo"  # (its steps: the second half's newest, set below)
            elif kind == "c":
                self.create(*change[1:])
            elif kind == "r":
                self.result(*change[1:])
            else:
                self.update(*change[1:])
        if second.todos is not None:
            self.todos = second.todos

    # -- a resume state (``ShowFacts.to_state``), a rewind's mark (``TranscriptStream``) --

    def mark(self) -> tuple:
        return self.todos, self.newest

    def rewind(self, mark: tuple) -> None:
        """Back to ``mark``: the todo list as it was, and which list is the plan (the task
        list itself stays: the module's note)."""
        self.todos, self.newest = mark

    def to_state(self) -> dict[str, Any]:
        return {"todos": None if self.todos is None else [list(step) for step in self.todos], "newest": self.newest,
                "created": self.created, "ided": self.ided, "tasks": [[n, *task] for n, task in self.tasks.items()],
                "journal": self.journal, "overflowed": self.overflowed, "guessed": self.guessed}

    @classmethod
    def from_state(cls, doc: object) -> PlanFold:
        """``to_state``'s fold; raises ``ValueError`` (or ``KeyError``/``TypeError``) on an ill-shaped one."""
        if not isinstance(doc, dict):
            raise ValueError("ill-shaped plan")
        todos, tasks, journal, created = doc["todos"], doc["tasks"], doc["journal"], doc["created"]
        if not ((todos is None or (isinstance(todos, list) and all(_strings(s, 2) for s in todos)))
                and doc["newest"] in _NEWEST and type(created) is int and type(doc["ided"]) is bool
                and type(doc["overflowed"]) is bool and type(doc["guessed"]) is bool
                and isinstance(tasks, list) and len(tasks) <= MAX_TASKS
                and all(_is_task(t, created) for t in tasks) and (journal is None or _is_journal(journal))):
            raise ValueError("ill-shaped plan")
        fold = cls()
        fold.todos = None if todos is None else tuple((step, status) for step, status in todos)
        fold.newest, fold.created, fold.ided, fold.overflowed = doc["newest"], created, doc["ided"], doc["overflowed"]
        fold.guessed = doc["guessed"]
        fold.journal = journal
        for number, *task in tasks:
            if number in fold.tasks or (task[0] is not None and task[0] in fold._by_id):
                raise ValueError("ill-shaped plan")
            fold.tasks[number] = task
            if task[0] is not None:
                fold._by_id[task[0]] = number
            if task[4] is not None:
                fold._pending[task[4]] = number
        return fold


def _strings(value: object, length: int) -> bool:
    return isinstance(value, list) and len(value) == length and all(isinstance(s, str) for s in value)


def _optional(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_task(task: object, created: int) -> bool:
    """``[number, id, subject, activeForm, status, call]`` (``PlanFold.tasks``)."""
    return (isinstance(task, list) and len(task) == 6 and type(task[0]) is int and 0 < task[0] <= created
            and all(_optional(value) for value in task[1:]) and isinstance(task[4], str))


def _is_journal(journal: object) -> bool:
    if not (isinstance(journal, list) and len(journal) <= MAX_JOURNAL):
        return False
    shapes = {"t": 1, "c": 4, "r": 4, "u": 5}
    for change in journal:
        if not (isinstance(change, list) and change and shapes.get(change[0]) == len(change)):
            return False
        if change[0] == "r":
            if not (isinstance(change[1], str) and _optional(change[2]) and type(change[3]) is bool):
                return False
        elif change[0] != "t" and not (all(_optional(value) for value in change[1:])
                                       and (change[0] != "u" or isinstance(change[1], str))):
            return False
    return True
