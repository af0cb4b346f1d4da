"""How a provider's running sessions are told (``scan.liveness``): whether a file held open
tells one, which of its files do, and the registry its agent keeps of them instead.  Each has
a default for an agent that holds its session's files open while it runs; ``Provider``
inherits them.  A built-in provider's are mirrored in ``providers`` (``LIVENESS_NOT_KNOWN``,
``LIVENESS_FILES``, ``RUNNING_REGISTRIES``), read without importing the provider.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol


class RunningQuestions:
    #: whether a live session holds one of its files open, so that ``/proc`` tells a running
    #: one (``scan.liveness``).  Gemini CLI appends each record and closes the file: its
    #: sessions' ``running`` is ``null`` (not known), never ``false``.
    liveness_known: ClassVar[bool] = True
    #: how the names of the files that tell it end, when only some do (``None``: every file).
    #: Cursor's: an Agent CLI chat's ``store.db``, which SQLite holds open while the agent runs;
    #: no transcript is seen held open.
    liveness_files: ClassVar[tuple[str, ...] | None] = None
    #: where its agent names the sessions it runs when it holds no file of theirs open (Claude
    #: Code 2.1.x's ``~/.claude/sessions/``); ``None``: nowhere.
    running_registry: ClassVar[RunningRegistry | None] = None


class RunningRegistry(Protocol):
    """A registry an agent keeps of the sessions it runs (``Provider.running_registry``), asked
    by ``scan.liveness`` of a session whose files no process holds open."""

    #: why ``running`` is not known of a session whose home keeps no registry
    missing: str

    def running(self, transcript: str, pid: int | None, read: dict[str, Any]) -> bool | None:
        """Whether a running process (``pid``, if given) names the session of ``transcript`` in
        its registry; ``False`` too for a file that is none of its agent's transcripts;
        ``None``: its home keeps no registry.  ``read``: the asker's registries read so far
        (each read once by it: a long-lived scanner sees sessions start and stop)."""
        ...
