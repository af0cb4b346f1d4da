"""The CLI reference must not drift from the code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer.main

from agentscan.cli import app
from agentscan.cli.options import GLOBAL_NAMES

DOCS = Path(__file__).resolve().parents[1] / "docs"


def cli_docs() -> str:
    """docs/cli.md plus the per-feature pages docs/cli-*.md."""
    return "\n".join(path.read_text() for path in sorted(DOCS.glob("cli*.md")))


def sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## agentscan (.+?)\s*$", text, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def walk(group: Any, prefix: str = "") -> dict[str, Any]:
    """Every command by its full name, groups' commands too.  (Told by ``commands``, not by
    ``isinstance(…, click.Group)``: Typer's groups are its own click's, which that never
    matched, so ``hooks install``/``uninstall`` went unchecked.)"""
    found: dict[str, Any] = {}
    for name, command in group.commands.items():
        full = f"{prefix}{name}"
        found[full] = command
        if hasattr(command, "commands"):
            found.update(walk(command, f"{full} "))
    return found


def test_every_command_and_option_is_documented() -> None:
    root = typer.main.get_command(app)
    documented = sections(cli_docs())
    commands = walk(root)
    missing = sorted(set(commands) - set(documented))
    assert not missing, f"commands missing from docs/cli*.md: {missing}"
    for name, command in commands.items():
        body = documented[name]
        for param in command.params:
            if param.name in GLOBAL_NAMES:
                continue  # documented once, under "Global options"
            for opt in param.opts:
                if opt.startswith("--") and opt != "--help":
                    assert f"`{opt}" in body, f"{opt} of `agentscan {name}` is not in docs/cli*.md"


def test_global_options_are_documented() -> None:
    text = cli_docs()
    root = typer.main.get_command(app)
    for param in root.params:
        for opt in param.opts:
            if opt.startswith("--"):
                assert f"`{opt}" in text, f"global option {opt} is not in docs/cli*.md"


def test_every_command_takes_the_global_options_after_its_name() -> None:
    root = typer.main.get_command(app)
    for name, command in walk(root).items():
        if hasattr(command, "commands") or name == "hook":  # groups; `hook` is run by agents, not people
            continue
        names = {param.name for param in command.params}
        assert GLOBAL_NAMES <= names, f"agentscan {name} does not take {sorted(GLOBAL_NAMES - names)}"


def test_json_schemas_are_documented() -> None:
    text = (DOCS / "json.md").read_text()
    for command in ("list", "show", "tokens"):
        assert f"agentscan.{command}/1" in text


README = Path(__file__).resolve().parents[1] / "README.md"


def readme_commands() -> list[str]:
    """The `agentscan …` lines of the README's shell blocks, comments stripped."""
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("agentscan ")]


def test_readme_examples_that_name_a_session_open_it_on_the_demo() -> None:
    from typer.testing import CliRunner

    named = [line for line in readme_commands() if "7f3c9a12" in line]
    assert named, "the README shows no `show` example"
    for line in named:
        assert "--demo" in line, f"{line!r} names a demo session without --demo"
        args = line.split()[1:] + (["--no-pager"] if "--full" in line else [])
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0 and "claude:7f3c9a12" in result.stdout, (line, result.output)


def test_readme_commands_hold_no_placeholders_and_say_how_to_get_agentscan_on_the_path() -> None:
    text = README.read_text()
    blocks = "".join(re.findall(r"```bash\n(.*?)```", text, flags=re.S))
    assert "…" not in blocks, "a README command has a … placeholder that cannot run"
    assert "read_csv('/dev/stdin')" in blocks  # the duckdb pipe reads what export writes
    for pipe in re.findall(r"agentscan export[^\n]*\|[^\n]*\n[^\n]*", blocks):
        # Sessions' own columns count a resumed session's copied calls again (docs/cron.md):
        # a sum of tokens is made of ``--days`` rows, which count each call once.
        assert "sum(tokens" not in pipe or "--days" in pipe, pipe
    use = text.split("## Use", 1)[1]
    assert "source .venv/bin/activate" in use.split("```", 1)[0] and "pipx install ." in use.split("```", 1)[0]


def test_every_cited_test_file_exists() -> None:
    """A comment or page that sends a reader to a test names one that is there."""
    repo = DOCS.parent
    texts = [*DOCS.rglob("*.md"), repo / "README.md",
             *(path for path in (repo / "src").rglob("*.py") if "demo" not in path.parts)]
    cited = {name for path in texts for name in re.findall(r"\btests/[\w/]+\.py\b", path.read_text())}
    assert cited, "no citation found: the pattern is wrong"
    assert sorted(name for name in cited if not (repo / name).is_file()) == []


def transcripts() -> list[tuple[str, str, list[str]]]:
    """Each ``$ agentscan …`` command of the docs' plain code blocks with the lines printed
    under it, as (page, command, lines): what a reader copies and what they are told to see."""
    found = []
    for page in [*sorted(DOCS.rglob("*.md")), README]:
        # Fences are paired from the top (a closing fence never opens a block) and only the
        # plain ones, with no language after the backticks, are transcripts.
        blocks = re.findall(r"^```(\w*)\n(.*?)^```", page.read_text(), flags=re.S | re.M)
        for block in (body for language, body in blocks if not language):
            command: str | None = None
            for line in block.splitlines():
                if line.startswith("$ "):
                    command = line[2:].split("  #")[0].strip()
                    if command.startswith("agentscan "):
                        found.append((page.name, command, []))
                    else:
                        command = None
                elif command is not None:
                    found[-1][2].append(line)
    return found


def test_docs_transcripts_print_what_they_show(local_zone: Any) -> None:
    """A ``$ agentscan --demo …`` shown with its output prints that output (a pipe's, `| cat`,
    stdout alone: the table), and an error shown under ``$ agentscan …`` is the error given
    (stderr): a doc's example that drifted from the program tells a newcomer wrong."""
    import shlex

    from typer.testing import CliRunner

    local_zone("UTC")  # the demo's days, as the pages show them
    shown = transcripts()
    assert any("--breakdown" in command for _, command, _ in shown), "the pattern finds no transcript"
    for page, command, lines in shown:
        words = shlex.split(command.removesuffix("| cat").strip())
        result = CliRunner().invoke(app, words[1:], prog_name="agentscan")
        printed = result.stdout if result.exit_code == 0 else result.stderr
        assert printed.splitlines() == lines, f"{page}: `{command}` prints\n{printed}"


def demo_commands() -> set[str]:
    """Every ``agentscan --demo …`` a page gives to copy (a code span, a shell block's line),
    but those with a placeholder (``ID``, ``<id>``, ``…``) or a pipe."""
    found = set()
    for page in [*DOCS.rglob("*.md"), README]:
        text = page.read_text()
        spans = re.findall(r"`(?:\.venv/bin/)?(agentscan --demo [^`\n]+)`", text)
        spans += re.findall(r"&& \.venv/bin/(agentscan --demo [^\n]+)$", text, flags=re.M)  # the README's first
        lines = re.findall(r"^\s*(agentscan --demo [^\n]+)$", text, flags=re.M)
        for command in (*spans, *lines):
            command = command.split("  #")[0].strip()
            if not re.search(r"\bID\b|[<…|>]", command):
                found.add(command)
    return found


def test_every_demo_command_the_docs_give_runs() -> None:
    """A newcomer copies them first: each one answers (exit 0, something on stdout)."""
    import shlex

    from typer.testing import CliRunner

    commands = demo_commands()
    assert {"agentscan --demo list", "agentscan --demo show 7f3c9a12 --full"} <= commands, sorted(commands)
    for command in sorted(commands):
        result = CliRunner().invoke(app, shlex.split(command)[1:], prog_name="agentscan")
        assert result.exit_code == 0 and result.stdout.strip(), (command, result.output)


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_relative_link_of_the_docs_leads_somewhere() -> None:
    """A page a newcomer follows a link from names a file that is there and, after `#`, one of
    its headings: a renamed heading or a moved page otherwise leaves a dead link unsaid."""
    repo = DOCS.parent
    pages = [*sorted(DOCS.rglob("*.md")), README]

    def headings(page: Path) -> set[str]:
        prose = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)  # a `# comment` is none
        return {anchor(heading) for heading in re.findall(r"^#+ (.*)$", prose, flags=re.M)}

    links = [(page, link) for page in pages for link in re.findall(r"\]\(([^)\s]+)\)", page.read_text())
             if not re.match(r"[a-z]+:", link)]
    assert len(links) > 100, "the pattern finds no links"
    dead = []
    for page, link in links:
        path, _, fragment = link.partition("#")
        target = (page.parent / path).resolve() if path else page.resolve()
        if not target.exists() or (fragment and target.suffix == ".md" and fragment not in headings(target)):
            dead.append(f"{page.relative_to(repo)}: {link}")
    assert dead == []
