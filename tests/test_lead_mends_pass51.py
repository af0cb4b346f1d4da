"""Small mends after the reviews of pass 51: a tier typed any way a person types it, a
one-call tier session's cost line, and an import failure's advice."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan.cli.show_lineage import tiers_text
from agentscan.errors import CodeChanged
from builders import claude_session_file, invoke


def _priced(query: str) -> list[dict]:
    result = invoke("prices", query, "--json")
    assert result.exit_code == 0, result.output
    return [{key: model[key] for key in ("model_id", "name", "prices")} for model in orjson.loads(result.stdout)["models"]]


@pytest.mark.parametrize(("typed", "meant"), [
    ("gpt-5.5  (Priority)", "gpt-5.5 (priority)"),  # two spaces, a capital: "no priority-tier price for 'gpt-5.5 '"
    ("gpt-5.5 (fast)", "gpt-5.5 (priority)"),  # Codex's older name of the tier
    ("gpt-5.5 (default)", "gpt-5.5"),  # the standard tier: the model's own price
    (" gpt-5.5 ( flex ) ", "gpt-5.5 (flex)"),
])
def test_a_tier_typed_any_way_is_priced_as_its_name(isolated_home: Path, typed: str, meant: str) -> None:
    assert _priced(typed) == _priced(meant)
    assert _priced(typed)[0]["model_id"] is not None


def test_a_name_with_parentheses_that_are_no_tier_is_looked_up_as_written(isolated_home: Path) -> None:
    from agentscan.pricing.aliases import typed_tier_name

    assert typed_tier_name("gpt-5.5 (preview)") == "gpt-5.5 (preview)"
    assert typed_tier_name("claude-sonnet-4-5") == "claude-sonnet-4-5"



@pytest.mark.parametrize(("tiers", "said"), [
    ({"priority": 1}, " (1 on the priority tier, of its 1 call)"),
    ({"priority": 1, "default": 2}, " (1 on the priority tier, of its 3 calls)"),
])
def test_a_tier_session_s_cost_line_counts_its_calls_in_words(tiers: dict[str, int], said: str) -> None:
    class Detail:
        extra = {"service_tiers": tiers}

    assert tiers_text(Detail()) == said  # type: ignore[arg-type]


def test_an_import_failure_says_what_to_do_when_it_comes_again() -> None:
    said = str(CodeChanged(ImportError("cannot import name 'x' from 'agentscan.y'")))
    assert "run it again" in said and "reinstall" in said


def test_a_gone_sessions_hint_trusts_no_head_of_a_replaced_transcript(isolated_home: Path) -> None:
    """``show B`` said B's records were copied in C from what ``show C`` remembered, after C was
    replaced by another transcript (a new file) that copies none of B's (review, pass 51)."""
    from test_claude_chain_show_pass51b import A, B, C, _lines, _turn

    E = "eeeeeeee-0000-4000-8000-000000000051"
    path = claude_session_file(isolated_home, C, _turn(A, 1, 100) + _turn(B, 2, 200) + _turn(C, 4, 400), mtime=1.7e9)
    assert invoke("show", C, "--json").exit_code == 0  # its chain remembered
    assert f"claude:{B}'s transcript is gone" in invoke("show", B).stderr
    other = path.with_name("other.tmp")
    other.write_bytes(_lines(_turn(A, 1, 100) + _turn(E, 2, 200) + _turn(C, 4, 400)))
    os.replace(other, path)
    assert f"claude:{B}'s transcript is gone" not in invoke("show", B).stderr


def test_an_output_that_is_this_process_s_descriptor_on_a_file_is_not_replaced(tmp_path: Path) -> None:
    """``-o /dev/stderr 2>>log.txt``: the log was replaced by the export (a new file, its old
    lines gone), as ``-o /dev/stdout >>`` was before pass 51's mend (last read); then refused.
    Written into it now, as the shell opened it (pass 52: ``atomicfile.own_descriptor``)."""
    import subprocess
    import sys

    log = tmp_path / "log.txt"
    log.write_text("OLD LOG LINE\n")
    before = log.stat().st_ino
    with log.open("ab") as stderr:
        done = subprocess.run([sys.executable, "-m", "agentscan", "--demo", "export", "-f", "jsonl", "-o", "/dev/stderr"],
                              stdout=subprocess.DEVNULL, stderr=stderr, env={**os.environ, "COLUMNS": "200"}, check=False)
    assert done.returncode == 0
    assert log.stat().st_ino == before and log.read_text().startswith("OLD LOG LINE\n{")
    assert log.read_text().count('"id"') > 2


def test_a_suggested_command_run_by_its_path_is_kept_whole_when_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Try: /venv/bin/agentscan --demo show 7f3c9a12`` (``program_word`` names the path when
    bare ``agentscan`` would not run it) was cut inside the command at 40 columns: only a
    command beginning with the word ``agentscan`` was kept whole (last read)."""
    from agentscan.cli import term

    monkeypatch.setattr(term, "stderr_is_tty", lambda: True)
    monkeypatch.setattr(term, "terminal_width", lambda: 40)
    command = "/work/venv/bin/agentscan --demo show 7f3c9a12"
    wrapped = term.fitted_error(f"error: No such command '7f3c9a12'. Try: {command} (a session's id goes after show)")
    assert any(line.strip() == command for line in wrapped.splitlines()), wrapped


def test_the_upgrade_notes_search_stays_capped_after_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once one session matched an older parser version, every later one that changed on disk
    was still tried against every older version: the cap of ``_SEARCHED`` full searches held
    only while nothing matched (last read)."""
    from types import SimpleNamespace

    from agentscan.scan import upgraded

    tried: list[str] = []

    def fingerprint_as(provider: object, ref: SimpleNamespace, ctx: object, version: str) -> str:
        tried.append(version)
        return "kept" if ref.id == "first" and version == "30" else "other"

    monkeypatch.setattr(upgraded, "_fingerprint_as", fingerprint_as)
    scanner = SimpleNamespace(provider=lambda name: SimpleNamespace(parser_version="31"), ctx=None)
    refs = [(SimpleNamespace(id="first", provider="claude"), "kept")]
    refs += [(SimpleNamespace(id=f"changed{n}", provider="claude"), "kept") for n in range(200)]
    assert upgraded.read_again_after_upgrade(scanner, refs) == 1  # type: ignore[arg-type]
    assert len(tried) <= upgraded._SEARCHED * 31 + 200
