"""``tokens --cwd PATH`` (only sessions whose working directory is PATH or below it, as
``list --cwd`` chooses them) and ``tokens --by cwd`` (one row per working directory): what
one project cost, and which projects cost the most.  A delegated run is its session's."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan import Scanner, token_report
from agentscan.errors import UsageProblem
from agentscan.scan.groupby import parse_group
from builders import claude_assistant, claude_session_file, claude_subagent_file, claude_usage, claude_user, cli_json, invoke
from codex_builders import at, meta, rollout_path, token_count, turn_context, usage, write_rollout

API, WEB = "/home/dev/src/api", "/home/dev/src/web"
S_API, S_API_SUB, S_WEB, S_NONE = ("c0d00000-0000-4000-8000-00000000000" + str(n) for n in range(1, 5))
CODEX_API = "019b0000-0000-7000-8000-000000000001"


def _claude(home: Path, session: str, cwd: str | None, tokens: int, project: str) -> None:
    extra = {"cwd": cwd} if cwd is not None else {}
    records = [claude_user(session, "2026-08-01T10:00:01.000Z", "go", **extra),
               claude_assistant(session, "2026-08-01T10:00:02.000Z", msg_id=f"m-{session}", request_id=f"r-{session}",
                                usage=claude_usage(input=tokens, output=1), uuid=f"a-{session}", **extra)]
    if cwd is None:
        for record in records:
            record.pop("cwd")
    claude_session_file(home, session, records, project=project)


def _home(home: Path) -> None:
    _claude(home, S_API, API + "/server", 100, "-home-dev-src-api-server")  # below API
    claude_subagent_file(home, S_API, "a1", [claude_assistant(
        S_API, "2026-08-01T10:00:03.000Z", msg_id="m-sub", request_id="r-sub", usage=claude_usage(input=20, output=1),
        uuid="s1", sidechain=True, agentId="a1", cwd=API + "/server")], project="-home-dev-src-api-server")
    _claude(home, S_API_SUB, API, 1_000, "-home-dev-src-api")
    _claude(home, S_WEB, WEB, 10_000, "-home-dev-src-web")
    _claude(home, S_NONE, None, 7, "-unknown")
    write_rollout(rollout_path(home / ".codex", CODEX_API, at(0)), [
        meta(CODEX_API, at(0), cwd=API), turn_context(at(1), cwd=API),
        token_count(at(2), usage(50_000, output=5), usage(50_000, output=5))])


def _totals(report) -> dict[str, int]:
    return {row.key: row.tokens.total for row in report.rows if row.tokens is not None}


def test_cwd_keeps_the_sessions_at_or_below_it(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        every = _totals(token_report(scanner))
        report = token_report(scanner, cwd=API)
    kept = _totals(report)
    assert set(kept) == {f"claude:{S_API}", f"claude:{S_API_SUB}", f"codex:{CODEX_API}"}
    assert kept == {key: every[key] for key in kept}  # each as the whole report counts it, subagent included
    assert kept[f"claude:{S_API}"] == 100 + 1 + 20 + 1
    assert report.total is not None and report.total.total == sum(kept.values())


def test_cwd_is_a_directory_not_a_string_prefix(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        assert _totals(token_report(scanner, cwd="/home/dev/src/ap")) == {}
        assert set(_totals(token_report(scanner, cwd=API + "/server"))) == {f"claude:{S_API}"}


def test_cwd_with_ids_keeps_only_those_ids_in_it(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        report = token_report(scanner, ids=[f"claude:{S_API}", f"claude:{S_WEB}"], cwd=API)
    assert set(_totals(report)) == {f"claude:{S_API}"}


def test_by_cwd_has_a_row_per_working_directory(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        by_session = token_report(scanner)
        report = token_report(scanner, by="cwd")
    rows = _totals(report)
    assert rows == {API + "/server": 122, API: 1_001 + 50_005, WEB: 10_001, "unknown": 8}
    assert [row.key for row in report.rows] == [API, WEB, API + "/server", "unknown"]  # dearest first
    assert report.total == by_session.total and report.cost == by_session.cost
    (server,) = [row for row in report.rows if row.key == API + "/server"]
    assert [run for run, _ in server.subagents] == [f"claude:{S_API}/a1"]


def test_by_cwd_with_cwd_groups_what_it_keeps(isolated_home: Path) -> None:
    _home(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        rows = _totals(token_report(scanner, by="cwd", cwd=API))
    assert rows == {API + "/server": 122, API: 51_006}


def test_cwd_is_a_grouping_and_others_are_refused() -> None:
    assert parse_group("cwd") == "cwd"
    assert parse_group("project") == "cwd"  # ccusage's word, taken (pass 48)
    with pytest.raises(UsageProblem, match="cwd"):
        parse_group("cwds")


# -- the command line -------------------------------------------------------------------

def test_tokens_cwd_on_the_command_line_is_relative_to_here(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    (isolated_home / "dev").mkdir()
    monkeypatch.chdir(isolated_home / "dev")  # an existing directory the relative path is taken from
    relative = cli_json("tokens", "--cwd", os.path.relpath(API))
    assert not os.path.relpath(API).startswith("/")
    absolute = cli_json("tokens", "--cwd", API)
    assert relative == absolute
    assert {row["key"] for row in absolute["rows"]} == {f"claude:{S_API}", f"claude:{S_API_SUB}", f"codex:{CODEX_API}"}


def test_a_remembered_answer_is_told_apart_by_its_cwd(isolated_home: Path) -> None:
    """Answers are remembered under their question: ``--cwd`` must be part of it, both ways."""
    _home(isolated_home)
    every = cli_json("tokens")
    api = cli_json("tokens", "--cwd", API)
    web = cli_json("tokens", "--cwd", WEB)
    assert cli_json("tokens") == every and cli_json("tokens", "--cwd", API) == api
    assert cli_json("tokens", "--cwd", WEB) == web
    assert api["total"]["total"] == 122 + 1_001 + 50_005 and web["total"]["total"] == 10_001
    assert every["total"]["total"] == api["total"]["total"] + web["total"]["total"] + 8


def test_a_cwd_no_session_worked_in_says_so(isolated_home: Path) -> None:
    _home(isolated_home)
    result = invoke("tokens", "--cwd", "/elsewhere")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.strip() == "no sessions under /elsewhere (it does not exist; 5 elsewhere)"


def test_by_cwd_on_the_command_line(isolated_home: Path) -> None:
    _home(isolated_home)
    report = cli_json("tokens", "--by", "cwd")
    assert report["by"] == "cwd"
    assert [row["key"] for row in report["rows"]] == [API, WEB, API + "/server", "unknown"]
    table = invoke("tokens", "--by", "cwd").stdout
    assert table.splitlines()[0].startswith("CWD ") and API + "/server" in table


def test_an_empty_cwd_is_a_usage_error(isolated_home: Path) -> None:
    result = invoke("tokens", "--cwd", "")
    assert result.exit_code == 2 and "--cwd is empty" in result.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_a_session_elsewhere_that_grew_stays_out(isolated_home: Path, as_json: bool) -> None:
    """A whole answer is patched with the sessions that changed since it was kept: under
    ``--cwd`` such a session may be another directory's."""
    _home(isolated_home)
    args = ["tokens", "--cwd", WEB, *(["--json"] if as_json else [])]
    first = invoke(*args).stdout
    path = next((isolated_home / ".claude" / "projects" / "-home-dev-src-api").glob("*.jsonl"))
    with path.open("ab") as grown:
        grown.write(orjson.dumps(claude_assistant(
            S_API_SUB, "2026-08-01T10:00:09.000Z", msg_id="m-more", request_id="r-more",
            usage=claude_usage(input=5, output=1), uuid="more", cwd=API)) + b"\n")
    assert invoke(*args).stdout == first == invoke("--no-cache", *args).stdout


def test_each_directory_s_answer_is_kept_apart(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tokens --cwd A``, ``tokens``, ``tokens --cwd A`` again: the third is the first's, kept."""
    from agentscan.scan import tokens

    _home(isolated_home)
    made: list[str | None] = []
    real = tokens.token_report

    def counted(*args: object, **kwargs: object) -> object:
        made.append(kwargs.get("cwd"))  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tokens, "token_report", counted)
    first = [cli_json("tokens", "--cwd", API), cli_json("tokens"), cli_json("tokens", "--cwd", WEB)]
    again = [cli_json("tokens", "--cwd", API), cli_json("tokens"), cli_json("tokens", "--cwd", WEB)]
    assert again == first
    assert made == [API, None, WEB]  # each made once


@pytest.mark.parametrize("args", [("--cwd", API), ("--by", "cwd")])
def test_a_directory_s_answer_counts_every_provider_s_files(isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                            args: tuple[str, ...]) -> None:
    """A Gemini session's directory may be named by another provider's sessions (its project
    hash): ``-p gemini --cwd`` must not be remembered on Gemini's files alone."""
    from agentscan.scan import answers

    _home(isolated_home)
    asked: list[bool] = []
    real = answers.answer_key

    def spy(*a: object, witnesses: bool = False, **k: object) -> object:
        asked.append(witnesses)
        return real(*a, witnesses=witnesses, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(answers, "answer_key", spy)
    cli_json("tokens", "-p", "gemini", *args)
    cli_json("tokens", "-p", "gemini")
    assert asked == [True, False]


def test_many_directories_do_not_push_out_the_answer_of_every_session(isolated_home: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli import tokens_answer
    from agentscan.scan import tokens

    monkeypatch.setattr(tokens_answer, "KEPT_DIRECTORIES", 2)
    _home(isolated_home)
    every = cli_json("tokens", "--by", "day")
    for directory in (API, WEB, "/elsewhere", API + "/server"):
        cli_json("tokens", "--cwd", directory)
    made: list[object] = []
    real = tokens.token_report
    monkeypatch.setattr(tokens, "token_report", lambda *a, **k: made.append(k) or real(*a, **k))
    assert cli_json("tokens", "--by", "day") == every and made == []  # still kept
    cli_json("tokens", "--cwd", API)  # pushed out by the two newest directories
    assert len(made) == 1


def test_a_library_caller_s_relative_cwd_is_taken_from_here(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _home(isolated_home)
    monkeypatch.chdir(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        relative = _totals(token_report(scanner, cwd=os.path.relpath(WEB)))
        assert relative == _totals(token_report(scanner, cwd=WEB)) == {f"claude:{S_WEB}": 10_001}


def test_one_directory_spelled_two_ways_is_one_row(isolated_home: Path) -> None:
    """As ``--cwd`` finds both: Windows' either separator and any case, a trailing separator;
    the row is named by one of the spellings recorded."""
    ids = [f"d1d10000-0000-4000-8000-00000000000{n}" for n in range(1, 5)]
    spellings = ["c:/Users/me/App", "C:\\Users\\me\\App", WEB + "/", WEB]
    for session, cwd, tokens in zip(ids, spellings, [1, 10, 100, 1000]):
        _claude(isolated_home, session, cwd, tokens, f"-p{tokens}")
    with Scanner(home=str(isolated_home)) as scanner:
        rows = _totals(token_report(scanner, by="cwd"))
    assert sorted(rows.values()) == [1 + 1 + 10 + 1, 100 + 1 + 1000 + 1]
    assert set(rows) <= set(spellings)


def test_a_total_of_one_directory_says_which(isolated_home: Path) -> None:
    _home(isolated_home)
    document = cli_json("tokens", "--cwd", API)
    assert list(document)[:3] == ["schema", "by", "cwd"] and document["cwd"] == API
    assert "cwd" not in cli_json("tokens")
