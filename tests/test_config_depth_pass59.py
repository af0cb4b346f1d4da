"""A hook config nested too deeply, met in one place (pass 59).

``configjson.parse``, ``configreport.config_report`` and ``geminionce.SettingsFiles.as_read``
each caught ``RecursionError`` their own way (three depths, one of them twice over); now
``configjson.loads`` turns it into ``TooDeep`` (a ``ValueError``) and ``configjson.reason`` words
it, for each of them.  And ``SettingsFiles`` kept three hand-written memos: one now, each file
read once, its error kept and raised again.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from agentscan.errors import HookConfigError
from agentscan.hooks import configjson, configreport, geminionce
from agentscan.hooks.configjson import TOO_DEEP

DEEP = '{"a": ' + "[" * 200_000 + "]" * 200_000 + "}"


def test_only_configjson_meets_a_recursion_error() -> None:
    """Failed before: the other two caught it themselves."""
    assert "RecursionError" not in inspect.getsource(configreport) + inspect.getsource(geminionce)
    assert inspect.getsource(configjson).count("except RecursionError") == 1


@pytest.mark.parametrize("text", [DEEP, "// note\n" + DEEP, "// note\n" + DEEP + ",,"], ids=["plain", "commented", "bad"])
def test_each_reader_says_too_deep_in_its_own_words(tmp_path: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(HookConfigError) as refused:
        configjson.parse(path, text, "gemini")
    assert str(refused.value) == f"{path} {TOO_DEEP}; agentscan will not overwrite it"
    assert configreport.config_report("gemini", "user", path)["problem"] == TOO_DEEP
    assert geminionce.SettingsFiles().as_read(path) == geminionce.Unjudged(TOO_DEEP)


def test_a_settings_file_is_read_once_and_its_error_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[Path] = []
    real = geminionce.read_regular_text

    def counted(path: Path) -> str:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(geminionce, "read_regular_text", counted)
    files = geminionce.SettingsFiles()
    good, bad, gone = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "gone.json"
    good.write_text('{"hooks": {}}')
    bad.write_text("// c\n{,}")
    for _ in range(2):
        assert files.as_read(good) == files.parsed(good) == {"hooks": {}}
        assert files.text(good) == '{"hooks": {}}'
        assert isinstance(files.as_read(bad), geminionce.Unjudged)
        with pytest.raises(HookConfigError):
            files.parsed(bad)
    with pytest.raises(FileNotFoundError) as first:
        files.as_read(gone)
    with pytest.raises(FileNotFoundError) as again:
        files.parsed(gone)
    assert again.value is first.value
    assert sorted(reads) == sorted([good, bad, gone])


def _nested(agent: str, depth: int, before: str = "") -> str:
    # (a list of lists under an event: read as it was; its entries are no hooks of anyone's)
    event, extra = ("stop", '"version": 1, ') if agent == "cursor" else ("SessionStart", "")
    return before + '{' + extra + '"hooks": {"' + event + '": ' + "[" * depth + "]" * depth + "}}"


@pytest.mark.parametrize("depth", [500, 900])
@pytest.mark.parametrize("agent", ["claude", "gemini", "cursor"])
def test_an_install_and_uninstall_copy_a_config_as_deep_as_one_is_read(tmp_path: Path, agent: str, depth: int) -> None:
    """Failed before: ``copy.deepcopy`` (two frames a level) raised ``RecursionError`` out of
    ``hooks install``/``uninstall`` on a config ``loads`` read fine."""
    from agentscan.hooks import install

    path = tmp_path / "hooks.json"
    path.write_text(_nested(agent, depth))
    values = configjson.loads(path.read_text())
    installed = install.plan(agent, path, install=True, command=install.hook_command(agent))
    assert installed.added
    install.write(installed)
    uninstalled = install.plan(agent, path, install=False)
    install.write(uninstalled)
    assert configjson.loads(path.read_text()) == values  # its own values kept, ours gone again


@pytest.mark.parametrize("install_it", [True, False], ids=["install", "uninstall"])
@pytest.mark.parametrize("agent", ["claude", "gemini", "cursor"])
def test_no_depth_meets_a_recursion_error_and_a_refused_file_is_kept(tmp_path: Path, agent: str, install_it: bool) -> None:
    """Every depth up to past the one ``loads`` reads: planned, or refused as too deep with the
    file as it was (before: a ``RecursionError`` from 500 levels on)."""
    from agentscan.hooks import install

    path = tmp_path / "hooks.json"
    refused = 0
    for depth in range(400, 1100, 20):
        text = _nested(agent, depth)
        path.write_text(text)
        try:
            install.plan(agent, path, install=install_it, command=install.hook_command(agent))
        except HookConfigError as exc:
            assert str(exc) == f"{path} {TOO_DEEP}; agentscan will not overwrite it"
            refused += 1
        assert path.read_text() == text
    assert refused  # (the loop does reach a depth refused)


@pytest.mark.parametrize("install_it", [True, False], ids=["install", "uninstall"])
def test_a_deep_gemini_file_with_comments_is_refused_for_its_comments(tmp_path: Path, install_it: bool) -> None:
    from agentscan.hooks import install

    path = tmp_path / "settings.json"
    for depth in (500, 900):
        path.write_text(_nested("gemini", depth, "// note\n"))
        with pytest.raises(HookConfigError, match="holds comments"):
            install.plan("gemini", path, install=install_it, command=install.hook_command("gemini"))
