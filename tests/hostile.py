"""Run agentscan in a child process that cannot hang or blow up the test run.

A hostile home can make a reader block forever (a FIFO) or allocate without
end (``/dev/zero``, a decompression bomb).  In-process such a case would
stall the whole suite, so the hardening tests run the CLI here: in its own
process group, under a wall-clock limit (then the group is killed) and an
address-space limit (``resource.setrlimit`` in the child), so a hang or a
blow-up is a failing test with a clear message instead.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from agentscan.hooks import store
from hooks_builders import Replay, pre, prompt, stop

#: wall-clock seconds one command may take on a hostile home
WALL_SECONDS = 60.0
#: address space one command may use (every worker process gets its own)
MEMORY_BYTES = 1536 * 1024 * 1024


@dataclass(frozen=True)
class Ran:
    args: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: str
    seconds: float

    def json(self) -> dict:
        assert self.returncode == 0, f"{self.args}: exit {self.returncode}\n{self.stderr[-2000:]}"
        return orjson.loads(self.stdout)

    def warnings(self) -> list[dict]:
        return self.json()["warnings"]


def _limits(memory: int) -> None:  # runs in the child, before exec
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The test's environment (conftest already isolated it), running the very code the test imported."""
    import agentscan

    source = str(Path(agentscan.__file__).resolve().parents[1])
    merged = dict(os.environ)
    merged["PYTHONPATH"] = os.pathsep.join(filter(None, [source, merged.get("PYTHONPATH")]))
    merged.update(env or {})
    return merged


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    seconds: float = WALL_SECONDS,
    memory: int = MEMORY_BYTES,
) -> Ran:
    """``python -m agentscan ARGS`` under the limits; fails the test on a hang or a crash by signal."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "agentscan", *args],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(env),
        start_new_session=True,  # its own group: a timeout kills its workers too
        preexec_fn=lambda: _limits(memory),
    )
    try:
        out, err = process.communicate(stdin, timeout=seconds)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        raise AssertionError(f"agentscan {' '.join(args)} still running after {seconds:.0f} s (a hang)") from None
    finally:
        _kill_group(process)  # workers left behind by a finished command must not outlive the test
    elapsed = time.monotonic() - started
    text = err.decode("utf-8", "replace")
    assert process.returncode >= 0, f"agentscan {' '.join(args)} died by signal {-process.returncode}\n{text[-2000:]}"
    assert "Traceback" not in text, f"agentscan {' '.join(args)} crashed:\n{text[-4000:]}"
    return Ran(tuple(args), process.returncode, out, text, elapsed)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def fifo(path: Path) -> Path:
    """A named pipe nobody writes to: a plain ``open()`` of it blocks forever."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def messages_for(warnings: list[dict], path: Path | str) -> list[str]:
    return [w["message"] for w in warnings if w["path"] == str(path)]


# -- hook payloads no reader can hold as they are -------------------------------------

BAD_HOOK_SESSION = "bad00000-0000-4000-8000-000000000bad"


def nested_text(depth: int) -> bytes:
    """``_nested(depth)`` as JSON text, built without a recursive encoder."""
    return b'{"a":[' * depth + b'"bottom"' + b"]}" * depth


def hostile_hook_session(data_dir: Path) -> Path:
    """A session whose payloads are stored through the hook, plus lines no hook would write."""
    replay = Replay(data_dir)
    replay.send(prompt("hello", conversation=BAD_HOOK_SESSION), at_ms=0)
    # 900 levels: fine for Python's json, too deep for orjson and for any walk of the tree
    shell = orjson.dumps(pre("Shell", {"command": "DEEP"}, "t1", conversation=BAD_HOOK_SESSION))
    replay.send(shell.replace(b'"DEEP"', nested_text(450)), at_ms=10)
    replay.send(b'{"hook_event_name": "postToolUse", "conversation_id": "%s", "generation_id": "g", '
                b'"tool_name": "Shell", "tool_use_id": "t1", "duration": NaN, "tool_input": {"n": 123456789012345678901234567890}}'
                % BAD_HOOK_SESSION.encode(), at_ms=20)
    replay.send(json.dumps(stop(conversation=BAD_HOOK_SESSION, input_tokens=10**30)).encode(), at_ms=30)
    path = Path(store.session_path(str(data_dir), "cursor", BAD_HOOK_SESSION))
    with open(path, "ab") as handle:  # as an older agentscan (or a hand) could have stored them
        envelope = b'{"v": 1, "received_at_ns": %d, "agent": "cursor", "event": "%s", "session_id": "%s", "payload": %s}\n'
        handle.write(envelope % (1_790_000_000_040_000_000, b"afterAgentThought", BAD_HOOK_SESSION.encode(),
                                 b'{"text": "deep", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"))
        handle.write(envelope % (1_790_000_000_050_000_000, b"afterAgentThought", BAD_HOOK_SESSION.encode(),
                                 b'{"text": "nan", "duration_ms": NaN, "big": 123456789012345678901234567890}'))
        handle.write(envelope % (1_790_000_000_060_000_000, b"afterAgentResponse", BAD_HOOK_SESSION.encode(),
                                 b'{"text": "deep", "x": ' + nested_text(300) + b"}"))
    return path


# -- zstd frames made by hand -------------------------------------------------------

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BLOCK = 128 * 1024  # the largest block a frame may hold


def _block_header(kind: int, size: int, last: bool) -> bytes:
    value = int(last) | (kind << 1) | (size << 3)
    return value.to_bytes(3, "little")


def zstd_bomb(path: Path, head: bytes, fill: bytes, expanded: int) -> Path:
    """A ``.zst`` file: ``head`` stored as is, then ``expanded`` bytes of the one byte
    ``fill`` as RLE blocks (4 bytes per 128 KiB: 8 GB fit in 256 KB, as in issue 14)."""
    assert len(fill) == 1
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        # Frame header: no content size, no checksum, window 2**17 (one block).
        handle.write(_ZSTD_MAGIC + bytes([0x00, (17 - 10) << 3]))
        for start in range(0, len(head), _BLOCK):
            piece = head[start:start + _BLOCK]
            handle.write(_block_header(0, len(piece), False) + piece)
        blocks, rest = divmod(expanded, _BLOCK)
        sizes = [_BLOCK] * blocks + ([rest] if rest else [])
        for index, size in enumerate(sizes):
            handle.write(_block_header(1, size, index == len(sizes) - 1) + fill)
    return path
