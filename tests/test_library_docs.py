"""docs/library.md's examples run as written (so they cannot drift from the API), and
what they promise a long-lived library caller holds: ``Scanner.refresh`` sees new sessions,
and the library prints nothing of its own (pass 50)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from builders import claude_sessions

from agentscan import Scanner

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_guide_has_its_examples_and_the_readme_links_it() -> None:
    assert len(BLOCKS) >= 6
    assert "(docs/library.md)" in (DOC.parents[1] / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("number", range(len(BLOCKS)))
def test_each_example_runs_and_prints_only_its_own_lines(number: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = BLOCKS[number]
    exec(compile(code, f"{DOC}:block{number + 1}", "exec"), {"__name__": f"library_doc_{number}"})
    out, err = capsys.readouterr()
    assert err == ""
    # every line printed is one of the example's own print calls, none the library's
    assert out.count("\n") <= 200 and ("print(" in code) == bool(out)


def test_a_refreshed_scanner_sees_a_session_started_since(isolated_home: Path) -> None:
    claude_sessions(isolated_home, 2)
    with Scanner(home=isolated_home) as scanner:
        assert len(scanner.list_sessions(limit=None)) == 2
        claude_sessions(isolated_home, 3)  # a third session begins while the dashboard runs
        assert len(scanner.list_sessions(limit=None)) == 2  # the list it found, as documented
        scanner.refresh()
        rows = scanner.list_sessions(limit=None)
        assert len(rows) == 3
        assert scanner.show(rows[0].id).row.id == rows[0].id


def test_a_refresh_keeps_the_options_and_starts_the_warnings_again(isolated_home: Path, tmp_path: Path) -> None:
    claude_sessions(isolated_home, 1)
    bad = next((isolated_home / ".claude" / "projects").rglob("*.jsonl"))
    bad.write_text(bad.read_text(encoding="utf-8") + "{broken\n", encoding="utf-8")
    env = {"AGENTSCAN_CACHE_DIR": str(tmp_path / "cache")}
    with Scanner(home=isolated_home, env=env, provider_names="claude", use_cache=True) as scanner:
        scanner.list_sessions()
        assert len(scanner.warnings) == 1
        scanner.refresh()
        assert scanner.warnings == [] and scanner.use_cache and [p.name for p in scanner.providers] == ["claude"]
        assert scanner.ctx.home == isolated_home and scanner.ctx.env == env
        scanner.list_sessions()
        assert len(scanner.warnings) == 1  # the file read again (its row from the index) and said once
