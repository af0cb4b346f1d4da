"""``hooks status`` on a config ``hooks install`` refuses to change (a key twice, not an object,
``"hooks": []``, an event's entries not a list): it says why, as the install does, rather
than "not installed" and an install to run that only fails.  The file is never changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentscan.cli import app

runner = CliRunner()


@pytest.mark.parametrize(("agent", "relative", "text", "said"), [
    ("cursor", ".cursor/hooks.json", "[1, 2]\n", "does not hold a JSON object; agentscan will not overwrite it"),
    ("claude", ".claude/settings.json", '{"a": 1, "a": 2}\n', 'holds the key "a" twice'),
    ("claude", ".claude/settings.json", '{"hooks": [1]}\n', '"hooks" is not an object; agentscan will not change it'),
    ("cursor", ".cursor/hooks.json", '{"version": 1, "hooks": {"stop": "x"}}\n',
     "hooks.stop is not a list; agentscan will not change it"),
])
def test_a_config_an_install_refuses_is_a_problem(agent: str, relative: str, text: str, said: str,
                                                  isolated_home: Path) -> None:
    config = isolated_home / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")
    refused = runner.invoke(app, ["hooks", "install", agent])
    assert refused.exit_code == 1 and said in refused.stderr
    result = runner.invoke(app, ["hooks", "status", "--json"])
    assert result.exit_code == 0
    report = next(c for c in json.loads(result.stdout)["configs"] if c["agent"] == agent and c["scope"] == "user")
    assert report["problem"] is not None and said in report["problem"]
    assert not report["problem"].startswith(str(config))  # (the path is said beside it)
    shown = runner.invoke(app, ["hooks", "status"]).stdout
    assert f"problem: {config}: " in shown and said in shown
    assert config.read_text(encoding="utf-8") == text
