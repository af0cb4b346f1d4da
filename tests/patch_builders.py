"""Homes that change between two runs of ``tokens``: what the patched answers
(``scan.answerpatch``, ``cli.tablepatch``) are tested against a fresh report with."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import Callable

import orjson

from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from codex_builders import at, token_count, usage, write_demo
import gemini_builders as gemini
from agentscan.sealing import seal, unseal

IDS = [f"{letter * 8}-1111-4222-8333-444444444444" for letter in "abcdef"]
GEMINI_IDS = [f"{digit * 8}-2222-4333-8444-555555555555" for digit in "123"]
BASE = 1_790_000_000
#: what ``Changes.apply`` can do to a home
ACTIONS = ["grow", "add", "null", "remove", "share", "subagent", "new subagent", "codex", "gemini", "new gemini",
           "remove gemini", "synthetic", "remove every claude session"]


def turn(native_id: str, n: int, tokens: int, *, model: str = "claude-sonnet-4-5-20250929",
         copied_from: str | None = None) -> list[dict]:
    """A prompt and a priced reply; ``copied_from``: the reply is that session's ``n``-th call
    (same message and request id), as a resumed session copies it."""
    owner = copied_from or native_id
    return [
        claude_user(native_id, f"2026-11-01T10:{n:02d}:00Z", f"prompt {n} of {native_id[:4]}"),
        claude_assistant(native_id, f"2026-11-01T10:{n:02d}:01Z", msg_id=f"m-{owner}-{n}",
                         request_id=f"r-{owner}-{n}", usage=claude_usage(tokens, 10, cache_read=3), model=model),
    ]


def session(home: Path, native_id: str, age: int, tokens: int) -> Path:
    return claude_session_file(home, native_id, turn(native_id, 0, tokens), mtime=BASE + age * 60)


def project_session(home: Path, native_id: str, cwd: str, title: str, age: int, tokens: int = 100) -> Path:
    """A session of one priced call in ``cwd``, titled by its prompt ``title``."""
    return claude_session_file(home, native_id, [
        claude_user(native_id, "2026-11-01T09:00:00Z", title, cwd=cwd),
        claude_assistant(native_id, "2026-11-01T09:00:01Z", msg_id=f"m-{native_id}-{tokens}",
                         request_id=f"r-{native_id}-{tokens}", usage=claude_usage(tokens, 1), cwd=cwd)],
        mtime=BASE + age * 60)


def sessions(home: Path, count: int) -> list[Path]:
    """``count`` sessions, the ``n``-th (from 0) ``n + 1`` minutes old with ``100 * (n + 1)`` tokens."""
    return [session(home, native_id, index + 1, 100 * (index + 1)) for index, native_id in enumerate(IDS[:count])]


def append(path: Path, records: list[dict | bytes], mtime: float) -> None:
    with path.open("ab") as handle:
        for record in records:
            handle.write((record if isinstance(record, bytes) else orjson.dumps(record)) + b"\n")
    os.utime(path, (mtime, mtime))


def sidechain_call(native_id: str, agent: str, n: int, tokens: int) -> dict:
    return claude_assistant(native_id, f"2026-11-01T11:{n:02d}:01Z", msg_id=f"m-{agent}-{n}", request_id=f"r-{agent}-{n}",
                            usage=claude_usage(tokens, 5), sidechain=True)


def null_session(home: Path, native_id: str, mtime: float) -> Path:
    """A session with a prompt and no reply: its row has no tokens and no cost."""
    return claude_session_file(home, native_id, [claude_user(native_id, "2026-11-01T10:00:00Z", "hi")], mtime=mtime)


class Changes:
    """Three Claude sessions (one with a subagent), Codex's demo rollouts and two Gemini
    chats, laid out afresh in ``home``; ``apply`` changes them as an agent at work does."""

    def __init__(self, home: Path) -> None:
        for name in (".claude", ".codex", ".gemini"):
            shutil.rmtree(home / name, ignore_errors=True)
        self.home = home
        self.project = home / ".claude" / "projects" / "-home-dev-project"
        for index, native_id in enumerate(IDS[:3]):
            session(home, native_id, index, 100 * (index + 1))
        claude_subagent_file(home, IDS[1], "a1", [sidechain_call(IDS[1], "a1", 0, 40)])
        self.rollouts = write_demo(home)
        self.chats = [
            gemini.write_chat(home, "proj", f"session-2026-05-01T1{n}-00-{native_id[:8]}.jsonl",
                              [gemini.meta(native_id),
                               gemini.gemini("g1", "2026-05-01T10:00:02.000Z", "ok", usage=gemini.tokens(100 * (n + 1), 10))],
                              mtime=BASE + n)
            for n, native_id in enumerate(GEMINI_IDS[:2])]
        self.clock = BASE + 10_000
        self.number = 0

    def apply(self, action: str, which: int, amount: int) -> None:
        """One of ``ACTIONS``, to session ``which`` (when it applies), ``amount`` tokens."""
        self.clock += 60
        self.number += 1
        clock, number, home, project = self.clock, self.number, self.home, self.project
        path = project / f"{IDS[which]}.jsonl"
        agent = project / IDS[which] / "subagents" / "agent-a1.jsonl"
        rollout, chat = self.rollouts[which % len(self.rollouts)], self.chats[which % 2]
        if action == "grow" and path.exists():
            append(path, turn(IDS[which], 10 + number, amount), clock)
        elif action == "add" and not path.exists():
            session(home, IDS[which], clock - BASE, amount)
        elif action == "null" and not path.exists():
            null_session(home, IDS[which], clock)
        elif action == "remove" and path.exists():
            path.unlink()
            shutil.rmtree(project / IDS[which], ignore_errors=True)
        elif action == "share" and path.exists():
            append(path, turn(IDS[which], 0, 100, copied_from=IDS[(which + 1) % len(IDS)])[1:], clock)
        elif action == "synthetic" and path.exists():
            append(path, [claude_assistant(IDS[which], "2026-11-01T10:59:01Z", msg_id=f"syn-{number}", request_id=None,
                                           usage=claude_usage(0, 0), model="<synthetic>")], clock)
        elif action == "subagent" and agent.exists():
            append(agent, [sidechain_call(IDS[which], "a1", 10 + number, amount)], clock)
        elif action == "new subagent" and path.exists():
            added = claude_subagent_file(home, IDS[which], f"b{number}", [sidechain_call(IDS[which], f"b{number}", number, amount)])
            os.utime(added, (clock, clock))
        elif action == "codex" and rollout.exists():
            append(rollout, [token_count(at(4000 + number), usage(900_000 + number, 1000, 5000), usage(amount, 0, 10))], clock)
        elif action == "gemini" and chat.exists():
            append(chat, [gemini.gemini(f"g{number + 5}", "2026-05-01T10:00:03.000Z", "ok", usage=gemini.tokens(amount, 10))],
                   clock)
        elif action == "new gemini":
            gemini.write_chat(home, "proj", f"session-2026-05-01T12-00-{GEMINI_IDS[2][:8]}.jsonl",
                              [gemini.meta(GEMINI_IDS[2]),
                               gemini.gemini("g1", "2026-05-01T12:00:02.000Z", "ok", usage=gemini.tokens(amount, 10))],
                              mtime=clock)
        elif action == "remove gemini" and chat.exists():
            chat.unlink()
        elif action == "remove every claude session":
            shutil.rmtree(project, ignore_errors=True)


def rewrite_basis(key: str, edit: Callable[[dict, bytes], tuple[dict, bytes]]) -> None:
    """The kept basis ``key`` (``basis:tokens:session``, ``basis:tokens-text:session``), its
    header and body changed by ``edit``, sealed whole again: damage only a bug could make."""
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        (value,) = connection.execute("SELECT value FROM snapshots WHERE key = ?", (key,)).fetchone()
        payload = unseal(value)
        assert payload is not None
        head, _, body = payload.partition(b"\n")
        header, body = edit(orjson.loads(head), body)
        connection.execute("UPDATE snapshots SET value = ? WHERE key = ?", (seal(orjson.dumps(header) + b"\n" + body), key))


def with_section(name: str, change: Callable[[bytes], bytes]) -> Callable[[dict, bytes], tuple[dict, bytes]]:
    """A ``rewrite_basis`` edit: the section ``name`` changed by ``change``."""
    def edit(header: dict, body: bytes) -> tuple[dict, bytes]:
        start, length = header["sections"][name]
        changed = change(body[start:start + length])
        header["sections"][name] = [len(body), len(changed)]
        return header, body + changed
    return edit


def with_extras(change: Callable[[bytes], bytes]) -> Callable[[dict, bytes], tuple[dict, bytes]]:
    """A ``rewrite_basis`` edit: the table's extras section changed by ``change``."""
    return with_section("extras", change)
