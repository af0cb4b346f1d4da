"""``list --grep`` and ``list --cwd`` leave out, unread, the sessions whose facts fail them
(``scan/factfilter.py``): what they print is what reading every row prints.

Claude's facts name every model its files name (``TableFacts.models``), of which the row's
model is one; a session none of whose facts holds the word cannot match it.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.providers.claude.provider import ClaudeProvider
from agentscan.scan import factfilter
from agentscan.scan.scanner import Scanner
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, user_message, write_rollout
from conftest_hypothesis import FUZZ
from spies import record_calls, record_results

SESSION = "5e55104a-3333-4000-8000-000000000000"
runner = CliRunner()


def _ts(minute: int) -> str:
    return f"2026-11-02T10:{minute:02d}:00.000Z"


def _call(minute: int, model: str = "claude-sonnet-4-5-20250929", **extra) -> dict:
    return claude_assistant(SESSION, _ts(minute), msg_id=f"m{minute}", request_id=f"r{minute}",
                            usage=claude_usage(10, 5), model=model, **extra)


# -- the models a session's files name ------------------------------------------------

_LINES = st.one_of(
    st.builds(lambda m, text: orjson.dumps(claude_user(SESSION, _ts(m), text)), st.integers(0, 59),
              st.sampled_from(["fix the build", "/model", ""])),
    st.builds(lambda m, model: orjson.dumps(_call(m, model)), st.integers(0, 59),
              st.sampled_from(["claude-opus-4-1", "claude-haiku-4-5", "<synthetic>", ""])),
    # A model spelled with an escape: its bytes are not its name.
    st.builds(lambda m: orjson.dumps(_call(m, "opus-x")).replace(b'"opus-x"', b'"opus\\u002dx"'), st.integers(0, 59)),
    # A model only a nested record names, and a model that is no string.
    st.builds(lambda m: orjson.dumps(claude_user(SESSION, _ts(m), "x", toolUseResult={"model": "nested-model"})),
              st.integers(0, 59)),
    st.builds(lambda m: orjson.dumps({**_call(m), "message": {**_call(m)["message"], "model": None}}),
              st.integers(0, 59)),
    st.sampled_from([b"{oops", b"", b'{"model":"in a bad line", broken']),
)


@FUZZ
@given(lines=st.lists(_LINES, max_size=10), sub=st.lists(_LINES, max_size=4))
def test_the_row_model_is_among_the_models_found(tmp_path_factory: pytest.TempPathFactory, lines, sub) -> None:
    home = tmp_path_factory.mktemp("home")
    claude_session_file(home, SESSION, []).write_bytes(b"\n".join(lines) + b"\n")
    if sub:
        claude_subagent_file(home, SESSION, "a1", []).write_bytes(b"\n".join(sub) + b"\n")
    with Scanner(home=home, env={}, use_cache=False) as scanner:
        provider = scanner.provider("claude")
        (ref,) = provider.discover(scanner.ctx)
        row = provider.row(ref, scanner.ctx)
        found = ClaudeProvider().table_facts(ref, scanner.ctx, models=True)
        plain = ClaudeProvider().table_facts(ref, scanner.ctx)
    if found is None:
        assert plain is None or b"\\u002d" in b"".join(lines + sub)  # only an escaped name refuses more
        return
    assert found[:3] == plain[:3] and plain.models is None
    assert row.model is None or row.model in found.models


def test_a_model_of_a_subagent_file_is_named(isolated_home: Path) -> None:
    claude_session_file(isolated_home, SESSION, [claude_user(SESSION, _ts(1), "delegate it")])
    claude_subagent_file(isolated_home, SESSION, "a1", [_call(2, "claude-haiku-4-5")])
    with Scanner(home=isolated_home, env={}, use_cache=False) as scanner:
        (ref,) = scanner.provider("claude").discover(scanner.ctx)
        found = ClaudeProvider().table_facts(ref, scanner.ctx, models=True)
    assert found is not None and found.models == ("claude-haiku-4-5",)


# -- list, with and without the facts ------------------------------------------------


def _session_id(number: int) -> str:
    return f"{number:08x}-4444-4000-8000-000000000000"


def _home(home: Path, sessions: int = 90) -> None:
    """Claude sessions whose title, cwd, model or path alone holds a word, and a few Codex
    sessions (facts without models: read as rows for ``--grep``)."""
    for number in range(sessions):
        native = _session_id(number)
        day = f"2026-11-{1 + number % 20:02d}"
        cwd = f"/src/app{number % 4}" if number % 9 else "/src/quokka-service"
        prompt = "tidy the quokka cage" if number % 17 == 3 else f"task {number}"
        model = "claude-quokka-1" if number % 13 == 5 else "claude-sonnet-4-5-20250929"
        records = [claude_user(native, f"{day}T09:00:00.000Z", prompt, cwd=cwd)]
        if number % 26 != 5:  # else its model is its subagent's (below): the main transcript names none
            records.append(claude_assistant(native, f"{day}T09:01:00.000Z", msg_id=f"m{number}",
                                            request_id=f"r{number}", usage=claude_usage(100 + number, 7), cwd=cwd,
                                            model=model))
        project = "-src-quokka-notes" if number % 31 == 7 else "-home-dev-project"
        claude_session_file(home, native, records, project=project)
        if number % 26 == 5:  # the word only in a subagent's model
            claude_subagent_file(home, native, "a1", [claude_assistant(
                native, f"{day}T09:02:00.000Z", msg_id=f"s{number}", request_id=f"q{number}",
                usage=claude_usage(3, 1), model="claude-quokka-1", sidechain=True)], project=project)
    for number in range(4):
        thread = f"019a0000-0000-7000-8000-00000000000{number}"
        cwd = "/src/quokka-service" if number == 1 else "/src/app1"
        start = at(3600 * number)
        write_rollout(rollout_path(home / ".codex", thread, start), [
            meta(thread, start, cwd=cwd), turn_context(start, cwd=cwd),
            user_message(start, "quokka" if number == 2 else "codex task"),
            token_count(start, usage(100, output=10), usage(100, output=10))])


pytestmark = pytest.mark.usefixtures("facts_for_a_few")


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("args", [
    ("--grep", "quokka"), ("--grep", "QUOKKA", "--all"), ("--grep", "no such word"), ("--grep", "haiku"),
    ("--cwd", "/src/quokka-service"), ("--cwd", "/src/app2", "--grep", "task 1"), ("--cwd", "/nowhere"),
    ("--grep", "quokka", "--since", "2026-11-15"), ("--grep", "quokka", "--limit", "3"),
])
@pytest.mark.parametrize("json_out", [True, False])
def test_list_prints_what_every_row_read_prints(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                args: tuple[str, ...], json_out: bool) -> None:
    _home(isolated_home)
    argv = ["list", *args, *(["--json"] if json_out else [])]
    ruled = record_results(monkeypatch, factfilter, "ruled_out", lambda found: found.out if found else {})
    cold = _run(*argv)
    warm = _run(*argv)  # facts kept, rows of the sessions ruled out still unread
    assert any(ruled), "the facts left out no session: the test tests nothing"
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 10**9)
    unfiltered = _run("--no-cache", *argv)
    assert cold == warm == unfiltered
    if json_out:
        assert cold[0] == 0 and json.loads(cold[1])["sessions"] is not None


def test_grep_finds_a_word_in_a_title_a_cwd_a_model_and_a_path(isolated_home: Path) -> None:
    _home(isolated_home)
    code, out, _ = _run("list", "--grep", "quokka", "--all", "--json")
    rows = json.loads(out)["sessions"]
    found = {row["id"] for row in rows}
    expected = {f"claude:{_session_id(n)}" for n in range(90)
                if n % 9 == 0 or n % 17 == 3 or n % 13 == 5 or n % 31 == 7}
    assert code == 0 and expected <= found
    assert "codex:019a0000-0000-7000-8000-000000000001" in found  # a Codex cwd, from its row


def test_facts_kept_for_the_table_are_found_again_with_models(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tokens``' table keeps facts without models; ``--grep`` needs them: found again."""
    _home(isolated_home)
    assert _run("tokens")[0] == 0
    code, out, _ = _run("list", "--grep", "quokka-1", "--all", "--json")
    ids = {row["id"] for row in json.loads(out)["sessions"]}
    assert ids == {f"claude:{_session_id(n)}" for n in range(90) if n % 13 == 5}


def test_a_bad_kept_document_is_a_miss() -> None:
    from agentscan.scan.tablefacts import _decode

    assert _decode(["2026-11-02T10:00:00+00:00", "/src", "t", ["m"]])[0].models == ("m",)
    assert _decode(["2026-11-02T10:00:00+00:00", "/src", "t"])[0].models is None
    assert _decode(["2026-11-02T10:00:00+00:00", "/src", "t", "m"]) is None
    assert _decode(["2026-11-02T10:00:00+00:00", "/src", "t", [1]]) is None


def test_rows_in_the_index_are_not_searched_by_facts(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    assert _run("list", "--all")[0] == 0  # every row kept
    ruled = record_results(monkeypatch, factfilter, "ruled_out", lambda found: found.out if found else {})
    assert _run("list", "--grep", "quokka")[0] == 0
    assert ruled and not any(ruled)


def test_a_grep_read_stays_quiet_about_sessions_it_rules_out(isolated_home: Path) -> None:
    """A bad line in a session the facts rule out is not this list's (as for a row ruled out)."""
    _home(isolated_home)
    path = next((isolated_home / ".claude" / "projects" / "-home-dev-project").glob(f"{_session_id(1)}.jsonl"))
    with path.open("ab") as handle:
        handle.write(b"{broken\n")
    code, _, err = _run("list", "--grep", "quokka")
    assert code == 0 and "broken" not in err and "skipped" not in err


@pytest.mark.parametrize("args", [("--cwd", "/wanted"), ("--cwd", "/wanted", "--all")])
def test_a_field_the_facts_do_not_know_is_left_to_the_row(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          args: tuple[str, ...]) -> None:
    """A session whose facts have no cwd fails ``--cwd`` on its row, which then says every
    warning its read gave: the line it skipped may have held it (a date alike, for ``--since``)."""
    for number in range(70):
        native = _session_id(number)
        day = f"2026-11-{1 + number % 20:02d}"
        records = [claude_user(native, f"{day}T09:00:00.000Z", f"task {number}", cwd="/src/app"),
                   claude_assistant(native, f"{day}T09:01:00.000Z", msg_id=f"m{number}", request_id=f"r{number}",
                                    usage=claude_usage(5, 1), cwd="/src/app")]
        if number == 50:
            for record in records:
                record.pop("cwd")
        path = claude_session_file(isolated_home, native, records)
        if number == 50:
            with path.open("ab") as handle:
                handle.write(b'{"cwd": "/wanted/x", broken\n')
    fast = _run("list", *args)
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 10**9)
    slow = _run("--no-cache", "list", *args)
    assert fast == slow
    assert "broken" in fast[2] or "skipped" in fast[2] or "invalid" in fast[2]


def test_a_filter_most_sessions_pass_stops_looking_at_facts(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home, sessions=300)
    monkeypatch.setattr(factfilter, "MIN_SESSIONS", 20)
    looked = record_results(monkeypatch, factfilter, "ruled_out", lambda found: found)
    code, out, _ = _run("list", "--grep", "task", "--all", "--json")  # every Claude session's title
    assert code == 0 and len(json.loads(out)["sessions"]) > 250
    assert len([found for found in looked if found is not None]) == 1  # the first batch said: not worth it


def test_facts_of_a_provider_that_names_no_models_are_taken_back(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept without models, the facts of a provider that never names them are as good for
    ``--grep`` as they will ever be: not found again on every run."""
    from agentscan.providers.codex.provider import CodexProvider

    monkeypatch.setattr(CodexProvider, "facts_name_models", False)
    for number in range(70):
        thread = f"019a0000-0000-7000-8000-{number:012d}"
        start = at(3600 * number)
        write_rollout(rollout_path(isolated_home / ".codex", thread, start), [
            meta(thread, start, cwd="/src/app"), turn_context(start, cwd="/src/app"), user_message(start, "codex task"),
            token_count(start, usage(100, output=10), usage(100, output=10))])
    args = ("list", "--all", "--cwd", "/wanted", "--grep", "zzz")
    first = _run(*args)
    found = record_calls(monkeypatch, CodexProvider, "table_facts", lambda *given, **named: 1)
    assert _run(*args) == first and first[0] == 0
    assert not found



@pytest.mark.parametrize(("data", "names"), [
    # A line cut in a model's name (a writer stopped mid-line), then a line whose first key
    # is a model: the search stops at the line's end, and does not step over that key.
    (b'{"message":{"model":"claude-unfini\n{"model":"claude-quokka-9","x":1}\n', {"claude-quokka-9"}),
    (b'{"model" : "a"}\n{"m":{"model":"b"}}', {"a", "b"}),
    (b'{"model":null,"y":{"model":"c"}}', {"c"}),
])
def test_the_models_a_files_bytes_name(data: bytes, names: set[str]) -> None:
    from agentscan.toolkit.stampscan import add_model_names

    found: set[str] = set()
    assert add_model_names(data, found) and found == names


def test_a_model_spelled_with_an_escape_is_not_named() -> None:
    from agentscan.toolkit.stampscan import add_model_names

    assert not add_model_names(b'{"model":"opus\\u002dx"}', set())
