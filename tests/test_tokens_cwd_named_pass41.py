"""``tokens ID --cwd OTHER``: a session asked for by id that ``--cwd`` leaves out is named.

It was left out silently: the user typed its id and got a table without it, or, alone,
``no sessions under OTHER (1 elsewhere)``, which said neither which nor where it was.
Now stderr names it and its working directory, as ``--provider`` names the ids it drops
(``tokens_empty``); ``--json``'s document is as before, and the exit status 0.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.cli.tokens_empty import cwd_drops
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokencwd import within
from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from patch_builders import BASE, IDS, project_session

runner = CliRunner()
API = "/home/dev/src/api"
WEB = "/home/dev/src/web"


def tokens(*args: str) -> tuple[str, str]:
    result = runner.invoke(app, ["tokens", *args])
    assert result.exit_code == 0, result.output
    return result.stdout, " ".join(result.stderr.split())


def home_of_two(home: Path) -> None:
    project_session(home, IDS[0], API, "api work", 1)
    project_session(home, IDS[1], WEB, "web work", 2)


def test_an_id_elsewhere_is_named_beside_the_ones_counted(isolated_home: Path) -> None:
    home_of_two(isolated_home)
    out, err = tokens(IDS[0], IDS[1], "--cwd", API)
    assert f"claude:{IDS[0]}" in out and IDS[1] not in out  # the table as before
    assert err == f"claude:{IDS[1]} (cwd {WEB}) is not under {API}: --cwd leaves it out"


def test_an_id_alone_elsewhere_says_nothing_is_left(isolated_home: Path) -> None:
    home_of_two(isolated_home)
    out, err = tokens(IDS[1], "--cwd", API)
    assert out == ""
    # Named, and said once: not again as "no sessions under … (1 elsewhere)".
    assert err == f"claude:{IDS[1]} (cwd {WEB}) is not under {API}: --cwd leaves it out; nothing is left to total"


def test_several_ids_elsewhere_are_counted_and_named(isolated_home: Path) -> None:
    home_of_two(isolated_home)
    project_session(isolated_home, IDS[2], API, "more api work", 3)
    nowhere = claude_session_file(isolated_home, IDS[3], [
        claude_user(IDS[3], "2026-11-01T09:00:00Z", "no cwd", cwd=None),
        claude_assistant(IDS[3], "2026-11-01T09:00:01Z", msg_id="m-none", request_id="r-none",
                         usage=claude_usage(5, 1), cwd=None)], mtime=BASE)
    assert nowhere.exists()
    _, err = tokens(IDS[0], IDS[1], IDS[3], "--cwd", API)
    assert err == (f"--cwd {API} leaves out 2 of the sessions asked for: claude:{IDS[1]} (cwd {WEB}), "
                   f"claude:{IDS[3]} (no cwd recorded)")


def test_every_session_under_a_cwd_names_none_left_out(isolated_home: Path) -> None:
    """Not asked for by id: the others are simply not under it (as before)."""
    home_of_two(isolated_home)
    out, err = tokens("--cwd", API)
    assert f"claude:{IDS[0]}" in out and err == ""


def test_json_is_as_before(isolated_home: Path) -> None:
    home_of_two(isolated_home)
    out, err = tokens(IDS[0], IDS[1], "--cwd", API, "--json")
    document = orjson.loads(out)
    assert [row["key"] for row in document["rows"]] == [f"claude:{IDS[0]}"]
    assert document["warnings"] == [] and err == ""


def test_an_id_provider_drops_is_not_named_again(isolated_home: Path) -> None:
    home_of_two(isolated_home)
    _, err = tokens(IDS[0], IDS[1], "--cwd", API, "--provider", "codex")
    assert "--provider codex leaves out 2 of the sessions asked for" in err and "--cwd leaves" not in err


def test_left_out_tells_each_session_and_its_cwd(isolated_home: Path) -> None:
    home_of_two(isolated_home)
    with Scanner(home=str(isolated_home)) as scanner:
        refs = [scanner.resolve(native_id) for native_id in IDS[:2]]
        assert [(ref.id, cwd) for ref, cwd in within(scanner, refs, API)[1]] == [(f"claude:{IDS[1]}", WEB)]
        assert within(scanner, refs, "/home/dev")[1] == []


def test_the_wording_names_at_most_five() -> None:
    dropped = [(f"claude:{n}", f"/p/{n}") for n in range(7)]
    said = cwd_drops(dropped, "/q", every=False)
    assert said.startswith("--cwd /q leaves out 7 of the sessions asked for: claude:0 (cwd /p/0), ")
    assert said.endswith("claude:4 (cwd /p/4) and 2 more") and "claude:5" not in said
