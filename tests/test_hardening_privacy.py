"""Privacy: ``--redact`` hides every provider's text; errors and tracebacks quote none of it.

The demo home holds real-looking sessions of all four providers.  Each one
is shown with ``--redact``: no prompt, reply, tool or plan text of its
unredacted ``show`` may survive, nor the prompts written in the demo files
(quoted here by hand).  Then: a crash's traceback prints no local variables,
and error messages name ids, never titles or prompts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentscan.cli import app
from builders import REPO
from bad_corpus import SECRET, case, lay_out

runner = CliRunner()

# One prompt per provider, copied from the demo home's own files.
DEMO_PROMPTS = {
    "claude": "Upgrade to Python 3.13",
    "codex": "Summarize the open TODO comments",
    "gemini": "Why does the forecast cache never expire?",
    "cursor": "Add a --json flag to the `status` command.",
}


def demo(*args: str) -> dict:
    result = runner.invoke(app, ["--demo", "--no-cache", *args, "--json"])
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout)


def texts_of(session: dict) -> set[str]:
    """Every conversation text of an unredacted ``show`` (the ones long enough to mean something)."""
    found = {session["title"] or ""}
    found |= {p["text"] for p in session["prompts"]} | {r["text"] for r in session["responses"]}
    found |= {t["summary"] for t in session["tools"]} | {s["step"] for s in session["plan"]}
    found |= {d["description"] or "" for d in session.get("delegations", [])} | set(session.get("errors", []))
    for sub in session["subagents"]:  # a subagent's task and replies
        found |= {p["text"] for p in sub["prompts"]} | {r["text"] for r in sub["responses"]}
    return {text for text in found if len(text) >= 12}


DEMO_IDS = [row["id"] for row in orjson.loads(
    CliRunner().invoke(app, ["--demo", "--no-cache", "list", "--json"], env={"AGENTSCAN_CACHE_DIR": "/nonexistent"}).stdout
)["sessions"]]


def test_the_demo_has_every_provider() -> None:
    assert {session_id.split(":")[0] for session_id in DEMO_IDS} == set(DEMO_PROMPTS)


@pytest.mark.parametrize("session_id", DEMO_IDS)
def test_show_redact_leaves_no_text_of_any_demo_session(session_id: str) -> None:
    plain = demo("show", session_id)["session"]
    secret = texts_of(plain)
    assert secret, "nothing to hide: the check would prove nothing"
    redacted_doc = demo("show", session_id, "--redact")
    session = redacted_doc["session"]
    # Paths stay (with secrets masked): a Read call's summary is its file's path, shown as a path.
    kept = {path for tool in session["tools"] for path in tool["paths"]} | {session["cwd"], session["path"]}
    out = orjson.dumps(redacted_doc).decode()
    leaked = sorted(text for text in secret | set(DEMO_PROMPTS.values()) if text in out and text not in kept)
    assert not leaked, leaked
    assert all(p["text"].startswith("[redacted: ") for p in session["prompts"])
    assert session["tokens"] == plain["tokens"] and len(session["tools"]) == len(plain["tools"])  # the shape stays


def test_list_and_export_redact_leave_no_prompt_of_any_provider(tmp_path: Path) -> None:
    listed = orjson.dumps(demo("list", "--redact")).decode()
    out = tmp_path / "demo.csv"
    assert runner.invoke(app, ["--demo", "--no-cache", "export", "-f", "csv", "-o", str(out), "--redact"]).exit_code == 0
    for text in [*DEMO_PROMPTS.values(), *(row["title"] for row in demo("list")["sessions"])]:
        assert text not in listed and text not in out.read_text("utf-8"), text


def test_redacted_prompts_differ_only_where_the_texts_do() -> None:
    """Equal texts keep equal fingerprints (useful), different ones differ (no collisions here)."""
    prompts = [p["text"] for sid in DEMO_IDS for p in demo("show", sid, "--redact")["session"]["prompts"]]
    plain = [p["text"] for sid in DEMO_IDS for p in demo("show", sid)["session"]["prompts"]]
    assert len(set(prompts)) == len(set(plain))


# -- tracebacks and error messages -----------------------------------------------------

CRASH = """
import sys
import agentscan.scan.scanner
from agentscan.cli import app

def crash(self, **kwargs):
    private_prompt = "PRIVATE-PROMPT-IN-A-LOCAL"  # what a frame of a real crash could hold
    raise RuntimeError("boom")

# Whichever the CLI calls: both must crash.
agentscan.scan.scanner.Scanner.list_sessions = crash
agentscan.scan.scanner.Scanner.list_page = crash
app.pretty_exceptions_show_locals = sys.argv[1] == "show-locals"
sys.argv = ["agentscan", "--no-cache", "list"]
app()
"""


def _crash(mode: str, home: Path) -> str:
    env = {"HOME": str(home), "AGENTSCAN_CACHE_DIR": str(home / "cache"), "PATH": "", "COLUMNS": "200", "TERM": "dumb",
           # the code under test, not whatever an editable install points at
           "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "-c", CRASH, mode], capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    assert done.returncode != 0 and "boom" in done.stderr, done.stderr
    return done.stderr


def test_a_crash_traceback_shows_no_locals(isolated_home: Path) -> None:
    assert app.pretty_exceptions_show_locals is False
    assert "PRIVATE-PROMPT-IN-A-LOCAL" not in _crash("as-shipped", isolated_home)
    # The control: the same crash with locals on does print them, so the check above means something.
    assert "PRIVATE-PROMPT-IN-A-LOCAL" in _crash("show-locals", isolated_home)


def test_errors_name_ids_never_titles_or_prompts(isolated_home: Path) -> None:
    clean = case("claude", "clean")
    source = lay_out(isolated_home, [clean, case("claude", "invalid-json")])[clean.id]
    # Two more sessions whose ids share a prefix: "show abcdef" is ambiguous.
    for stem in ("abcdef01-0000-4000-8000-000000000001", "abcdef02-0000-4000-8000-000000000002"):
        (source.parent / f"{stem}.jsonl").write_bytes(source.read_bytes())
    ambiguous = runner.invoke(app, ["show", "abcdef"])
    assert ambiguous.exit_code == 1 and "claude:abcdef01" in ambiguous.stderr and "claude:abcdef02" in ambiguous.stderr
    unknown = runner.invoke(app, ["show", "zzzzzzzz-no-such-session"])
    assert unknown.exit_code == 1
    strict = runner.invoke(app, ["--strict", "--verbose", "list"])
    assert strict.exit_code == 1 and "invalid JSON skipped" in strict.stderr
    for result in (ambiguous, unknown, strict):
        assert "Traceback" not in result.stderr
        assert clean.title not in result.stderr and SECRET not in result.stderr


def test_redact_covers_the_text_in_provider_extras(isolated_home: Path) -> None:
    """Cursor's delegations (a Task call's description) and error lines are conversation text too."""
    from cursor_builders import assistant, tool, user, write_subagent, write_transcript

    parent, child = "aaaaaaaa-0000-4000-8000-00000000000a", "bbbbbbbb-0000-4000-8000-00000000000b"
    write_transcript(isolated_home, "p", parent, [
        user("delegate it"),
        assistant(None, tool("Task", prompt="look around", description=f"{SECRET} description", subagent_type="explore")),
        {"type": "error", "error": f"{SECRET} in an error line"},
    ])
    write_subagent(isolated_home, "p", parent, child, [user("look around")])
    plain = orjson.loads(runner.invoke(app, ["show", parent, "--json"]).stdout)["session"]
    assert SECRET in plain["delegations"][0]["description"] and SECRET in plain["errors"][0]["text"]  # both hold the text
    redacted = runner.invoke(app, ["show", parent, "--json", "--redact"])
    assert redacted.exit_code == 0 and SECRET not in redacted.stdout
    session = orjson.loads(redacted.stdout)["session"]
    assert session["delegations"][0]["description"].startswith("[redacted: ")
    assert session["errors"][0]["text"].startswith("[redacted: ")
