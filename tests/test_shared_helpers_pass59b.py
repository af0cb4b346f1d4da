"""Rules written twice, now written once (pass 59, a final reader's mends):

* a Gemini CLI settings file as Gemini CLI reads it (``geminionce.SettingsFiles.as_read``):
  ``hooks install``'s note of the other scope's entries (``installed_elsewhere``) blanked its
  comments itself, and read a file with comments twice;
* that ``codex`` is a provider, not an id, is the events store's to say (``storedids.resolve``),
  an empty store too: ``trace`` said it again only because the store said "none captured" first;
* an id ``trace`` looked up in the home already (a bare Codex id) is not looked up again to
  say that ``show`` opens it;
* a provider's display name from ``providers.label_of``, which imports no provider.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import agentscan

SRC = Path(agentscan.__file__).parent
OURS = '{"type": "command", "name": "agentscan", "command": "agentscan hook --agent gemini"}'


def test_a_gemini_settings_file_elsewhere_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentscan.cli.hooks_text import elsewhere_warnings
    from agentscan.hooks import geminionce, install

    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('// mine\n{"hooks": {"SessionStart": [{"hooks": [' + OURS + ']}]}}', encoding="utf-8")
    reads: list[Path] = []

    def counted(read: Any) -> Any:
        def reading(path: Path) -> str:
            reads.append(Path(path))
            return str(read(path))
        return reading

    monkeypatch.setattr(geminionce, "read_regular_text", counted(geminionce.read_regular_text))
    monkeypatch.setattr(install, "read_regular_text", counted(install.read_regular_text))
    monkeypatch.setenv("HOME", str(home))
    written = '{"hooks": {"SessionStart": [{"hooks": [' + OURS.replace('"agentscan"', '"mine"') + ']}]}}'
    [warning] = elsewhere_warnings("gemini", "project", cwd / ".gemini" / "settings.json", home, cwd, None, written)
    assert warning.path == str(settings) and "it holds comments" in warning.message, warning
    # (found by ``installed_elsewhere``, judged by ``files_run_twice``: read once; Gemini CLI's system
    # files, which it reads too, looked for once each: ``hooks.elsewhere``)
    assert reads[0] == settings and len(reads) == len(set(reads)) == 3, reads


@pytest.mark.parametrize("query", ["codex", "codex:", " Codex "])
def test_the_store_refuses_a_provider_with_no_hooks_when_empty_too(query: str) -> None:
    from agentscan.errors import NoHookEvents, ProviderNotId
    from agentscan.hooks import storedids

    with pytest.raises(ProviderNotId) as refused:
        storedids.resolve(query, [])
    assert not isinstance(refused.value, NoHookEvents) and refused.value.shown_by is None
    with pytest.raises(NoHookEvents) as empty:  # (one with hooks: an install fills the store)
        storedids.resolve("claude", [])
    assert empty.value.store_empty
    # ``trace`` no longer says it again
    assert "ProviderNotId" not in (SRC / "cli" / "trace_unhooked.py").read_text(encoding="utf-8")


def test_an_id_trace_resolved_is_not_resolved_again() -> None:
    from agentscan.cli.trace_unhooked import unhooked_said
    from agentscan.errors import NoHookEvents
    from agentscan.invocation import command, hint

    def scanner(*_: Any, **__: Any) -> Any:
        raise AssertionError("looked up again")

    found = "codex:0199aaaa-bbbb-7ccc-8ddd-eeeeffff0759"
    state = SimpleNamespace(demo=False, home=None, scanner=scanner)
    said = unhooked_said(found, NoHookEvents(found, store_empty=False), state, resolved=found)  # type: ignore[arg-type]
    assert said.details == (hint(command(f"show {found}"), "shows it"),)


def test_a_providers_label_is_said_without_importing_it() -> None:
    writing = sorted(str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
                     if "providers" not in path.relative_to(SRC).parts[:1]
                     and re.search(r"get_provider\([^)]*\)\.label", path.read_text(encoding="utf-8")))
    assert writing == [], writing
