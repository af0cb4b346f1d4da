"""Each provider declares the environment variables it reads; the registry collects them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from agentscan.providers import get_provider, provider_env_vars, register, unregister
from agentscan.providers.fake import FakeProvider

PROVIDERS = Path(__file__).resolve().parents[1] / "src" / "agentscan" / "providers"


# A string constant shaped like an environment variable name in a provider's
# source is one it reads: providers name them nowhere else.
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+|APPDATA|HOME")


def _read_in_source(name: str) -> set[str]:
    found = set()
    for path in (PROVIDERS / name).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _ENV_NAME.fullmatch(node.value):
                found.add(node.value)
    return found


def test_every_variable_a_provider_reads_is_declared() -> None:
    for name in ("claude", "codex", "gemini", "cursor"):
        read = _read_in_source(name)
        assert read, f"found no env reads in {name}: the pattern is stale"
        assert read <= set(get_provider(name).env_vars), (name, read - set(get_provider(name).env_vars))


def test_registry_collects_every_providers_variables() -> None:
    collected = provider_env_vars()
    assert len(collected) == len(set(collected))
    for name in ("claude", "codex", "gemini", "cursor"):
        assert set(get_provider(name).env_vars) <= set(collected)
    assert {"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "CURSOR_STATE_DB"} <= set(collected)


def test_a_registered_provider_adds_its_variables() -> None:
    class Fancy(FakeProvider):
        env_vars = ("FANCY_HOME",)

    register(Fancy(name="fancy"))
    try:
        assert "FANCY_HOME" in provider_env_vars()
    finally:
        unregister("fancy")
    assert "FANCY_HOME" not in provider_env_vars()
