"""The Gemini part of the demo home: both formats, a subagent, a rewind, both cwd routes."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agentscan.scan.scanner import Scanner
from agentscan.cli import app
from agentscan.demo import demo_home

LEGACY = "gemini:9b7d3e41-2a6c-4f8b-a3d5-7c1e9f0b2d46"
JSONL = "gemini:5e1f0c2a-7d3b-4a9e-b1c6-2f8e0d4a6c13"


def invoke(*args: str) -> dict:
    result = CliRunner().invoke(app, ["--demo", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_demo_list_shows_gemini_sessions() -> None:
    document = invoke("list")
    rows = {row["id"]: row for row in document["sessions"]}
    assert {LEGACY, JSONL} <= set(rows)
    assert document["warnings"] == []
    # A slug dir with .project_root, and a sha256 dir whose root only the
    # Claude demo sessions know.
    assert rows[JSONL]["cwd"] == "/home/demo/src/recipe-api"
    assert rows[LEGACY]["cwd"] == "/home/demo/src/weather-app"
    assert rows[JSONL]["subagents"] == 1
    # Legacy chat, three replies:
    # input (8240-0) + (10985-6144) + (12630-10240) = 8240 + 4841 + 2390 = 15471
    # cached 0 + 6144 + 10240 = 16384; output (41+388) + (118+514) + (402+221) = 1684
    assert rows[LEGACY]["tokens"] == {
        "input": 15471, "cache_read": 16384, "cache_write": 0, "output": 1684, "reasoning": 1123, "total": 33539,
    }


def test_demo_show_marks_the_rewound_turn() -> None:
    detail = Scanner(home=demo_home(), provider_names=["gemini"]).show(JSONL)
    assert detail.extra["rewound_messages"] == 2
    assert [p.text for p in detail.prompts] == [
        "Add a /recipes/search endpoint that matches recipes by ingredient, with tests.",
        "Don't skip it. Find out why plurals don't match and fix it properly.",
    ]
    assert [t.status for t in detail.tools].count("error") == 1
    assert [s.id for s in detail.subagents] == ["q7k2mx"]
