"""Hook payload builders and a replayer for the events store.

Cursor payloads follow the documented shapes (docs/hooks.md,
"Capture"): no Cursor payload file exists upstream, so they are built here.
Claude payloads come from the real fixture
``fixtures/real/hooks/harnessspy/claude-code-default-events.json``
where one fits, and are built in the same shape otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from agentscan.hooks import capture, store

HOOK_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hooks"
HARNESSSPY = HOOK_FIXTURES / "harnessspy"

CONVERSATION = "6f1c2a9e-3b7d-4e21-9a55-0c8d2e4f7a10"
GENERATION = "b2d4f6a8-1c3e-4a5b-8d7f-9e0a1b2c3d4e"
WORKSPACE = "/work/repo"
BASE_NS = 1_790_000_000_000_000_000  # 2026-09-21T…Z
MS = 1_000_000


def load_fixture(name: str) -> Any:
    return json.loads((HARNESSSPY / name).read_text(encoding="utf-8"))


def cursor_transcript_path(conversation: str = CONVERSATION) -> str:
    return f"/home/dev/.cursor/projects/work-repo/agent-transcripts/{conversation}/{conversation}.jsonl"


# --- Cursor payloads ----------------------------------------------------------------


def cursor(event: str, *, conversation: str = CONVERSATION, generation: str = GENERATION, **fields: Any) -> dict[str, Any]:
    """The fields every Cursor agent hook sends, then the event's own."""
    payload: dict[str, Any] = {
        "conversation_id": conversation,
        "generation_id": generation,
        "model": "claude-4.5-sonnet-thinking",
        "model_id": "claude-sonnet-4-5",
        "hook_event_name": event,
        "cursor_version": "2.1.46",
        "workspace_roots": [WORKSPACE],
        "user_email": "dev@example.com",
        "transcript_path": cursor_transcript_path(conversation),
    }
    payload.update(fields)
    return payload


def prompt(text: str, **kw: Any) -> dict[str, Any]:
    return cursor("beforeSubmitPrompt", prompt=text, attachments=[], **kw)


def thought(text: str, duration_ms: int = 1200, **kw: Any) -> dict[str, Any]:
    return cursor("afterAgentThought", text=text, duration_ms=duration_ms, **kw)


def response(text: str, **kw: Any) -> dict[str, Any]:
    return cursor("afterAgentResponse", text=text, **kw)


def stop(status: str = "completed", **kw: Any) -> dict[str, Any]:
    return cursor("stop", status=status, loop_count=0, **kw)


def pre(tool: str, tool_input: dict[str, Any], tool_use_id: str, **kw: Any) -> dict[str, Any]:
    return cursor("preToolUse", tool_name=tool, tool_input=tool_input, tool_use_id=tool_use_id, cwd="", **kw)


def post(tool: str, tool_input: dict[str, Any], tool_use_id: str, output: Any = None, duration: float = 79.471, **kw: Any) -> dict[str, Any]:
    tool_output = json.dumps(output if output is not None else {"success": True})
    return cursor("postToolUse", tool_name=tool, tool_input=tool_input, tool_use_id=tool_use_id,
                  tool_output=tool_output, cwd="", duration=duration, **kw)


def failure(tool: str, tool_input: dict[str, Any], tool_use_id: str, message: str = "exit code 1",
            failure_type: str = "error", **kw: Any) -> dict[str, Any]:
    return cursor("postToolUseFailure", tool_name=tool, tool_input=tool_input, tool_use_id=tool_use_id, cwd="",
                  error_message=message, failure_type=failure_type, duration=1500, is_interrupt=False, **kw)


def shell_input(command: str, cwd: str = WORKSPACE) -> dict[str, Any]:
    return {"command": command, "working_directory": cwd, "timeout": 30000}


def before_shell(command: str, cwd: str = WORKSPACE, **kw: Any) -> dict[str, Any]:
    return cursor("beforeShellExecution", command=command, cwd=cwd, sandbox=False, **kw)


def after_shell(command: str, output: str = "ok\n", cwd: str = WORKSPACE, duration: int = 900, **kw: Any) -> dict[str, Any]:
    return cursor("afterShellExecution", command=command, output=output, duration=duration, sandbox=False, cwd=cwd, **kw)


def before_mcp(tool: str, tool_input: dict[str, Any], server: str, **kw: Any) -> dict[str, Any]:
    # before/afterMCPExecution send the bare tool name and the input as a JSON *string*
    return cursor("beforeMCPExecution", tool_name=tool, tool_input=json.dumps(tool_input), mcp_server_name=server,
                  url=f"https://{server}.example.com/mcp", mcp_server_url=f"https://{server}.example.com/mcp", **kw)


def after_mcp(tool: str, tool_input: dict[str, Any], server: str, result: Any = None, **kw: Any) -> dict[str, Any]:
    return cursor("afterMCPExecution", tool_name=tool, tool_input=json.dumps(tool_input), mcp_server_name=server,
                  mcp_server_url=f"https://{server}.example.com/mcp", result_json=json.dumps(result or {"content": []}),
                  duration=320, **kw)


def before_read(file_path: str, content: str = "# title\n", **kw: Any) -> dict[str, Any]:
    return cursor("beforeReadFile", file_path=file_path, content=content, attachments=[], **kw)


def after_edit(file_path: str, old: str = "a", new: str = "b", **kw: Any) -> dict[str, Any]:
    return cursor("afterFileEdit", file_path=file_path, edits=[{"old_string": old, "new_string": new}], **kw)


def subagent_start(subagent_id: str, task: str, tool_call_id: str, subagent_type: str = "explore", **kw: Any) -> dict[str, Any]:
    return cursor("subagentStart", subagent_id=subagent_id, subagent_type=subagent_type, task=task,
                  parent_conversation_id=CONVERSATION, tool_call_id=tool_call_id, subagent_model="composer-1",
                  is_parallel_worker=False, **kw)


def subagent_stop(task: str, subagent_type: str = "explore", **kw: Any) -> dict[str, Any]:
    """The documented stop: no subagent_id (docs/hooks.md, "The tree")."""
    return cursor("subagentStop", subagent_type=subagent_type, status="completed", task=task, description=task,
                  summary="found 3 files", duration_ms=4200, message_count=6, tool_call_count=3, loop_count=1,
                  modified_files=[], agent_transcript_path=None, **kw)


# --- replay -------------------------------------------------------------------------


class Replay:
    """Feeds payloads through the real capture path with a controlled clock."""

    def __init__(self, root: Path, agent: str = "cursor", start_ns: int = BASE_NS) -> None:
        self.root = root
        self.agent = agent
        self.now_ns = start_ns

    def send(self, payload: Any, *, at_ms: float | None = None, after_ms: float = 10) -> int:
        """Store one payload, ``after_ms`` after the previous one (or at ``at_ms`` from the start)."""
        self.now_ns = BASE_NS + int(at_ms * MS) if at_ms is not None else self.now_ns + int(after_ms * MS)
        raw = payload if isinstance(payload, bytes) else orjson.dumps(payload)
        capture.capture(str(self.root), self.agent, raw, self.now_ns)
        return self.now_ns

    def send_all(self, payloads: list[Any], step_ms: float = 10) -> None:
        for payload in payloads:
            self.send(payload, after_ms=step_ms)

    def lines(self, session_id: str = CONVERSATION) -> list[dict[str, Any]]:
        path = Path(store.session_path(str(self.root), self.agent, session_id))
        return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def iso_at(ms: float) -> str:
    """The ISO time ``trace`` prints for BASE + ms."""
    from agentscan.hooks.model import iso_ns

    return iso_ns(BASE_NS + int(ms * MS)) or ""


# --- reading traces back -------------------------------------------------------------


def trace_doc(query: str = CONVERSATION) -> dict[str, Any]:
    """``agentscan trace QUERY --json``, parsed; fails the test on a non-zero exit."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, ["trace", query, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def walk(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for node in nodes:
        found.append(node)
        found.extend(walk(node["children"]))
    return found


def tool_calls(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool-call nodes anywhere below ``nodes`` (inside waves too), orphans excluded."""
    return [n for n in walk(nodes) if n["kind"] == "tool" and n["provenance"] != "orphan"]


def only(nodes: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    """The single node whose fields (or ``input`` keys, prefixed ``input_``) match."""
    def fits(node: dict[str, Any]) -> bool:
        for key, value in match.items():
            if key.startswith("input_"):
                if not isinstance(node["input"], dict) or node["input"].get(key[6:]) != value:
                    return False
            elif node.get(key) != value:
                return False
        return True

    hits = [n for n in walk(nodes) if fits(n)]
    assert len(hits) == 1, f"{len(hits)} nodes match {match}"
    return hits[0]


def write_json(path: Path, config: dict) -> Path:
    """A hooks config as an agent or an editor lays it out."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def ok(*args: str) -> Any:
    """``agentscan <args>``, which must succeed: click's ``Result``."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def failed_then_retried_shell(replay: Replay, *, delivered_twice_at_ms: float | None = None) -> None:
    """``npm test`` times out (try-1) and is run again (try-2), each with its shell execution;
    ``delivered_twice_at_ms``: the retry's beforeShellExecution is delivered a second time then."""
    command = shell_input("npm test")
    replay.send(pre("Shell", command, "try-1"), at_ms=0)
    replay.send(before_shell("npm test"), at_ms=5)
    replay.send(failure("Shell", command, "try-1", message="timed out", failure_type="timeout"), at_ms=100)
    replay.send(pre("Shell", command, "try-2"), at_ms=200)
    replay.send(before_shell("npm test"), at_ms=205)
    if delivered_twice_at_ms is not None:
        replay.send(before_shell("npm test"), at_ms=delivered_twice_at_ms)
    replay.send(after_shell("npm test"), at_ms=300)
    replay.send(post("Shell", command, "try-2"), at_ms=310)


def venv(where: Path, *, script: bool = True) -> Path:
    """A venv's ``bin`` with a ``python`` and, unless told, an ``agentscan`` console script
    (each a stub: the tests ask which program would run, never run it)."""
    bin_dir = where / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in ("python", *(("agentscan",) if script else ())):
        (bin_dir / name).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / name).chmod(0o755)
    return bin_dir
