"""Pass 58's hook changes mended: the hint search's cost on a store no payload stamps and its
memory on one every line stamps, Gemini CLI settings files with comments in ``hooks status``,
and a draft's remembered key let go with its input."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from agentscan.hooks import tailread
from test_hooks_unlisted_tail_pass56 import BASE, SECOND, _iso, _line, _session, _tree_says


class _Searches:
    """A pattern that records each search made with it (``_suspects``' expression)."""

    def __init__(self, pattern: Any, searched: list[object]) -> None:
        self.pattern, self.searched = pattern, searched

    def finditer(self, *args: Any) -> Any:
        self.searched.append(args[1:])
        return self.pattern.finditer(*args)


@pytest.mark.parametrize("escaped", [False, True], ids=["no stamp", "only an escaped key"])
def test_a_store_no_payload_stamps_is_searched_by_no_expression(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 escaped: bool) -> None:
    """Failed before: every store, stamped or not, was searched twice in full by regular
    expressions (the key's, then an escaped letter's: 2.2-2.5x the hint's cost on a Claude or
    Cursor store).  A key written with an escape (``"time\\u0073tamp"``), which ``agentscan hook``
    never writes, is no longer looked for (docs/cli-hooks.md): the hint names the latest line's."""
    searched: list[object] = []
    real = tailread._suspects
    monkeypatch.setattr(tailread, "_suspects", lambda order: _Searches(real(order), searched))
    monkeypatch.setattr(tailread, "_ESCAPED_LETTER", _Searches(None, searched), raising=False)  # (the pass before)
    stamped = _line(BASE, "AfterTool", transcript_path="/t/escaped.jsonl", timestamp=_iso(BASE + 5000 * SECOND))
    first = stamped.replace(b'"timestamp":"', b'"time\\u0073tamp":"', 1) if escaped else \
        _line(BASE, "AfterTool", transcript_path="/t/first.jsonl")
    lines = [first, *(_line(BASE + n * SECOND, "AfterTool", transcript_path=f"/t/{n}.jsonl") for n in range(1, 200))]
    assert b'"timestamp"' not in b"".join(lines) and (b"\\u0073" in first) is escaped
    session = _session(tmp_path, lines)
    assert tailread.latest_transcript_path(session) == "/t/199.jsonl"
    assert searched == []
    if escaped:
        assert _tree_says(session) == "/t/escaped.jsonl"  # (what is given up, as documented)


def _stamped_store(tmp_path: Path, count: int) -> Any:
    """``count`` lines, each holding a nested payload time in the second of the last line's
    capture (none passed over in C: each is read in Python), no top-level one; each its own
    output (the tree takes a payload equal to one just before for a double delivery)."""
    last = BASE + (count - 1) * SECOND // 100
    lines = [_line(BASE + n * SECOND // 100, "PostToolUse", transcript_path=f"/t/{n % 7}.jsonl",
                   tool_response={"timestamp": _iso(last), "output": f"{n} " + "x" * 100}) for n in range(count)]
    return _session(tmp_path, lines)


def test_the_lines_left_are_walked_a_piece_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: the place of every line left (here every line: 12,000) was listed before
    the first was read, and the file mapped whole (a 389 MB store: 496 MB peak,
    21 MB now)."""
    import tracemalloc

    from agentscan.hooks import tree  # noqa: F401  (imported before the count)
    from agentscan.timeutil import parse_iso  # noqa: F401

    monkeypatch.setattr(tailread, "PIECE", 16 * 1024, raising=False)
    session = _stamped_store(tmp_path, 12_000)
    assert os.path.getsize(session.path) > 2_500_000
    expected = tailread.latest_transcript_path(session)
    tracemalloc.start()
    try:
        assert tailread.latest_transcript_path(session) == expected
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert expected == f"/t/{11_999 % 7}.jsonl"  # (the last line's: no payload time is its own)
    assert peak < 1_000_000, peak  # (0.4 MB: the tail read back, a piece; 1.7 MB before)


@pytest.mark.parametrize("piece", [64, 700, 1 << 20])
def test_pieces_cut_anywhere_choose_as_the_tree_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int) -> None:
    """Pieces shorter than a line (read again, longer), ties across pieces: the line chosen is
    the tree's in 150 random sessions stamped near the best."""
    monkeypatch.setattr(tailread, "PIECE", piece, raising=False)
    disagree = []
    for trial in range(150):
        rng = random.Random(trial)
        lines, at = [], BASE + rng.randrange(SECOND)
        for n in range(rng.randint(2, 25)):
            at += rng.choice((0, 1, 40)) * SECOND + rng.randrange(SECOND // 2)
            stamp = at + rng.choice((-40, -1, 0, 0, 1, 3600 * 5)) * SECOND
            fields: dict[str, object] = {"transcript_path": f"/t/{n}.jsonl"} if rng.random() < 0.7 else {}
            if rng.random() < 0.8:
                fields["timestamp"] = _iso(stamp if rng.random() < 0.7 else at)
            if rng.random() < 0.3:
                fields["tool_response"] = {"timestamp": _iso(stamp), "output": "y" * rng.randrange(400)}
            lines.append(_line(at, "AfterTool", **fields))
        session = _session(tmp_path / str(trial), lines)
        if tailread.latest_transcript_path(session) != _tree_says(session):
            disagree.append(trial)
    assert disagree == []


# --- Gemini CLI's settings files with comments (``hooks status``) ------------------------------

GEMINI_OURS = {"hooks": [{"type": "command", "command": "agentscan hook --agent gemini", "name": "agentscan"}]}


def _gemini_report(home: Path, project: Path, scope: str = "user") -> dict[str, Any]:
    from agentscan.hooks.status import hooks_report

    (found,) = [config for config in hooks_report(home=home, cwd=project, env=dict(os.environ))["configs"]
                if config["agent"] == "gemini" and config["scope"] == scope]
    return found


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("layer", ["system-defaults", "system", "project"])
def test_a_settings_file_with_comments_is_read_as_gemini_cli_reads_it(isolated_home: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       layer: str) -> None:
    """Failed before: a file with comments, which Gemini CLI reads (``stripJsonComments``), was
    left out without a word, so a hook it turned off was said to capture."""
    import json

    _write(isolated_home / ".gemini" / "settings.json", json.dumps({"hooks": {"BeforeAgent": [GEMINI_OURS]}}))
    system = tmp_path / "etc" / "gemini-cli" / "settings.json"
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system))
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    project = tmp_path / "project"
    where = {"system-defaults": system.parent / "system-defaults.json", "system": system,
             "project": project / ".gemini" / "settings.json"}[layer]
    _write(where, '// set by IT\n{"hooksConfig": {"enabled": false}}\n')
    report = _gemini_report(isolated_home, project)
    assert report["problem"] is not None and f"in {where}" in report["problem"], report
    assert '"hooksConfig.enabled": false' in report["problem"] and report["note"] is None


def test_a_settings_file_gemini_cli_cannot_read_is_said_not_judged(isolated_home: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: left out without a word (a trailing comma: no JSON, comments blanked or not)."""
    import json

    _write(isolated_home / ".gemini" / "settings.json", json.dumps({"hooks": {"BeforeAgent": [GEMINI_OURS]}}))
    system = tmp_path / "etc" / "gemini-cli" / "settings.json"
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system))
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    defaults = _write(system.parent / "system-defaults.json", '// set by IT\n{"hooksConfig": {"enabled": false},}\n')
    report = _gemini_report(isolated_home, tmp_path / "project")
    assert report["problem"] is None, report
    assert report["note"] is not None and report["note"].startswith(f"{defaults} is not valid JSON"), report
    assert "could not be judged" in report["note"], report


def test_a_key_twice_in_another_file_is_read_as_json_parse_keeps_it(isolated_home: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An install refuses a key twice (it would lose one); Gemini CLI reads the last."""
    import json

    _write(isolated_home / ".gemini" / "settings.json", json.dumps({"hooks": {"BeforeAgent": [GEMINI_OURS]}}))
    system = _write(tmp_path / "etc" / "settings.json",
                    '{"hooksConfig": {"enabled": true}, "hooksConfig": {"enabled": false}}')
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system))
    report = _gemini_report(isolated_home, tmp_path / "project")
    assert report["problem"] is not None and f"in {system}" in report["problem"], report


# --- a draft's key (``hooks.draft``) -----------------------------------------------------------


def test_an_input_set_anew_lets_the_key_of_the_one_before_go() -> None:
    """Failed before: an early orphan's input (megabytes, keyed once when a completion asked)
    stayed held by its remembered key after the request's input was adopted."""
    from agentscan.hooks.draft import Draft

    big = {"items": ["y" * 60_000 for _ in range(50)]}  # (no string long enough to be cut)
    draft = Draft(kind="tool", name="Write", input=big, provenance="orphan", started_ns=0)
    assert draft.whole is None and draft.input is big
    held = sys.getrefcount(big)
    key = draft.input_key()
    assert sys.getrefcount(big) == held + 1  # (remembered with its key)
    draft.set_input({"file_path": "/a"})
    assert sys.getrefcount(big) == held - 1, "the input before is still held"
    assert draft.input_key() == '{"file_path":"/a"}' != key
