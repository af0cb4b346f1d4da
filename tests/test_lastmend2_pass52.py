"""A last reader's findings on pass 52's diff, each held here.

- A Claude project folder's name given to ``show``/``trace``/``tokens``/``otlp``
  (``-home-demo-src-weather-app``) was told to follow ``--``: ``show -- -home-…`` then failed
  (``no session matches``): a folder's name is no session's id.  ``list --grep`` is offered,
  with the global options typed (``--demo``) kept, and that command finds the sessions.
- ``show --id abc`` answered ``agentscan show abc``, dropping ``--demo``/``--home DIR``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()
FOLDER = "-home-demo-src-weather-app"


@pytest.mark.parametrize("command", [["show"], ["trace"], ["tokens"], ["otlp"]])
def test_a_folder_name_given_for_an_id_is_offered_list_grep(command: list[str]) -> None:
    result = runner.invoke(app, ["--demo", *command, FOLDER])
    assert result.exit_code == 2
    said = f"its sessions: agentscan --demo list --grep={FOLDER})"
    assert said in result.stderr, result.stderr
    assert " -- " not in result.stderr.splitlines()[0], result.stderr
    # and what it offers finds them
    found = runner.invoke(app, ["--demo", "list", f"--grep={FOLDER}", "--json"])
    assert found.exit_code == 0 and '"id"' in found.stdout


@pytest.mark.parametrize("argv, said", [
    (["--home", "/nowhere", "show", "--id", "abc"], "show takes the id as its argument: agentscan --home /nowhere show abc"),
    (["--demo", "trace", "--session", "abc"], "trace takes the id as its argument: agentscan --demo trace abc"),
    (["--demo", "prices", "--model"], "prices takes the model as its argument: agentscan --demo prices MODEL"),
])
def test_an_id_option_answers_with_the_global_options_kept(argv: list[str], said: str) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2
    assert f"({said})" in result.stderr, result.stderr


def test_doctor_json_names_the_setting_meant(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """doctor's last line took the setting meant by splitting the finding's sentence; the
    report carries it as a field (``settings_meant``), which the text reads."""
    import orjson
    from gemini_builders import meta, user, write_chat

    elsewhere = isolated_home / "elsewhere"
    write_chat(elsewhere, "api", "session-2026-05-01T10-00-9e9e9e9e.jsonl",
               [meta("9e9e9e9e-1111-4222-8333-444444444444"), user("u1", "2026-05-01T10:00:00.000Z", "hi")])
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere / ".gemini"))
    report = orjson.loads(runner.invoke(app, ["doctor", "--json"]).stdout)
    meant = {p["provider"]: p["settings_meant"] for p in report["providers"]}
    assert meant.pop("gemini") == [f"GEMINI_CLI_HOME={elsewhere}"]
    assert all(settings == [] for settings in meant.values())


def test_the_readme_points_at_the_docs_index_rather_than_copying_it() -> None:
    """README.md and docs/README.md carried the same list of pages, which drift apart: the
    README's Documentation section links docs/README.md (which names every page) instead."""
    import re

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    assert "(docs/README.md)" in section
    pages = len(list((root / "docs").rglob("*.md")))
    assert len(re.findall(r"\]\(docs/", section)) < pages // 2, section
