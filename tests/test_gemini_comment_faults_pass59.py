"""A Gemini CLI settings file with comments that is no JSON even without them (pass 59):
its fault said where Gemini CLI meets it, and ``hooks status`` and ``hooks install`` saying
the same thing of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentscan.errors import HookConfigError
from agentscan.hooks import configjson, configreport
from agentscan.hooks.geminionce import listed_before


def _both(tmp_path: Path, text: str) -> tuple[str | None, str]:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(HookConfigError) as refused:  # (as ``hooks install`` parses it: ``listed_before``)
        configjson.parse(path, text, "gemini", wrapped=listed_before("user", ()))
    return configreport.config_report("gemini", "user", path)["problem"], str(refused.value).removeprefix(f"{path} ")


def test_a_fault_past_the_comments_is_said_where_it_is(tmp_path: Path) -> None:
    """Failed before: "expecting value at line 1, column 1", the comment itself."""
    status, install = _both(tmp_path, '// c\n{"a":1,}')
    assert status == "not valid JSON: expecting property name enclosed in double quotes at line 2, column 8"
    assert install == ("is not valid JSON (expecting property name enclosed in double quotes at line 2, column 8); "
                       "fix it first, agentscan will not overwrite it")


def test_nan_under_comments_is_no_json_to_status_and_install_alike(tmp_path: Path) -> None:
    """Failed before: ``hooks install`` said "holds comments … remove them" (and removing them
    left a NaN it refused next), ``hooks status`` "NaN is not JSON"."""
    status, install = _both(tmp_path, '// c\n{"a": NaN}')
    # (where the word is: pass 60)
    assert status == "not valid JSON: NaN is not JSON at line 2, column 7"
    assert install == "is not valid JSON (NaN is not JSON at line 2, column 7); fix it first, agentscan will not overwrite it"
    assert not configjson.commented('// c\n{"a": Infinity}')


def test_a_file_without_comments_keeps_its_fault(tmp_path: Path) -> None:
    status, install = _both(tmp_path, '{"a":1,}')
    assert status == "not valid JSON: expecting property name enclosed in double quotes at line 1, column 8"
    assert install.startswith("is not valid JSON (expecting property name enclosed in double quotes at line 1, column 8)")


def test_another_agents_file_is_read_as_plain_json(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('// c\n{"a":1,}')
    assert configreport.config_report("claude", "user", path)["problem"] == "not valid JSON: expecting value at line 1, column 1"


@pytest.mark.parametrize(("text", "then"), [
    ("// c\n[1]", "does not hold a JSON object; agentscan will not overwrite it"),
    ("// c\nnull", "does not hold a JSON object; agentscan will not overwrite it"),
    ('// c\n{"hooks": []}', '"hooks" is not an object; agentscan will not change it'),
    # (an object there is one more matcher group Gemini CLI runs: ``test_hooks_object_mends_pass61``)
    ('// c\n{"hooks": {"SessionStart": "x"}}', "hooks.SessionStart is not a list; agentscan will not change it"),
    ('// c\n{"a": 1, "a": 2}', 'holds the key "a" twice'),
], ids=["list", "null", "hooks-list", "event-string", "key-twice"])
def test_a_commented_file_names_what_removing_the_comments_would_meet_next(tmp_path: Path, text: str, then: str) -> None:
    """Failed before: only "holds comments … remove them"; removing them met the next refusal."""
    status, install = _both(tmp_path, text)
    assert install == status
    assert install.startswith(f"{configjson.GEMINI_COMMENTS}; and without them: {then}")


def test_a_commented_file_with_nothing_else_wrong_says_its_comments_alone(tmp_path: Path) -> None:
    status, install = _both(tmp_path, '// c\n{"hooks": {}}')
    assert install == status == configjson.GEMINI_COMMENTS
