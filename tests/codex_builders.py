"""Builders for fake Codex homes: rollouts, thread indexes, the real samples.

Every builder writes what Codex itself writes (docs/providers/codex.md); the
token counters are always given by the test, never computed by agentscan.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable

import orjson
import zstandard

from builders import REAL

REAL_CODEX = REAL / "codex"
UTC = timezone.utc
T0 = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# -- layout ---------------------------------------------------------------------


def rollout_path(
    codex_home: Path,
    thread_id: str,
    started: datetime,
    *,
    archived: bool = False,
    compressed: bool = False,
    flat: bool = False,
) -> Path:
    """Where Codex puts a thread's rollout: sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl."""
    name = f"rollout-{started.strftime('%Y-%m-%dT%H-%M-%S')}-{thread_id}.jsonl" + (".zst" if compressed else "")
    if archived:
        return codex_home / "archived_sessions" / name
    if flat:
        return codex_home / "sessions" / name
    return codex_home / "sessions" / started.strftime("%Y/%m/%d") / name


def write_rollout(path: Path, records: Iterable[Any], *, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    if path.name.endswith(".zst"):
        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def lay_out_real_codex(home: Path) -> dict[str, Path]:
    """Lay ``fixtures/real/codex`` out as ``home/.codex/sessions``.

    Each sample is named as Codex names it, from its first line (its own
    ``session_meta``): ``sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl``
    with the meta's timestamp (UTC; the real name would use local time).
    The files are copied byte for byte.  Returns native id -> path.
    """
    laid_out = {}
    for sample in sorted(REAL_CODEX.glob("*.jsonl")):
        meta = orjson.loads(sample.read_bytes().split(b"\n", 1)[0])["payload"]
        started = datetime.fromisoformat(meta["timestamp"].replace("Z", "+00:00"))
        target = rollout_path(home / ".codex", meta["id"], started)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample, target)
        laid_out[meta["id"]] = target
    return laid_out


# -- records --------------------------------------------------------------------


def line(moment: datetime | str | None, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {"type": kind, "payload": payload}
    if moment is not None:
        record = {"timestamp": moment if isinstance(moment, str) else iso(moment), **record}
    return record


def meta(
    thread_id: str,
    moment: datetime,
    *,
    cwd: str = "/work/project",
    branch: str | None = "main",
    source: Any = "cli",
    forked_from: str | None = None,
    spawn_parent: str | None = None,
    agent_role: str | None = None,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": thread_id,
        "timestamp": iso(moment),
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.130.0",
        "source": source,
        "model_provider": "openai",
    }
    if spawn_parent is not None:
        payload["source"] = {
            "subagent": {"thread_spawn": {"parent_thread_id": spawn_parent, "depth": 1, "agent_role": agent_role}}
        }
    if forked_from is not None:
        payload["forked_from_id"] = forked_from
    if branch is not None:
        payload["git"] = {"commit_hash": "0" * 40, "branch": branch, "repository_url": "https://example.invalid/r.git"}
    return line(moment, "session_meta", payload)


def turn_context(moment: datetime, model: str = "gpt-5-codex", cwd: str = "/work/project") -> dict[str, Any]:
    return line(moment, "turn_context", {"cwd": cwd, "approval_policy": "on-request", "model": model})


def task_started(moment: datetime, started_at: float | str | None = None) -> dict[str, Any]:
    value = moment.timestamp() if started_at is None else started_at
    return line(moment, "event_msg", {"type": "task_started", "turn_id": "t", "started_at": int(value) if isinstance(value, float) else value})


def user_message(moment: datetime, text: str) -> dict[str, Any]:
    return line(moment, "event_msg", {"type": "user_message", "message": text, "images": []})


def user_item(moment: datetime, text: str) -> dict[str, Any]:
    return line(moment, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})


def agent_message(moment: datetime, text: str) -> dict[str, Any]:
    return line(moment, "event_msg", {"type": "agent_message", "message": text})


def assistant_item(moment: datetime, text: str) -> dict[str, Any]:
    return line(moment, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})


def function_call(moment: datetime, name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return line(
        moment,
        "response_item",
        {"type": "function_call", "name": name, "arguments": orjson.dumps(arguments).decode(), "call_id": call_id},
    )


def function_output(moment: datetime, call_id: str, output: Any) -> dict[str, Any]:
    return line(moment, "response_item", {"type": "function_call_output", "call_id": call_id, "output": output})


def custom_tool_call(moment: datetime, name: str, text: str, call_id: str) -> dict[str, Any]:
    return line(moment, "response_item", {"type": "custom_tool_call", "name": name, "input": text, "call_id": call_id, "status": "completed"})


def custom_output(moment: datetime, call_id: str, output: Any) -> dict[str, Any]:
    return line(moment, "response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": output})


def local_shell_call(moment: datetime, command: list[str], call_id: str) -> dict[str, Any]:
    return line(
        moment,
        "response_item",
        {"type": "local_shell_call", "call_id": call_id, "status": "completed", "action": {"type": "exec", "command": command}},
    )


def usage(input: int, cached: int = 0, output: int = 0, reasoning: int = 0, cache_write: int | None = None) -> dict[str, int]:
    raw = {
        "input_tokens": input,
        "cached_input_tokens": cached,
        "output_tokens": output,
        "reasoning_output_tokens": reasoning,
        "total_tokens": input + output,
    }
    if cache_write is not None:
        raw["cache_write_input_tokens"] = cache_write
    return raw


def token_count(
    moment: datetime | str | None,
    total: dict[str, int] | None,
    last: dict[str, int] | None = None,
    rate_limits: dict[str, Any] | None = None,
) -> dict[str, Any]:
    info = None
    if total is not None or last is not None:
        info = {"model_context_window": 272000}
        if total is not None:
            info["total_token_usage"] = total
        if last is not None:
            info["last_token_usage"] = last
    return line(moment, "event_msg", {"type": "token_count", "info": info, "rate_limits": rate_limits})


def usage_record(
    moment: datetime, response_id: str | None, counters: dict[str, int], *, thread_id: str | None = None
) -> dict[str, Any]:
    """A top-level ``token_usage_record`` line (newer builds: one per completed
    response; shape from the ``TokenUsageRecord`` definition in openai/codex
    and public readers' tests, no real rollout available)."""
    payload: dict[str, Any] = {"usage": counters}
    if response_id is not None:
        payload["response_id"] = response_id
    if thread_id is not None:
        payload.update(thread_id=thread_id, turn_id="turn-1", session_id=thread_id)
    return line(moment, "token_usage_record", payload)


def compacted(moment: datetime, latest_record: dict[str, Any] | None) -> dict[str, Any]:
    """A ``compacted`` line; newer builds copy the latest usage record into it."""
    payload: dict[str, Any] = {"message": "summary of the conversation so far"}
    if latest_record is not None:
        payload["latest_token_usage_record"] = latest_record["payload"]
    return line(moment, "compacted", payload)


def paginated(meta_line: dict[str, Any], *, base: tuple[str, int] | None = None, ordinal: int | None = None) -> dict[str, Any]:
    """A ``session_meta`` line of a ``history_mode: paginated`` thread; ``base``
    = (rollout id it continues, end byte offset of the part it continues)."""
    payload = {**meta_line["payload"], "history_mode": "paginated"}
    if base is not None:
        payload["history_base"] = {"thread_id": base[0], "end_byte_offset": base[1],
                                   "end_ordinal_exclusive": ordinal or 0}
    record = {**meta_line, "payload": payload}
    if ordinal is not None:
        record["ordinal"] = ordinal
    return record


@dataclass
class Calls:
    """Emits ``token_count`` lines the way Codex does: each call's counters plus the running total."""

    total: dict[str, int] = field(default_factory=lambda: usage(0))

    def call(self, moment: datetime, input: int, cached: int = 0, output: int = 0, reasoning: int = 0) -> dict[str, Any]:
        last = usage(input, cached, output, reasoning)
        self.total = {key: self.total[key] + last[key] for key in last}
        return token_count(moment, dict(self.total), last)


# -- thread index -----------------------------------------------------------------

INDEX_COLUMNS = (
    "id TEXT PRIMARY KEY",
    "rollout_path TEXT NOT NULL",
    "created_at INTEGER NOT NULL",
    "updated_at INTEGER NOT NULL",
    "source TEXT NOT NULL",
    "model_provider TEXT NOT NULL DEFAULT 'openai'",
    "cwd TEXT NOT NULL",
    "title TEXT NOT NULL",
    "sandbox_policy TEXT NOT NULL DEFAULT ''",
    "approval_mode TEXT NOT NULL DEFAULT ''",
    "tokens_used INTEGER NOT NULL DEFAULT 0",
    "archived INTEGER NOT NULL DEFAULT 0",
    "git_branch TEXT",
    "first_user_message TEXT NOT NULL DEFAULT ''",
    "model TEXT",
    "created_at_ms INTEGER",
    "updated_at_ms INTEGER",
)


def write_state_db(
    path: Path,
    rows: Iterable[dict[str, Any]],
    *,
    columns: Iterable[str] = INDEX_COLUMNS,
    edges: Iterable[tuple[str, str]] = (),
    wal: bool = False,
) -> Path:
    """A ``state_<n>.sqlite`` with a ``threads`` table of the given columns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(columns)
    names = [column.split()[0] for column in columns]
    conn = sqlite3.connect(path)
    try:
        if wal:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"CREATE TABLE threads ({', '.join(columns)})")
        for row in rows:
            present = [name for name in names if name in row]
            conn.execute(
                f"INSERT INTO threads ({', '.join(present)}) VALUES ({', '.join('?' for _ in present)})",
                [row[name] for name in present],
            )
        edges = list(edges)
        if edges:
            conn.execute("CREATE TABLE thread_spawn_edges (parent_thread_id TEXT NOT NULL, child_thread_id TEXT PRIMARY KEY, status TEXT)")
            conn.executemany("INSERT INTO thread_spawn_edges VALUES (?, ?, 'done')", edges)
        conn.commit()
        if wal:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path


def index_row(thread_id: str, rollout: Path, *, created: datetime, updated: datetime, **values: Any) -> dict[str, Any]:
    row = {
        "id": thread_id,
        "rollout_path": str(rollout),
        "created_at": int(created.timestamp()),
        "updated_at": int(updated.timestamp()),
        "created_at_ms": int(created.timestamp() * 1000),
        "updated_at_ms": int(updated.timestamp() * 1000),
        "source": "cli",
        "cwd": "/work/project",
        "title": "",
    }
    row.update(values)
    return row


# -- thread names -----------------------------------------------------------------

#: a thread index with the ``name`` column (``dump 0041_threads_name.sql``)
INDEX_COLUMNS_WITH_NAME = (*INDEX_COLUMNS, "name TEXT")


def thread_name_updated(moment: datetime, thread_id: str, name: str | None) -> dict[str, Any]:
    """A rename as the rollout records it (shape of the 0.146 catalog's line 55)."""
    payload: dict[str, Any] = {"type": "thread_name_updated", "thread_id": thread_id}
    if name is not None:
        payload["thread_name"] = name
    return line(moment, "event_msg", payload)


def session_index_entry(thread_id: str, name: str, updated: datetime) -> dict[str, Any]:
    """One line of ``session_index.jsonl`` as Codex appends it (``updated_at`` in whole seconds)."""
    return {"id": thread_id, "thread_name": name, "updated_at": updated.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


def write_session_index(codex_home: Path, lines: Iterable[dict[str, Any] | bytes], *, newline: bool = True) -> Path:
    """``<codex home>/session_index.jsonl``: entries, or raw bytes for a line as it is."""
    path = codex_home / "session_index.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"\n".join(item if isinstance(item, bytes) else orjson.dumps(item) for item in lines)
    path.write_bytes(data + (b"\n" if newline and data else b""))
    return path


# -- the demo home ------------------------------------------------------------------

DEMO_MAIN = "019ab7c1-5e2f-7a30-9c41-2d8e6f0b1a57"
DEMO_PARENT = "019ac2d4-7b18-7c62-8e05-4f1a9b3c6d28"
DEMO_CHILD = "019ac2d6-0c9e-7f41-a2b7-8d3e5f6a7b90"
DEMO_ARCHIVED = "019a8e12-3f4d-7b56-9a0c-1e2d3c4b5a69"
DEMO_RATE_LIMITS = {
    "limit_id": "codex",
    "primary": {"used_percent": 12.0, "window_minutes": 300, "resets_at": 1795662000},
    "secondary": {"used_percent": 4.0, "window_minutes": 10080, "resets_at": 1796083200},
    "plan_type": "plus",
}


def _env_context(moment: datetime, cwd: str) -> dict[str, Any]:
    return user_item(moment, f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>")


def _shell(moment: datetime, script: str, call_id: str, exit_code: int, output: str) -> list[dict[str, Any]]:
    result = {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 1.2}}
    return [
        function_call(moment, "shell", {"command": ["bash", "-lc", script], "workdir": None}, call_id),
        function_output(moment + timedelta(seconds=2), call_id, orjson.dumps(result).decode()),
    ]


def _patch(moment: datetime, path: str, body: str, call_id: str) -> list[dict[str, Any]]:
    patch = f"*** Begin Patch\n*** Update File: {path}\n{body}\n*** End Patch"
    result = {"output": f"Success. Updated the following files:\nM {path}\n", "metadata": {"exit_code": 0}}
    return [
        custom_tool_call(moment, "apply_patch", patch, call_id),
        custom_output(moment + timedelta(seconds=1), call_id, orjson.dumps(result).decode()),
    ]


def _plan(moment: datetime, steps: list[tuple[str, str]], call_id: str) -> list[dict[str, Any]]:
    plan = [{"step": step, "status": status} for step, status in steps]
    return [function_call(moment, "update_plan", {"plan": plan}, call_id), function_output(moment, call_id, "Plan updated")]


def demo_main_rollout() -> list[dict[str, Any]]:
    """A CLI session that adds a CSV export, breaks a test and fixes it."""
    t = datetime(2026, 11, 26, 9, 14, 3, 120000, tzinfo=UTC)
    cwd = "/home/demo/src/inventory-api"
    calls = Calls()
    s = lambda seconds: t + timedelta(seconds=seconds)  # noqa: E731
    records = [
        meta(DEMO_MAIN, t, cwd=cwd, branch="feature/csv-export"),
        _env_context(s(0.2), cwd),
        turn_context(s(0.2), "gpt-5-codex", cwd),
        task_started(s(0.2)),
        user_item(s(0.3), "Add a CSV export to the /items endpoint and document it in the README"),
        user_message(s(0.3), "Add a CSV export to the /items endpoint and document it in the README"),
        agent_message(s(6), "I'll find the items router and its tests first."),
        *_shell(s(6.5), "rg -n \"def list_items\" -S app tests", "call_dm01", 0, "app/routers/items.py:18:def list_items(\ntests/test_items.py:9:def test_list_items(client):\n"),
        calls.call(s(9), 8200, 0, 310, 128),
        *_plan(s(15), [("Add ?format=csv to GET /items", "in_progress"), ("Test the CSV output", "pending"), ("Document it in the README", "pending")], "call_dm02"),
        *_patch(s(16), "app/routers/items.py", "@@ def list_items(\n-    return items\n+    if format == \"csv\":\n+        return csv_response(items)\n+    return items", "call_dm03"),
        calls.call(s(21), 11400, 8064, 920, 512),
        *_shell(s(24), "pytest -q tests/test_items.py", "call_dm04", 1, "F.\nE   NameError: name 'csv_response' is not defined\n1 failed, 1 passed in 0.41s\n"),
        calls.call(s(31), 13050, 11264, 260, 64),
        *_patch(s(33), "app/routers/items.py", "@@\n+from app.exporters import csv_response", "call_dm05"),
        *_shell(s(36), "pytest -q", "call_dm06", 0, "........\n8 passed in 0.77s\n"),
        calls.call(s(44), 14100, 12800, 540, 256),
        *_plan(s(46), [("Add ?format=csv to GET /items", "completed"), ("Test the CSV output", "completed"), ("Document it in the README", "completed")], "call_dm07"),
        *_patch(s(47), "README.md", "@@ ## Endpoints\n+`GET /items?format=csv` returns the items as CSV.", "call_dm08"),
        agent_message(s(52), "Done: `GET /items?format=csv` now streams CSV, covered by a test, and the README documents it. All 8 tests pass."),
    ]
    last = calls.call(s(52.2), 14900, 13952, 410, 0)
    last["payload"]["rate_limits"] = DEMO_RATE_LIMITS
    return records + [last]


def demo_delegating_rollouts() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A session that hands a review to a subagent thread (multi-agent builds)."""
    t = datetime(2026, 11, 25, 16, 40, 11, 500000, tzinfo=UTC)
    cwd = "/home/demo/src/billing-service"
    s = lambda seconds: t + timedelta(seconds=seconds)  # noqa: E731
    parent_calls, child_calls = Calls(), Calls()
    prompt = "Review the refund flow for race conditions and fix anything you find"
    parent = [
        meta(DEMO_PARENT, t, cwd=cwd, branch="main"),
        turn_context(s(0.1), "gpt-5.1-codex", cwd),
        task_started(s(0.1)),
        user_message(s(0.2), prompt),
        agent_message(s(5), "I'll ask a reviewer agent to audit refunds.py while I check the tests."),
        function_call(s(5.5), "spawn_agent", {"agent_role": "reviewer", "message": "Audit app/refunds.py for race conditions"}, "call_dp01"),
        function_output(s(40), "call_dp01", "Reviewer finished: refund() reads then writes the balance without a lock."),
        parent_calls.call(s(41), 9600, 0, 420, 192),
        *_patch(s(45), "app/refunds.py", "@@ def refund(\n-    balance = account.balance\n+    with account.lock():\n+        balance = account.balance", "call_dp02"),
        agent_message(s(50), "Fixed: refund() now updates the balance under the account lock."),
        parent_calls.call(s(50.5), 12800, 9472, 350, 128),
    ]
    child = [
        meta(DEMO_CHILD, s(6), cwd=cwd, branch="main", spawn_parent=DEMO_PARENT, agent_role="reviewer"),
        turn_context(s(6.1), "gpt-5.1-codex-mini", cwd),
        task_started(s(6.1)),
        user_message(s(6.2), "Audit app/refunds.py for race conditions"),
        *_shell(s(9), "sed -n '1,120p' app/refunds.py", "call_dc01", 0, "def refund(account, amount):\n    balance = account.balance\n"),
        child_calls.call(s(14), 5200, 0, 260, 128),
        *_shell(s(20), "rg -n \"account.lock\" -S app", "call_dc02", 1, ""),
        agent_message(s(38), "refund() reads then writes the balance without a lock."),
        child_calls.call(s(38.5), 7400, 5120, 610, 256),
    ]
    return parent, child


def demo_archived_rollout() -> list[dict[str, Any]]:
    """An older `codex exec` run, archived."""
    t = datetime(2026, 11, 2, 7, 30, 0, tzinfo=UTC)
    cwd = "/home/demo/src/inventory-api"
    calls = Calls()
    return [
        meta(DEMO_ARCHIVED, t, cwd=cwd, branch="main", source="exec"),
        turn_context(t + timedelta(seconds=1), "gpt-5-codex", cwd),
        user_message(t + timedelta(seconds=1), "Summarize the open TODO comments"),
        *_shell(t + timedelta(seconds=3), "rg -n TODO -S app", "call_da01", 0, "app/db.py:40:# TODO: pool size from env\n"),
        agent_message(t + timedelta(seconds=9), "One TODO: app/db.py:40 wants the pool size from the environment."),
        calls.call(t + timedelta(seconds=9.2), 6400, 3200, 180, 64),
    ]


def write_demo(home: Path) -> list[Path]:
    """Write the Codex part of the demo home (the files shipped in the package)."""
    codex = home / ".codex"
    parent, child = demo_delegating_rollouts()
    written = [
        (DEMO_MAIN, demo_main_rollout(), False),
        (DEMO_PARENT, parent, False),
        (DEMO_CHILD, child, False),
        (DEMO_ARCHIVED, demo_archived_rollout(), True),
    ]
    paths = []
    for thread, records, archived in written:
        started = datetime.fromisoformat(records[0]["payload"]["timestamp"].replace("Z", "+00:00"))
        paths.append(write_rollout(rollout_path(codex, thread, started, archived=archived), records))
    return paths


def append_records(path: Path, records: list[dict[str, Any]]) -> None:
    """``records`` appended to a rollout, as an agent at work appends them."""
    with path.open("ab") as handle:
        for record in records:
            handle.write(orjson.dumps(record) + b"\n")


def rows_three_ways() -> list[dict]:
    """The one session's row as a cold read, a cached read and a ``--no-cache`` read give it."""
    from builders import cli_json

    rows = [cli_json(*pre, "list", "--all")["sessions"] for pre in ((), (), ("--no-cache",))]
    assert [len(found) for found in rows] == [1, 1, 1]
    return [found[0] for found in rows]


def cli_doc(*argv: str) -> dict:
    """A command's ``--json`` document, the command having passed."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, [*argv, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def codex_doctor() -> dict:
    """``doctor --json``'s Codex report."""
    (codex,) = [report for report in cli_doc("doctor")["providers"] if report["provider"] == "codex"]
    return codex
