"""``tokens --json`` patched from the last whole answer by the sessions that changed (``scan.answerpatch``).

Every test compares the patched answer with a report computed afresh
(``--no-cache``), byte for byte, and checks which way it was made.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.scan import answerpatch
from builders import claude_session_file, claude_subagent_file
from codex_builders import DEMO_PARENT, at, token_count, usage, write_demo
import gemini_builders as gemini
from spies import record_results
from patch_builders import (ACTIONS, BASE, IDS, Changes, append, null_session, rewrite_basis, session, sessions,
                            sidechain_call, turn)

runner = CliRunner()
@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each run's answer was made: ``patched``, or ``whole`` (a basis that could not patch)."""
    return record_results(monkeypatch, answerpatch, "patched", lambda answer: "whole" if answer is None else "patched")


def tokens(*args: str) -> bytes:
    result = runner.invoke(app, ["tokens", "--json", *args])
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


def fresh() -> bytes:
    return tokens("--no-cache")


def assert_patched_as_fresh(ways: list[str], expected: str = "patched") -> bytes:
    answer = tokens()
    assert ways[-1] == expected
    assert answer == fresh()
    again = tokens()  # remembered now: the same bytes again
    assert again == answer
    return answer


def test_a_grown_session_is_patched_in_and_moves_to_the_top(isolated_home: Path, ways: list[str]) -> None:
    first = sessions(isolated_home, 4)[0]
    tokens()
    assert ways == ["whole"]  # no basis yet
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    answer = assert_patched_as_fresh(ways)
    rows = orjson.loads(answer)["rows"]
    assert rows[0]["key"] == f"claude:{IDS[0]}"
    assert rows[0]["tokens"]["input"] == 107
    assert orjson.loads(answer)["total"]["input"] == 107 + 200 + 300 + 400


def test_new_and_gone_sessions_are_patched(isolated_home: Path, ways: list[str]) -> None:
    for index, native_id in enumerate(IDS[:4]):
        session(isolated_home, native_id, index, 100 + index)
    tokens()
    session(isolated_home, IDS[4], 30, 5000)
    assert_patched_as_fresh(ways)
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{IDS[1]}.jsonl").unlink()
    answer = assert_patched_as_fresh(ways)
    assert [row["key"] for row in orjson.loads(answer)["rows"]] == [f"claude:{IDS[i]}" for i in (4, 3, 2, 0)]


def test_changes_accumulate_from_the_last_whole_answer(isolated_home: Path, ways: list[str]) -> None:
    paths = [session(isolated_home, native_id, index, 10 * (index + 1)) for index, native_id in enumerate(IDS[:5])]
    tokens()
    append(paths[0], turn(IDS[0], 3, 1), BASE + 7200)
    assert_patched_as_fresh(ways)
    append(paths[2], turn(IDS[2], 3, 2), BASE + 7300)
    assert_patched_as_fresh(ways)  # both sessions differ from the basis now
    append(paths[2], turn(IDS[2], 4, 4), BASE + 7400)
    assert_patched_as_fresh(ways)


def test_calls_shared_by_a_change_are_merged_by_a_whole_report(isolated_home: Path, ways: list[str]) -> None:
    session(isolated_home, IDS[0], 1, 100)
    copier = session(isolated_home, IDS[1], 2, 200)
    session(isolated_home, IDS[2], 3, 300)
    tokens()
    # A resumed session copies a call of another: counted once, which only a whole report merges.
    append(copier, turn(IDS[1], 0, 100, copied_from=IDS[0])[1:], BASE + 3600)
    with open(copier, "rb") as handle:
        assert f"m-{IDS[0]}-0".encode() in handle.read()
    assert_patched_as_fresh(ways, "whole")
    # A session that shares calls is not patched afterwards either.
    append(copier, turn(IDS[1], 10, 5), BASE + 3700)
    assert_patched_as_fresh(ways, "whole")


def test_a_change_with_a_warning_is_reported_whole(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()
    append(first, [b'{"type": "assistant", "message": {"usage": {"input_tokens": oops}}}'], BASE + 3600)
    answer = assert_patched_as_fresh(ways, "whole")
    assert orjson.loads(answer)["warnings"]


def test_an_unpriced_model_is_reported_whole(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()
    append(first, turn(IDS[0], 4, 50, model="no-such-model-anywhere"), BASE + 3600)
    answer = assert_patched_as_fresh(ways, "whole")
    assert orjson.loads(answer)["unpriced_models"] == ["no-such-model-anywhere"]


def test_too_many_changes_make_a_whole_report(isolated_home: Path, ways: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answerpatch, "MAX_CHANGED", 2)
    paths = [session(isolated_home, native_id, index, 10) for index, native_id in enumerate(IDS[:4])]
    tokens()
    for index, path in enumerate(paths[:3]):
        append(path, turn(IDS[index], 2, 1), BASE + 3600 + index)
    assert_patched_as_fresh(ways, "whole")
    append(paths[3], turn(IDS[3], 2, 1), BASE + 4000)
    assert_patched_as_fresh(ways)  # the whole report kept a new basis


def test_a_damaged_basis_is_not_used(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()
    database = next((Path(os.environ["AGENTSCAN_CACHE_DIR"])).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE snapshots SET value = substr(value, 1, 200) || x'00' || substr(value, 202) "
                           "WHERE key LIKE 'basis:%'")
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    assert_patched_as_fresh(ways, "whole")


def test_other_providers_rows_and_key_sets(isolated_home: Path, ways: list[str]) -> None:
    rollouts = write_demo(isolated_home)  # Codex sessions, a delegated run among them
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()
    providers = {row["key"].partition(":")[0] for row in orjson.loads(fresh())["rows"]}
    assert providers == {"claude", "codex"}
    append(first, turn(IDS[0], 5, 7), 2_000_000_000)
    before = orjson.loads(assert_patched_as_fresh(ways))["total"]
    # A Codex rollout that grew: one more call.
    append(rollouts[0], [token_count(at(4000), usage(900_000, 1000, 5000), usage(1000, 0, 10))], 2_000_000_100)
    after = orjson.loads(assert_patched_as_fresh(ways))["total"]
    assert after["output"] > before["output"]


def test_other_questions_are_not_patched(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    # Another grouping, another selection of providers, a window: none is this basis's question.
    for args in (["--by", "day"], ["--provider", "claude"], ["--since", "2026-10-01"]):
        before = len(ways)
        assert tokens(*args) == tokens("--no-cache", *args)
        assert "patched" not in ways[before:]


def test_a_subagent_transcript_that_grows_or_comes_is_patched_into_its_parent(isolated_home: Path, ways: list[str]) -> None:
    session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    agent = claude_subagent_file(isolated_home, IDS[1], "a1", [sidechain_call(IDS[1], "a1", 0, 40)])
    os.utime(agent, (BASE + 300, BASE + 300))
    tokens()
    # The parent's own transcript is untouched: only its subagent's grows, then a second one comes.
    append(agent, [sidechain_call(IDS[1], "a1", 1, 60)], BASE + 3600)
    rows = {row["key"]: row for row in orjson.loads(assert_patched_as_fresh(ways))["rows"]}
    assert rows[f"claude:{IDS[1]}"]["subagents"][0]["tokens"]["input"] == 100
    second = claude_subagent_file(isolated_home, IDS[1], "a2", [sidechain_call(IDS[1], "a2", 2, 7)])
    os.utime(second, (BASE + 3700, BASE + 3700))
    rows = {row["key"]: row for row in orjson.loads(assert_patched_as_fresh(ways))["rows"]}
    assert [sub["id"] for sub in rows[f"claude:{IDS[1]}"]["subagents"]] == ["a1", "a2"]


def test_a_codex_child_thread_that_grows_is_patched_into_its_parents_row(isolated_home: Path, ways: list[str]) -> None:
    rollouts = write_demo(isolated_home)  # the third is a child thread, rolled up into its parent's row
    session(isolated_home, IDS[0], 1, 100)
    tokens()
    parent = f"codex:{DEMO_PARENT}"
    before = next(row for row in orjson.loads(fresh())["rows"] if row["key"] == parent)
    append(rollouts[2], [token_count(at(4000), usage(900_000, 1000, 5000), usage(1000, 0, 10))], 2_000_000_100)
    after = next(row for row in orjson.loads(assert_patched_as_fresh(ways))["rows"] if row["key"] == parent)
    assert after["own"] == before["own"]
    assert after["subagents"][0]["tokens"]["input"] == before["subagents"][0]["tokens"]["input"] + 1000


def test_a_grown_gemini_chat_is_patched(isolated_home: Path, ways: list[str]) -> None:
    chats = [
        gemini.write_chat(isolated_home, "proj", f"session-2026-05-01T1{n}-00-{n}1111111.jsonl",
                          [gemini.meta(f"{n}1111111-2222-4333-8444-555555555555"),
                           gemini.gemini("g1", "2026-05-01T10:00:02.000Z", "ok", usage=gemini.tokens(100 * n, 10))],
                          mtime=BASE + n)
        for n in (1, 2)
    ]
    session(isolated_home, IDS[0], 1, 100)
    tokens()
    append(chats[0], [gemini.gemini("g2", "2026-05-01T10:00:03.000Z", "ok", usage=gemini.tokens(300, 10))], BASE + 5000)
    assert orjson.loads(assert_patched_as_fresh(ways))["rows"][0]["tokens"]["input"] == 400


def test_rows_of_nothing_come_fill_and_empty(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    second = session(isolated_home, IDS[1], 2, 200)
    empty = null_session(isolated_home, IDS[2], BASE + 180)
    tokens()
    null_session(isolated_home, IDS[3], BASE + 600)  # a new row of nothing
    assert orjson.loads(assert_patched_as_fresh(ways))["rows"][0]["tokens"] is None
    append(empty, turn(IDS[2], 3, 9), BASE + 700)  # a row of nothing gets a priced call
    assert_patched_as_fresh(ways)
    null_session(isolated_home, IDS[0], BASE + 800)  # a priced row rewritten to nothing
    assert_patched_as_fresh(ways)
    # Nothing priced or recorded left: the total is null, which only the whole report tells.
    for path in (second, isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{IDS[2]}.jsonl"):
        path.unlink()
    answer = orjson.loads(assert_patched_as_fresh(ways, "whole"))
    assert answer["total"] is None and answer["cost_usd"] is None
    first.unlink()
    for path in first.parent.iterdir():
        path.unlink()
    assert orjson.loads(tokens())["rows"] == orjson.loads(fresh())["rows"] == []


def test_a_discovery_warning_in_the_run_of_a_patch_makes_it_whole(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    os.mkfifo(first.parent / f"{IDS[5]}.jsonl")  # discovery skips it with a warning
    answer = orjson.loads(assert_patched_as_fresh(ways, "whole"))
    assert [warning["message"] for warning in answer["warnings"]] == ["not a regular file (a FIFO); skipped"]


def test_calls_shared_with_a_session_since_removed(isolated_home: Path, ways: list[str]) -> None:
    session(isolated_home, IDS[0], 1, 100)
    copier = session(isolated_home, IDS[1], 2, 200)
    append(copier, turn(IDS[1], 0, 100, copied_from=IDS[0])[1:], BASE + 200)
    original = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{IDS[0]}.jsonl"
    session(isolated_home, IDS[2], 3, 300)
    tokens()
    original.unlink()  # the copier's call is its alone now: only the whole report counts it back in
    answer = orjson.loads(assert_patched_as_fresh(ways, "whole"))
    assert answer["total"]["input"] == 200 + 100 + 300
    # A session removed since the last whole answer, and a new one with a copy of its call:
    # the kept key hashes still hold the gone session's, so this is made whole too.
    (isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{IDS[2]}.jsonl").unlink()
    assert_patched_as_fresh(ways)
    claude_session_file(isolated_home, IDS[3], turn(IDS[3], 0, 300, copied_from=IDS[2])[1:], mtime=BASE + 5000)
    answer = orjson.loads(assert_patched_as_fresh(ways, "whole"))
    assert answer["total"]["input"] == 200 + 100 + 300


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["grow", "add", "remove", "share", "nothing"]),
                                st.integers(0, len(IDS) - 1), st.integers(1, 900)), min_size=1, max_size=6))
def test_any_sequence_of_changes_prints_what_a_fresh_report_does(
        isolated_home: Path, ways: list[str], steps: list[tuple[str, int, int]]) -> None:
    project = isolated_home / ".claude" / "projects" / "-home-dev-project"
    if project.exists():
        for path in project.iterdir():
            path.unlink()
    for path in Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*"):
        path.unlink()
    for index, native_id in enumerate(IDS[:3]):
        session(isolated_home, native_id, index, 100 * (index + 1))
    tokens()
    clock = BASE + 10_000
    for number, (action, which, amount) in enumerate(steps):
        clock += 60
        path = project / f"{IDS[which]}.jsonl"
        if action == "grow" and path.exists():
            append(path, turn(IDS[which], 10 + number, amount), clock)
        elif action == "add" and not path.exists():
            session(isolated_home, IDS[which], clock - BASE, amount)
        elif action == "remove" and path.exists():
            path.unlink()
        elif action == "share" and path.exists():
            other = IDS[(which + 1) % len(IDS)]
            append(path, turn(IDS[which], 0, 100 * (which + 1), copied_from=other)[1:], clock)
        assert tokens() == fresh()


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 5), st.integers(1, 900)), min_size=1, max_size=6),
       providers=st.sampled_from([(), ("claude",), ("claude", "codex", "gemini")]))
def test_any_sequence_of_changes_of_several_providers_prints_what_a_fresh_report_does(
        isolated_home: Path, ways: list[str], steps: list[tuple[str, int, int]], providers: tuple[str, ...]) -> None:
    for path in Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*"):
        path.unlink()
    options = [option for name in providers for option in ("--provider", name)]
    home = Changes(isolated_home)
    assert tokens(*options) == tokens("--no-cache", *options)
    for action, which, amount in steps:
        home.apply(action, which, amount)
        assert tokens(*options) == tokens("--no-cache", *options), (action, ways)


@pytest.mark.parametrize("damage", [
    {"total": "lots"}, {"cost": 1.5}, {"cost": "NaN?"}, {"sections": []}, {"sharing": None}, {"format": 99},
    {"recorded": "two"}, {"sections": {"ids": [0, 10 ** 9]}},
    # Found only when the answer is laid out, after the rows that changed were made.
    {"sections": lambda sections: {**sections, "answer": [0, 10 ** 9]}},
])
def test_a_basis_sealed_whole_but_of_another_shape_is_not_used(isolated_home: Path, ways: list[str],
                                                               damage: dict) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()

    def edit(header: dict, body: bytes) -> tuple[dict, bytes]:
        return {**header, **{name: change(header[name]) if callable(change) else change
                             for name, change in damage.items()}}, body

    rewrite_basis("basis:tokens:session", edit)
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    assert_patched_as_fresh(ways, "whole")


def test_a_bug_while_patching_is_not_taken_for_a_damaged_basis(isolated_home: Path, ways: list[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.scan import tokens as tokens_module

    first = session(isolated_home, IDS[0], 1, 100)
    session(isolated_home, IDS[1], 2, 200)
    tokens()
    append(first, turn(IDS[0], 5, 7), BASE + 3600)

    def broken(scanner: object, refs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(tokens_module, "session_rows", broken)
    result = runner.invoke(app, ["tokens", "--json"])
    assert isinstance(result.exception, KeyError)


def test_a_patch_leaves_the_whole_reports_shared_calls_remembered(isolated_home: Path, ways: list[str]) -> None:
    first = session(isolated_home, IDS[0], 1, 100)
    for index, native_id in enumerate(IDS[1:3], start=2):
        session(isolated_home, native_id, index, 100)
    tokens()
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))

    def remembered() -> list:
        with sqlite3.connect(database) as connection:
            return connection.execute("SELECT * FROM meta WHERE key = 'shared:claude'").fetchall()

    before = remembered()
    assert before
    append(first, turn(IDS[0], 5, 7), BASE + 3600)
    second = isolated_home / ".claude" / "projects" / "-home-dev-project" / f"{IDS[1]}.jsonl"
    append(second, turn(IDS[1], 5, 9), BASE + 3700)
    assert_patched_as_fresh(ways)
    assert remembered() == before  # the changed sessions' own check is not kept in its place


def test_an_id_of_several_lines_keeps_no_basis(isolated_home: Path, ways: list[str]) -> None:
    """The basis keeps ids a line each: a session id with a newline (Gemini takes anything) keeps none."""
    chat = gemini.write_chat(isolated_home, "proj", "session-2026-05-01T10-00-abcdef12.jsonl",
                             [gemini.meta("two\nlines"),
                              gemini.gemini("g1", "2026-05-01T10:00:02.000Z", "ok", usage=gemini.tokens(100, 10))],
                             mtime=BASE)
    session(isolated_home, IDS[0], 1, 100)
    answer = tokens()
    assert any("\\n" in row["key"] or "\n" in row["key"] for row in orjson.loads(answer)["rows"])
    database = next(Path(os.environ["AGENTSCAN_CACHE_DIR"]).glob("*.sqlite"))
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT count(*) FROM snapshots WHERE key LIKE 'basis:%'").fetchone() == (0,)
    append(chat, [gemini.gemini("g2", "2026-05-01T10:00:03.000Z", "ok", usage=gemini.tokens(300, 10))], BASE + 5000)
    assert_patched_as_fresh(ways, "whole")
