"""Every third-party module agentscan imports is a dependency it declares (pyproject.toml),
never one that only arrives through another package."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    specs += [spec for name, extra in project["optional-dependencies"].items() if name not in ("test", "lint") for spec in extra]
    return {_normal(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in specs}


def _imported() -> dict[str, set[str]]:
    """Top-level module -> the source files that import it (function-level imports included)."""
    found: dict[str, set[str]] = {}
    for path in (REPO / "src" / "agentscan").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top != "agentscan" and top not in sys.stdlib_module_names and top != "__future__":
                    found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def test_every_imported_distribution_is_declared() -> None:
    owners = packages_distributions()
    imported = _imported()
    assert "genai_prices" in imported and "httpx2" in imported  # the scan sees function-level imports
    missing = {module: sorted(files) for module, files in imported.items()
               if not {_normal(dist) for dist in owners.get(module, [module])} & _declared()}
    assert missing == {}


def test_only_the_price_update_imports_an_http_client() -> None:
    """The network is touched only by `agentscan prices --update` (and OTLP's explicit --endpoint)."""
    imported = _imported()
    assert imported["httpx2"] == {"src/agentscan/pricing/update.py"}
