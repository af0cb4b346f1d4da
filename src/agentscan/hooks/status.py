"""For ``doctor``: are hooks installed, where do events go, what went wrong lately.

Read-only: the agents' config files are parsed, never changed; the events
store is listed, never opened for writing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

from agentscan.hooks import store
from agentscan.hooks.install import CLAUDE_EVENTS, CURSOR_EVENTS, uninstall_paths
from agentscan.hooks.merging import ours_by_event

ERROR_LINES = 5
_AGENT_ARG = re.compile(r"--agent[= ]+['\"]?([^\s'\"]+)")


def _config_report(agent: str, scope: str, path: Path, *, legacy: bool = False) -> dict[str, Any]:
    report: dict[str, Any] = {"agent": agent, "scope": scope, "path": str(path), "exists": False,
                              "events": 0, "of": len(CURSOR_EVENTS if agent == "cursor" else CLAUDE_EVENTS),
                              "command": None, "problem": None, "narrowed": [], "stored_twice": [],
                              "legacy": legacy}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return report
    except (OSError, UnicodeDecodeError) as exc:
        report.update(exists=True, problem=f"cannot read: {exc}")
        return report
    report["exists"] = True
    try:
        config = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        report["problem"] = f"not valid JSON: {exc}"
        return report
    # Judged as an install judges them (``hooks.merging``): an entry under a narrower matcher
    # counts as installed, and is said to capture only what its matcher matches.
    found = ours_by_event(agent, config) if isinstance(config, dict) else []
    report["events"] = len(found)
    report["command"] = next((ours.command for ours in found if ours.command), None)
    report["narrowed"] = [{"event": ours.event, "matchers": list(ours.narrowed)} for ours in found if ours.narrowed]
    # A second entry beside one that sees every tool: each event it sees is stored twice.
    report["stored_twice"] = [{"event": ours.event, "entries": ours.entries} for ours in found if ours.stored_twice]
    command = report["command"]
    named = _AGENT_ARG.search(command) if isinstance(command, str) else None
    if named and named.group(1) != agent:
        report["problem"] = f"the hook runs with --agent {named.group(1)}, not {agent}: it stores nothing"
    return report


def hooks_report(*, home: Path, cwd: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """Installed configs (user and project scope), the events store, the last hook errors."""
    configs = []
    seen: set[str] = set()
    for agent in ("cursor", "claude"):
        for scope in ("user", "project"):
            # The file an install writes, then (Claude, project) the shared settings.json older versions wrote.
            for index, path in enumerate(uninstall_paths(agent, scope, home=home, cwd=cwd)):
                # Run from the home directory, a project's file is the user's own (~/.claude/settings.json):
                # reported once, as the user's, and never told to be uninstalled as a project's.
                real = os.path.realpath(path)
                if real in seen:
                    continue
                report = _config_report(agent, scope, path, legacy=index > 0)
                if report["exists"]:
                    seen.add(real)
                    configs.append(report)
    root = store.data_dir(env)
    summaries = store.summaries(root)
    per_agent: dict[str, int] = {}
    for summary in summaries:
        per_agent[summary.session.agent] = per_agent.get(summary.session.agent, 0) + 1
    return {
        "installed": [c for c in configs if c["events"]],
        "configs": configs,
        "store": {"path": root, "source": store.ENV_VAR if env.get(store.ENV_VAR) else "default",
                  "exists": os.path.isdir(root), "sessions": len(summaries), "by_agent": per_agent},
        "errors": {"path": os.path.join(root, store.DIAGNOSTICS_LOG), "last": _tail(os.path.join(root, store.DIAGNOSTICS_LOG))},
    }


def _tail(path: str, count: int = ERROR_LINES, limit: int = 64 * 1024) -> list[str]:
    """The last ``count`` lines of the hook error log (reading only its last ``limit`` bytes)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            data = handle.read()
    except OSError:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    if size > limit and lines:
        lines = lines[1:]  # the first one is probably cut
    return [line for line in lines if line.strip()][-count:]
