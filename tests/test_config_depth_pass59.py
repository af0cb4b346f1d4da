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
