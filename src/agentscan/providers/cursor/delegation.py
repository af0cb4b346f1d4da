"""Which prompt spawned which subagent.

Cursor links a ``Task`` call to its child run nowhere: no call id, no child
id.  The child transcript's first user text is the prompt the ``Task`` call
gave it, so a child belongs to the first unclaimed ``Task`` whose prompt it
contains (or that contains it), claimed in the parent's file order.  A child
no ``Task`` explains is attributed to the session's last prompt, so its work
is never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from agentscan.providers.cursor.prompt_text import same_prompt
from agentscan.providers.cursor.transcript import TaskCall


@dataclass(frozen=True, slots=True)
class Delegation:
    subagent: str  # child composer id
    prompt_number: int  # 1-based; 0 when the session has no prompt
    agent_type: str | None = None
    description: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "subagent": self.subagent,
            "prompt": self.prompt_number,
            "agent_type": self.agent_type,
            "description": self.description,
        }


class ChildMatcher:
    def __init__(self, first_texts: Mapping[str, str]) -> None:
        self._texts = dict(sorted(first_texts.items()))
        self._unclaimed = list(self._texts)

    def claim(self, task: TaskCall) -> Delegation | None:
        for child in self._unclaimed:
            if same_prompt(task.task_prompt, self._texts[child]):
                self._unclaimed.remove(child)
                return Delegation(child, task.prompt_number, task.agent_type, task.description)
        return None

    def leftovers(self, last_prompt: int) -> list[Delegation]:
        found = [Delegation(child, last_prompt) for child in self._unclaimed]
        self._unclaimed = []
        return found

