"""Hook store readers of pass 58: one line decoder everywhere (a line cut short by an older hook,
with the next event glued after it, reads back in the live sender's tail as in a whole read)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agentscan.hooks import store
from agentscan.otlp import livetail
from hooks_builders import Replay

SESSION = "58580000-0000-4000-8000-585800000001"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return Path(os.environ["AGENTSCAN_DATA_DIR"])


def claude(event: str, turn: int, **fields: Any) -> dict[str, Any]:
    return {"hook_event_name": event, "session_id": SESSION, "cwd": "/repo", "prompt_id": f"p-{turn}", **fields}


def bash(call: str) -> dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": call}


def _glued_store(data_dir: Path, glued_index: int) -> store.StoredSession:
    """Two turns; line ``glued_index`` written after the start of itself cut short, on one line,
    as an agentscan before pass 55 left a store after a hook was killed mid-write."""
    replay = Replay(data_dir, agent="claude")
    for turn in (0, 1):
        replay.send(claude("UserPromptSubmit", turn, prompt=f"turn {turn}"), at_ms=turn * 20_000)
        replay.send(claude("PreToolUse", turn, **bash(f"t{turn}")), at_ms=turn * 20_000 + 100)
        replay.send(claude("PostToolUse", turn, tool_response={}, **bash(f"t{turn}")), at_ms=turn * 20_000 + 300)
        replay.send(claude("Stop", turn), at_ms=turn * 20_000 + 500)
    path = Path(store.session_path(str(data_dir), "claude", SESSION))
    lines = path.read_bytes().splitlines(keepends=True)
    lines[glued_index] = lines[glued_index][:50] + lines[glued_index]
    path.write_bytes(b"".join(lines))
    return store.StoredSession("claude", SESSION, str(path))


def _seen(events: list[Any]) -> list[tuple[int, str]]:
    return [(e.seq, e.name) for e in events]


@pytest.mark.parametrize("glued_index", [1, 4])
def test_the_live_tail_reads_an_event_glued_after_a_cut_short_line(data_dir: Path, glued_index: int) -> None:
    """Failed before: the tail had its own decoder, which dropped the whole line (the event too)."""
    session = _glued_store(data_dir, glued_index)
    whole, _ = store.read_events(session)
    tail = livetail.read_tail(session, None, 1 << 20)
    assert tail is not None and len(whole) == 8
    assert _seen(tail.events) == _seen(whole)
    assert [w.message for w in tail.warnings] == [w.message for w in store.read_events(session)[1]]


def test_a_skipped_to_mark_lands_on_a_prompt_glued_after_a_cut_short_line(data_dir: Path) -> None:
    """Failed before: the glued prompt of the second turn was not read, so the mark fell on the
    first turn's prompt (the whole file to read again)."""
    session = _glued_store(data_dir, 4)
    data = Path(session.path).read_bytes()
    moved = livetail.skip_mark(session, None, len(data))
    assert moved is not None
    mark, skipped = moved
    assert (mark.offset, skipped, mark.lines) == (_line_start(data, 4), _line_start(data, 4), 4)
    tail = livetail.read_tail(session, mark, 1 << 20)
    assert tail is not None and tail.mark == mark
    assert _seen(tail.events) == [(5, "UserPromptSubmit"), (6, "PreToolUse"), (7, "PostToolUse"), (8, "Stop")]


def _line_start(data: bytes, index: int) -> int:
    at = 0
    for _ in range(index):
        at = data.index(b"\n", at) + 1
    return at


# --- show's hook hint (``hooks.tailread``) ---------------------------------------------------


def test_a_glued_line_does_not_stop_the_hint_search_before_its_own_event(tmp_path: Path) -> None:
    """Failed before: the glued line's first stamp (the cut writer's, an hour older) stopped the
    backward search there, and its own event, captured after the last line's, was missed."""
    from agentscan.hooks import tailread
    from test_hooks_unlisted_tail_pass56 import BASE, SECOND, _line, _session, _tree_says

    cut = _line(BASE + SECOND, "PreToolUse", transcript_path="/t/cut.jsonl")[:60]
    lines = [_line(BASE, "UserPromptSubmit", transcript_path="/t/first.jsonl"),
             cut + _line(BASE + 3602 * SECOND, "PostToolUse", transcript_path="/t/glued.jsonl"),
             _line(BASE + 3600 * SECOND, "Stop", transcript_path="/t/last.jsonl")]
    session = _session(tmp_path, lines)
    assert tailread.latest_transcript_path(session) == _tree_says(session) == "/t/glued.jsonl"


def test_a_store_stamped_on_every_line_reads_no_time_past_the_stop(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: every line's payload time past the stop was read in Python (2,000 of
    them; a 108 MB Gemini CLI store took 0.32 CPU-s for a hint, 0.14 now: docs/cli-hooks.md)."""
    from agentscan import timeutil
    from agentscan.hooks import tailread
    from test_hooks_unlisted_tail_pass56 import BASE, SECOND, _iso, _line, _session, _tree_says

    lines = [_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n % 7}.jsonl", timestamp=_iso(BASE + n * SECOND),
                   llm_request={"timestamp": _iso(BASE + n * SECOND - SECOND)}) for n in range(2000)]
    session = _session(tmp_path, lines)
    read: list[object] = []
    real = timeutil.parse_iso
    monkeypatch.setattr(timeutil, "parse_iso", lambda value: read.append(value) or real(value))
    assert tailread.latest_transcript_path(session) == f"/t/{1999 % 7}.jsonl"
    assert len(read) <= 40, len(read)
    monkeypatch.setattr(timeutil, "parse_iso", real)
    assert _tree_says(session) == f"/t/{1999 % 7}.jsonl"


def _written(at_ns: int, shape: str) -> str:
    """A payload time near ``at_ns`` written as ``shape`` says (some not times at all)."""
    from datetime import datetime, timezone

    day = datetime.fromtimestamp(at_ns // 1_000_000_000, timezone.utc)
    second = day.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{at_ns % 1_000_000_000:09d}"
    return {"ms": f"{second}.{fraction[:3]}Z", "ns": f"{second}.{fraction}Z", "whole": f"{second}Z",
            "east": f"{second}.{fraction[:3]}+05:00", "west": f"{second}.{fraction[:3]}-05:00",
            "naive": f"{second}.{fraction[:3]}", "feb30": f"{day.year:04d}-02-30T{second[11:]}Z",
            "hour24": f"{second[:11]}24:00:00.500Z", "leap": f"{second[:17]}60.500Z",
            "space": f"{second[:10]} {second[11:]}Z"}[shape]


def test_payload_times_near_the_best_agree_with_the_tree_in_400_random_sessions(tmp_path: Path) -> None:
    """Times to the nanosecond within seconds of one another, zone offsets, times that do not
    parse: the hits passed over in C (earlier to the second) never hide a later event."""
    from agentscan.hooks import tailread
    from test_hooks_unlisted_tail_pass56 import BASE, SECOND, _line, _session, _tree_says

    import random

    shapes = ["ms", "ns", "whole", "east", "west", "naive", "feb30", "hour24", "leap", "space"]
    disagree = []
    for trial in range(400):
        rng = random.Random(trial)
        lines, at = [], BASE + rng.randrange(SECOND)
        for n in range(rng.randint(2, 25)):
            at += rng.choice((0, 1, 40)) * SECOND + rng.randrange(SECOND // 2)
            stamp = at + rng.choice((-40, -1, 0, 0, 1, 3600 * 5)) * SECOND + rng.randrange(-SECOND, SECOND)
            fields: dict[str, object] = {"transcript_path": f"/t/{n}.jsonl"} if rng.random() < 0.7 else {}
            if rng.random() < 0.8:
                fields["timestamp"] = _written(stamp, rng.choice(shapes))
            lines.append(_line(at, "AfterTool", **fields))
        session = _session(tmp_path / str(trial), lines)
        if tailread.latest_transcript_path(session) != _tree_says(session):
            disagree.append(trial)
    assert disagree == []


# --- pairing's keys (``hooks.draft``) ---------------------------------------------------------


def test_each_call_is_keyed_once_however_many_completions_ask(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: every completion keyed every open call again (40 calls sharing one id, as
    Cursor's batches do: 820 keys; 40 now), and each key walked the input twice."""
    from agentscan.hooks import draft
    from agentscan.hooks.tree import build_trace
    from hooks_builders import CONVERSATION, post, pre, prompt, stop

    calls = [{"command": f"echo {n}", "cwd": "/work/repo"} for n in range(40)]
    replay = Replay(Path(os.environ["AGENTSCAN_DATA_DIR"]))
    replay.send(prompt("go"))
    for command in calls:
        replay.send(pre("Shell", command, "batch"))
    for command in reversed(calls):
        replay.send(post("Shell", command, "batch", output={"output": command["command"]}))
    replay.send(stop())
    keyed: list[object] = []
    digested: list[object] = []
    real_key, real_digested = draft.input_key, draft._digested
    monkeypatch.setattr(draft, "input_key", lambda value: keyed.append(value) or real_key(value))
    monkeypatch.setattr(draft, "_digested", lambda value: digested.append(value) or real_digested(value))
    events, _ = store.read_events(store.StoredSession("cursor", CONVERSATION, store.session_path(
        os.environ["AGENTSCAN_DATA_DIR"], "cursor", CONVERSATION)))
    trace = build_trace("cursor", CONVERSATION, events)
    shells = [node for turn in trace.turns for node in turn.walk() if node.name == "Shell"]
    assert sorted((node.input["command"], node.status) for node in shells) == sorted((c["command"], "ok") for c in calls)
    assert len(keyed) <= len(calls), len(keyed)
    assert digested == []  # (no string in them near the length that is digested)


def test_a_long_string_is_keyed_by_its_digest_whether_or_not_it_was_cut() -> None:
    """(Kept as it was: the key read once is the one read every time.)"""
    from agentscan.hooks import draft

    long = "x" * (draft.TEXT_LIMIT + 1)
    whole = draft.Draft(kind="tool", name="Write", input={"content": long, "file_path": "/a"}, provenance="native",
                        started_ns=0)
    assert whole.whole is not None and whole.input["content"] != long
    key = draft.input_key({"file_path": "/a", "content": long})
    assert whole.input_key() == key and key is not None and f"#{len(long)}:" in key and len(key) < 200
    assert draft.input_key(f'{{"file_path": "/a", "content": "{long}"}}') == key  # (JSON in a string read first)
    shown = draft.Draft(kind="tool", name="Read", input={"file_path": "/a"}, provenance="native", started_ns=0)
    assert shown.input_key() == '{"file_path":"/a"}'
    shown.input = {"file_path": "/b"}  # (a node whose input is set anew is keyed anew)
    assert shown.input_key() == '{"file_path":"/b"}'


# --- Gemini CLI's settings files (``hooks.geminionce``, ``hooks status``) ---------------------

GEMINI_OURS = {"hooks": [{"type": "command", "command": "agentscan hook --agent gemini", "name": "agentscan"}]}


def _settings(path: Path, config: Any) -> Path:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def _gemini_problem(home: Path, project: Path, scope: str = "user") -> str | None:
    from agentscan.hooks.status import hooks_report

    (found,) = [config for config in hooks_report(home=home, cwd=project, env=dict(os.environ))["installed"]
                if config["agent"] == "gemini" and config["scope"] == scope]
    return found["problem"]


def test_hooks_status_reads_and_parses_each_gemini_settings_file_once(isolated_home: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the user's file was read three times and parsed five (its own report, the
    project's report, the check that both scopes run the hook once)."""
    from collections import Counter

    from agentscan.hooks import configjson, geminionce, status
    from agentscan.toolkit import fsutil

    project = tmp_path / "project"
    files = [_settings(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeAgent": [GEMINI_OURS]}}),
             _settings(project / ".gemini" / "settings.json", {"hooks": {"BeforeAgent": [GEMINI_OURS]}}),
             _settings(Path(os.environ["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]), {"hooksConfig": {"enabled": True}}),
             _settings(Path(os.environ["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]).parent / "system-defaults.json", {})]
    read: Counter[str] = Counter()
    parsed: Counter[str] = Counter()
    real_read, real_parse = fsutil.read_regular_text, configjson.parse

    def reading(path: Any, *args: Any, **kwargs: Any) -> str:
        read[str(path)] += 1
        return real_read(path, *args, **kwargs)

    def parsing(path: Any, *args: Any, **kwargs: Any) -> Any:
        parsed[str(path)] += 1
        return real_parse(path, *args, **kwargs)

    monkeypatch.setattr(fsutil, "read_regular_text", reading)
    monkeypatch.setattr(geminionce, "read_regular_text", reading)
    monkeypatch.setattr(configjson, "parse", parsing)
    report = status.hooks_report(home=isolated_home, cwd=project, env=dict(os.environ))
    assert {c["scope"] for c in report["installed"] if c["agent"] == "gemini"} == {"user", "project"}
    assert {str(path): (read[str(path)], parsed[str(path)]) for path in files} == {str(path): (1, 1) for path in files}


@pytest.mark.parametrize(("defaults", "user", "off"), [
    ({"hooksConfig": {"enabled": False}}, {}, True),
    ({"hooksConfig": {"enabled": False}}, {"hooksConfig": {"enabled": True}}, False),  # the user's over the defaults
    ({"hooksConfig": {"disabled": ["agentscan"]}}, {}, True),  # joined
    ({"hooks": {"enabled": False}}, {}, True),  # the older key
    ({}, {}, False),
])
@pytest.mark.parametrize("named", [True, False], ids=["GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "beside the system settings"])
def test_the_system_defaults_come_first(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        defaults: Any, user: Any, off: bool, named: bool) -> None:
    """Failed before: Gemini CLI's system defaults (an administrator's, under every other file)
    were not read, so a hook they turned off was said to capture."""
    _settings(isolated_home / ".gemini" / "settings.json", {**user, "hooks": {**user.get("hooks", {}),
                                                                              "BeforeAgent": [GEMINI_OURS]}})
    system = tmp_path / "etc" / "gemini-cli" / "settings.json"
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system))
    where = tmp_path / "admin" / "defaults.json" if named else system.parent / "system-defaults.json"
    if named:
        monkeypatch.setenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", str(where))
        _settings(system.parent / "system-defaults.json", {"hooksConfig": {"enabled": False}})  # (not this one)
    _settings(where, defaults)
    problem = _gemini_problem(isolated_home, tmp_path / "project")
    if off:
        assert problem is not None and f"in {where}" in problem and "so nothing is captured;" in problem, problem
    else:
        assert problem is None, problem


def test_the_system_defaults_path_is_the_variables_else_beside_the_system_settings() -> None:
    from agentscan.hooks.geminionce import system_defaults_path

    assert system_defaults_path({"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "/x/d.json"}) == Path("/x/d.json")
    assert system_defaults_path({"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "/x/s.json"}) == Path("/x/system-defaults.json")
    assert system_defaults_path({"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": ""}) == Path("/etc/gemini-cli/system-defaults.json")


def test_a_fifo_or_a_folder_in_the_system_defaults_place_is_passed_over(isolated_home: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from builders import invoke

    _settings(isolated_home / ".gemini" / "settings.json", {"hooks": {"BeforeAgent": [GEMINI_OURS]}})
    fifo = tmp_path / "defaults.fifo"
    os.mkfifo(fifo)
    for place in (fifo, tmp_path):
        monkeypatch.setenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", str(place))
        done: list[Any] = []
        runner = threading.Thread(target=lambda done=done: done.append(invoke("hooks", "status", "--json")),
                                  daemon=True)
        runner.start()
        runner.join(20)
        if runner.is_alive():  # (let the open go, so the thread ends, before failing)
            with open(fifo, "wb"):
                pass
        assert done and done[0].exit_code == 0 and "Traceback" not in done[0].stderr, done
