"""A second newcomer's slips (pass 52): each said where it happens.

- ``--tz EST`` (tzdata's fixed UTC-5) is taken, with a note on stderr that New York's
  clocks are ``America/New_York``: summer times came out an hour off without a word.
- An unknown ``-p`` is echoed as typed (``'Claude_Code'``), not folded (``'claude_code'``).
- The README's "every command has ``--json``" names the commands that do (not ``help``).
- ``show``'s ``?`` marker starts in the marker column, as ``ok`` and ``error`` do.
- No command's help runs two spaces into its prose (``errors.  The hooks part``).
- A bare word that starts with ``-`` and has a dash inside (a Claude project folder's
  name, ``-home-user-misc``) is said as that word, with how to give it, not as ``-o``.
- Every relative link in README.md and docs/ names a file (and a heading) that exists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from agentscan.cli import app
from agentscan.zoneguess import fixed_zone_note

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


# --tz EST ---------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["list"], ["tokens"], ["show", "7f3c9a12"]])
def test_a_fixed_zone_typed_for_new_york_gets_a_note_on_stderr(command: list[str]) -> None:
    result = runner.invoke(app, ["--demo", *command, "--tz", "EST"])
    assert result.exit_code == 0, result.output
    assert "--tz America/New_York" in result.stderr and "UTC-05:00 all year" in result.stderr
    assert "America/New_York" not in result.stdout


def test_the_note_stays_out_of_the_json_document() -> None:
    result = runner.invoke(app, ["--demo", "list", "--tz", "EST", "--json"])
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert "America/New_York" not in json.dumps(document)
    assert "America/New_York" in result.stderr


@pytest.mark.parametrize("name", ["America/New_York", "HST", "utc", "local", "Europe/Paris", None])
def test_a_zone_that_is_what_it_says_gets_no_note(name: str | None) -> None:
    assert fixed_zone_note(name) is None


def test_export_days_takes_the_note_and_a_refused_tz_gets_none(tmp_path: Path) -> None:
    days = runner.invoke(app, ["--demo", "export", "-o", str(tmp_path / "d.jsonl"), "--days", "--tz", "EST"])
    assert days.exit_code == 0 and "America/New_York" in days.stderr
    # without --days, --tz is refused: the error alone, no note about a zone not used
    refused = runner.invoke(app, ["--demo", "export", "-o", str(tmp_path / "e.jsonl"), "--tz", "EST"])
    assert refused.exit_code == 2 and "America/New_York" not in refused.stderr


# -p as typed -------------------------------------------------------------------------------

def test_an_unknown_provider_is_echoed_as_typed() -> None:
    result = runner.invoke(app, ["--demo", "list", "-p", "Claude_Code"])
    assert result.exit_code == 2
    assert "unknown provider 'Claude_Code'" in result.stderr, result.stderr


def test_a_known_provider_in_any_case_is_still_taken() -> None:
    result = runner.invoke(app, ["--demo", "list", "-p", "CLAUDE,Codex", "--json"])
    assert result.exit_code == 0
    assert {row["provider"] for row in json.loads(result.stdout)["sessions"]} == {"claude", "codex"}


# the README's --json sentence --------------------------------------------------------------

def _commands() -> list[tuple[str, object]]:
    found = []

    def walk(command: object, path: list[str]) -> None:
        subcommands = getattr(command, "commands", {})
        if path and not subcommands:  # (``hook``, hidden from the help, too)
            found.append((" ".join(path), command))
        for name, sub in subcommands.items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


def test_the_readme_names_the_commands_that_take_json() -> None:
    readme = (ROOT / "README.md").read_text()
    sentence = readme[readme.index("Every command that reports has `--json`"):]
    sentence = sentence[:sentence.index("agent runs.")]
    named = set(re.findall(r"`([a-z][a-z |]*)`", sentence))
    named = {f"hooks {sub}" for word in named if word.startswith("hooks ")
             for sub in word.removeprefix("hooks ").split("|")} | {word for word in named if " " not in word}
    with_json = {path for path, command in _commands()
                 if any("--json" in getattr(param, "opts", ()) for param in command.params)}  # type: ignore[attr-defined]
    without = {path for path, _ in _commands()} - with_json
    assert with_json <= named, with_json - named
    assert without == {"help", "hook"}, without  # the two the sentence says take none


# show's ? marker --------------------------------------------------------------------------

def test_the_unknown_marker_starts_in_the_marker_column() -> None:
    result = runner.invoke(app, ["--demo", "show", "cursor:7c0a1e55"])
    lines = result.stdout.splitlines()
    unknown = [line for line in lines if line.lstrip().startswith("? ") and ": " in line and " = " not in line]
    assert unknown, lines
    # ``  ok     Read: …`` and ``  ?      Grep: …``: the marker at column 2, the name at 9
    assert all(line.startswith("  ?      ") and line[9] != " " for line in unknown), unknown


# help prose ----------------------------------------------------------------------------------

def test_no_help_runs_two_spaces_into_its_prose() -> None:
    for path, command in _commands():
        helps = [getattr(command, "help", None), *(getattr(param, "help", None) for param in command.params)]  # type: ignore[attr-defined]
        for paragraph in "\n\n".join(text for text in helps if text).split("\n\n"):
            if paragraph.startswith("\b"):  # a block click prints as written
                continue
            prose = " ".join(paragraph.split("\n"))
            assert not re.search(r"[.;:,)]  +\S", prose), (path, prose)


# a value that starts with - -----------------------------------------------------------------

def test_a_folder_name_given_bare_to_list_is_said_as_itself() -> None:
    result = runner.invoke(app, ["--demo", "list", "-home-user-misc"])
    assert result.exit_code == 2
    first = result.stderr.splitlines()[0]
    assert first == ("error: No such option: -home-user-misc (a value that starts with '-' is read as options; "
                     "to search for it: agentscan --demo list --grep=-home-user-misc)"), first


def test_an_argument_that_starts_with_a_dash_is_told_to_follow_double_dash() -> None:
    result = runner.invoke(app, ["--demo", "prices", "-gpt-5", "--json"])
    assert result.exit_code == 2
    # the command line again, its other words kept (without --demo it would ask another home)
    assert "after --: agentscan --demo prices --json -- -gpt-5)" in result.stderr, result.stderr


@pytest.mark.parametrize("argv", [["list", "--grep", "-home-user-misc"], ["list", "--grep=-home-user-misc"],
                                  ["list", "--cwd", "-home-user-misc"], ["list", "-vp", "claude"], ["list", "-n5"]])
def test_values_and_short_options_are_taken_as_before(argv: list[str]) -> None:
    assert runner.invoke(app, ["--demo", *argv]).exit_code == 0


# links ---------------------------------------------------------------------------------------

def _anchors(page: Path) -> set[str]:
    """The ``#fragments`` GitHub gives ``page``'s headings (lower case, punctuation dropped,
    spaces as dashes, a repeated one numbered)."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} +(.+?)\s*#*$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found | set(re.findall(r'<a (?:name|id)="([^"]+)"', text))


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _broken_links(page: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)  # (code spans: ``[a](b)`` there is no link)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path) if path else page
        if not dest.exists():
            broken.append(target)
        elif fragment and dest.suffix == ".md" and fragment not in _anchors(dest):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_names_a_file_and_heading_that_exist(page: Path) -> None:
    assert not _broken_links(page)


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("## Known limits\n")
    (tmp_path / "a.md").write_text("# Title: `x`, y\n\n[ok](#title-x-y) [bad](#nothing) [gone](c.md) "
                                   "[there](b.md#known-limits) `[code](d.md)` [web](https://example.com)\n")
    assert _broken_links(tmp_path / "a.md") == ["#nothing", "c.md"]


@pytest.mark.parametrize("typed, meant", [("est", "America/New_York"), ("mst", "America/Denver"), ("hst", "HST")])
def test_a_lower_case_abbreviation_is_offered_the_place_not_the_fixed_zone(typed: str, meant: str) -> None:
    result = runner.invoke(app, ["--demo", "list", "--tz", typed])
    assert result.exit_code == 2
    assert f"unknown time zone {typed!r}: did you mean {meant}?" in result.stderr, result.stderr


def test_the_docs_index_links_every_page() -> None:
    """docs/README.md, the page a reader browsing docs/ lands on, names every page there."""
    index = (ROOT / "docs" / "README.md").read_text()
    linked = {(ROOT / "docs" / target).resolve() for target in re.findall(r"\]\(([^)#\s]+)", index)}
    pages = {page.resolve() for page in (ROOT / "docs").rglob("*.md") if page.name != "README.md"}
    assert pages - linked == set(), sorted(str(page) for page in pages - linked)
