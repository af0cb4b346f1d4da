"""Small builders for fake homes; real samples are copied, never rewritten."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any, Iterable

import orjson

REPO = Path(__file__).resolve().parents[1]


def invoke(*args: str) -> Any:
    """``agentscan <args>`` in this process (click's ``Result``); an exception other than
    the exit raises here, with its traceback, instead of hiding in the result."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def cli_json(*args: str) -> dict:
    """``agentscan <args> --json``, which must succeed, decoded."""
    from typer.testing import CliRunner

    from agentscan.cli import app

    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def only_row(*args: str) -> dict:
    """The one session of ``agentscan list --all <args> --json``."""
    (row,) = cli_json("list", "--all", *args)["sessions"]
    return row

#: real samples from public projects, copied into the repository (sources and
#: licences in fixtures/real/SOURCES.md)
REAL = REPO / "fixtures" / "real"


def write_jsonl(path: Path, records: Iterable[Any], *, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def claude_slug(cwd: str) -> str:
    """Claude Code's lossy project dir name: every non-alphanumeric char becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _first_session_id(path: Path) -> str:
    for line in path.read_bytes().splitlines():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and record.get("sessionId") and record.get("type") in ("user", "assistant"):
            return record["sessionId"]
    raise ValueError(f"no sessionId in {path}")


# Top-level real samples laid out as main transcripts named by their own sessionId.
REAL_CLAUDE_MAINS = (
    "agent-history-real-session-01-v2.1.152-redacted.jsonl",
    "derived-agent-sessions-schema-catalog-v2.1.x.jsonl",
    "entire-checkpoint-37995ebed6e4-v2.1.12.jsonl",
    "entire-checkpoint-ee8f793bfeb9-v2.0.76.jsonl",
    "spotter-agent-progress-v2.1.38.trimmed.jsonl",
    "spotter-short-v2.1.38.jsonl",
    "spotter-tool-heavy-v2.1.38.jsonl",
    "vibecodingtracker-v1.0.95.trimmed.jsonl",
)


def lay_out_real_claude(home: Path) -> Path:
    """Lay ``fixtures/real/claude`` out as ``home/.claude/projects``.

    * each top-level sample becomes ``<project>/<its sessionId>.jsonl``;
    * the two real trees (``projects/…`` and the derived subagent pair) are
      copied as they are;
    * the lone VibeLens subagent file goes under its parent's
      ``subagents/`` dir with no parent transcript (a parentless subagent).
    """
    projects = home / ".claude" / "projects"
    source = REAL / "claude"
    for name in REAL_CLAUDE_MAINS:
        sample = source / name
        session_id = _first_session_id(sample)
        target = projects / "-fixtures" / f"{session_id}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sample, target)
    shutil.copytree(source / "projects", projects, dirs_exist_ok=True, copy_function=shutil.copyfile)
    shutil.copytree(
        source / "derived-agent-sessions-subagent",
        projects / "-tmp",
        dirs_exist_ok=True,
        copy_function=shutil.copyfile,
    )
    vibelens = projects / "-example-recipe-book" / "example-session-claude-01" / "subagents"
    vibelens.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(
        source / "vibelens-subagent-agent-ae286913c0f1e919c-v2.1.63.jsonl",
        vibelens / "agent-ae286913c0f1e919c.jsonl",
    )
    return projects


# --- Claude Code record builders ------------------------------------------------

CLAUDE_CWD = "/home/dev/project"


def claude_base(session: str, ts: str, *, uuid: str | None = None, sidechain: bool = False, cwd: str = CLAUDE_CWD, **extra: Any) -> dict:
    record = {
        "parentUuid": None,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": cwd,
        "sessionId": session,
        "version": "2.1.63",
        "gitBranch": "main",
        "uuid": uuid or f"uuid-{ts}",
        "timestamp": ts,
    }
    record.update(extra)
    return record


def claude_user(session: str, ts: str, text: Any, **extra: Any) -> dict:
    return {**claude_base(session, ts, **extra), "type": "user", "message": {"role": "user", "content": text}}


def claude_usage(input: int = 0, output: int = 0, cache_write: int = 0, cache_read: int = 0, **extra: Any) -> dict:
    return {
        "input_tokens": input,
        "output_tokens": output,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
        **extra,
    }


def claude_assistant(
    session: str,
    ts: str,
    *,
    msg_id: str | None,
    request_id: str | None,
    usage: dict | None,
    blocks: list | None = None,
    model: str = "claude-sonnet-4-5-20250929",
    **extra: Any,
) -> dict:
    message: dict[str, Any] = {"type": "message", "role": "assistant", "model": model, "content": blocks or [{"type": "text", "text": "ok"}]}
    if msg_id is not None:
        message["id"] = msg_id
    if usage is not None:
        message["usage"] = usage
    record = {**claude_base(session, ts, **extra), "type": "assistant", "message": message}
    if request_id is not None:
        record["requestId"] = request_id
    return record


def claude_turn(session: str, day: int, n: int, used: int) -> list[dict]:
    """Prompt ``step n`` (``u<n>``) at 10:00 on 2026-02-1<day>, its reply (``a<n>``, ``msg_<n>``) at
    10:00:05 spending ``used`` in and 7 out: a session's own turn, in chains of resumes."""
    return [claude_user(session, f"2026-02-1{day}T10:00:00.000Z", f"step {n}", uuid=f"u{n}"),
            claude_assistant(session, f"2026-02-1{day}T10:00:05.000Z", msg_id=f"msg_{n}", request_id=f"req_{n}",
                             usage=claude_usage(used, 7), parentUuid=f"u{n}", uuid=f"a{n}")]


def claude_session_file(home: Path, session: str, records: Iterable[Any], *, project: str = "-home-dev-project", mtime: float | None = None) -> Path:
    return write_jsonl(home / ".claude" / "projects" / project / f"{session}.jsonl", records, mtime=mtime)



def claude_one_call(home: Path, session: str) -> Path:
    """A Claude session in ``/w/p`` of one prompt and one call of 110 tokens (2026-11-07)."""
    return claude_session_file(home, session, [
        claude_user(session, "2026-11-07T10:00:00.000Z", "work", cwd="/w/p"),
        claude_assistant(session, "2026-11-07T10:00:01.000Z", msg_id=f"m-{session}", request_id=f"r-{session}",
                         usage=claude_usage(100, 10)),
    ], project="-w-p")


def claude_sessions(home: Path, count: int) -> None:
    """``count`` small Claude sessions of one prompt and one call each, told apart by number."""
    for number in range(count):
        native = f"{number:08x}-2222-4000-8000-000000000000"
        claude_session_file(home, native, [
            claude_user(native, "2026-11-02T09:00:00.000Z", f"task {number}"),
            claude_assistant(native, "2026-11-02T09:01:00.000Z", msg_id=f"msg-{number}", request_id=f"req-{number}",
                             usage=claude_usage(100 + number, 10)),
        ])


def claude_subagent_file(
    home: Path, session: str, agent_id: str, records: Iterable[Any], *, project: str = "-home-dev-project", meta: dict | None = None
) -> Path:
    path = write_jsonl(home / ".claude" / "projects" / project / session / "subagents" / f"agent-{agent_id}.jsonl", records)
    if meta is not None:
        path.with_name(f"agent-{agent_id}.meta.json").write_bytes(orjson.dumps(meta))
    return path


def claude_progress(session: str, ts: str, agent_id: str | None, copied: dict, **extra: Any) -> dict:
    """A parent's ``agent_progress`` record holding a copy of one subagent record."""
    data: dict[str, Any] = {"type": "agent_progress", "prompt": "delegated task", "message": {
        "type": copied["type"], "timestamp": copied.get("timestamp"), "message": copied.get("message"),
        "uuid": copied.get("uuid"), **({"requestId": copied["requestId"]} if "requestId" in copied else {}),
    }, "normalizedMessages": []}
    if agent_id is not None:
        data["agentId"] = agent_id
    return {**claude_base(session, ts, **extra), "type": "progress", "data": data,
            "toolUseID": "agent_msg_x", "parentToolUseID": "toolu_task"}


def raw_lines_file(tmp_path: Path, lines: list[bytes], final_newline: bool, bom: bool) -> Path:
    """``lines`` joined as a JSONL file's bytes, exactly (the line readers' edge cases)."""
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    if bom:
        data = b"\xef\xbb\xbf" + data
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    return path


def forget_remembered_answers() -> None:
    """Drop the answers the index remembers (``scan.answers``) and the bases of grouped ones
    (``scan.groupbasis``): the next ``list`` or ``tokens`` is made again from the index (or, for
    ``tokens --by session``, patched from its kept basis when there is one: ``scan.answerpatch``),
    not printed again."""
    import sqlite3

    from agentscan.scan.cachefile import FILE_NAME

    with sqlite3.connect(Path(os.environ["AGENTSCAN_CACHE_DIR"]) / FILE_NAME) as connection:
        connection.execute("DELETE FROM snapshots WHERE key LIKE 'answer:%' OR key LIKE 'groupbasis:%'")
    connection.close()


def tokens_every_way(*args: str) -> list[dict]:
    """``tokens --json`` cold, warm (from the index, its remembered answer dropped), and
    remembered, then without the cache: a test asks that each says the same."""
    reports = [cli_json("tokens", *args)]
    forget_remembered_answers()
    reports.append(cli_json("tokens", *args))
    reports.append(cli_json("tokens", *args))
    reports.append(cli_json("tokens", "--no-cache", *args))
    return reports


def dated_sessions(home: Path, days: list[int]) -> list[Path]:
    """A Claude session a day of October 2026, each dated by its one call at 10:00 UTC."""
    paths = []
    for number, day in enumerate(days):
        native = f"{number:08x}-7777-4000-8000-000000000000"
        stamp = f"2026-10-{day:02d}T10:00:00.000Z"
        paths.append(claude_session_file(home, native, [
            claude_user(native, stamp, f"task {number}"),
            claude_assistant(native, stamp, msg_id=f"m{number}", request_id=f"r{number}", usage=claude_usage(10, 2))]))
    return paths


def orjson_refusal(data: bytes) -> orjson.JSONDecodeError:
    """The error orjson raises for ``data`` (it must refuse it: else the test is wrong)."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as refused:
        return refused
    raise AssertionError(f"orjson read {data!r}")


def deny_access(monkeypatch: Any, *paths: Path) -> None:
    """Listing or opening ``paths`` raises EACCES, as the kernel would for mode 000 (tests run
    as root here and in CI, where chmod 000 denies nothing); ``stat`` still works."""
    import builtins
    import errno
    import io

    denied = {str(path) for path in paths}
    real_scandir, real_listdir, real_open = os.scandir, os.listdir, builtins.open

    def refuse(path: object) -> None:
        if isinstance(path, (str, os.PathLike)) and os.fspath(path) in denied:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))  # type: ignore[arg-type]

    def scandir(path: object = ".") -> object:
        refuse(path)
        return real_scandir(path)  # type: ignore[arg-type]

    def listdir(path: object = ".") -> list[str]:
        refuse(path)
        return real_listdir(path)  # type: ignore[arg-type]

    def open_(file: object, *args: object, **kwargs: object) -> object:
        refuse(file)
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(builtins, "open", open_)
    monkeypatch.setattr(io, "open", open_)


def ran(*args: str) -> tuple[str, str]:
    """``agentscan <args>``'s stdout and stderr, the command having exited 0."""
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def cells(line: str) -> list[str]:
    """A table line's cells: columns are two spaces or more apart, a cell's words one."""
    return re.split(r" {2,}", line.strip())


#: the real session whose subagent ``afb92ff`` is known only from its progress records
PROGRESS_SESSION = "491e126e-1e71-469c-ade2-fcc8af567c74"


def lay_out_real_claude_sample(home: Path, name: str, session: str, project: str) -> Path:
    """``fixtures/real/claude/<name>`` as Claude Code keeps it: ``projects/<project>/<session>.jsonl``."""
    target = home / ".claude" / "projects" / project / f"{session}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REAL / "claude" / name, target)
    return target


def lay_out_progress_session(home: Path) -> Path:
    """The real ``spotter-agent-progress`` transcript as Claude Code keeps it, with no subagent file."""
    return lay_out_real_claude_sample(home, "spotter-agent-progress-v2.1.38.trimmed.jsonl", PROGRESS_SESSION,
                                      "-home-marco-projects-spotter")


def backward_reads(monkeypatch: Any) -> list[int]:
    """The sizes of the blocks read from the end of a file (``toolkit.reverse``), from now on."""
    from agentscan.toolkit import reverse

    reads: list[int] = []
    original = reverse._Backwards._read

    def spy(self: Any, start: int, stop: int) -> Any:
        reads.append(stop - start)
        return original(self, start, stop)

    monkeypatch.setattr(reverse._Backwards, "_read", spy)
    return reads



def console_env(**extra: str) -> dict[str, str]:
    """The environment of ``python -m agentscan`` run as an installed agentscan is: this
    Python's ``bin``, where its console script is, first on ``PATH``, so that its hints say
    bare ``agentscan`` (``invocation.program_word``), as ``CliRunner``'s do."""
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PATH": path, **extra}


def claude_parses(monkeypatch: Any) -> list[str]:
    """The Claude sessions read for their sums (``ClaudeProvider.session_usage``), in order,
    from now on: what a ``tokens`` parsed rather than took from the index."""
    from agentscan.providers.claude.provider import ClaudeProvider

    seen: list[str] = []
    real = ClaudeProvider.session_usage

    def counting(self: Any, ref: Any, ctx: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(ref.native_id)
        return real(self, ref, ctx, *args, **kwargs)

    monkeypatch.setattr(ClaudeProvider, "session_usage", counting)
    return seen
