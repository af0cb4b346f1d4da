"""agentscan: find the sessions AI coding agents leave on a machine.

The public library API, importable from here::

    from agentscan import Scanner, token_report, with_costs

    with Scanner() as scanner:                 # or Scanner(home="/mnt/old-laptop")
        # (the demo's sessions, as ``--demo``: Scanner(home=demo_home(), env={}))
        for row in scanner.list_sessions(limit=5):
            print(row.id, row.title)
        print(token_report(scanner, by="model").to_json())   # with cost_usd
        for row in with_costs(scanner, scanner.list_sessions(limit=5)):
            print(row.id, row.cost)                                  # USD (an exact Decimal: 0.33195), or None

Names are resolved lazily (PEP 562), so ``import agentscan`` costs nothing
and ``agentscan --help`` stays fast.  Everything else is internal and may
move between releases.
"""

from __future__ import annotations

# typing is not imported at run time: ``agentscan --help`` would pay for it.
TYPE_CHECKING = False

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "Scanner": "agentscan.scan.scanner",
    "ListFilter": "agentscan.scan.listfilter",
    "token_report": "agentscan.scan.tokens",
    "with_costs": "agentscan.scan.costs",
    "TokenReport": "agentscan.scan.tokenreport",
    "TokenRow": "agentscan.scan.tokenreport",
    "Counts": "agentscan.model",
    "PlanStep": "agentscan.detailmodel",
    "Prompt": "agentscan.detailmodel",
    "Response": "agentscan.detailmodel",
    "ScanWarning": "agentscan.model",
    "SessionDetail": "agentscan.detailmodel",
    "SessionRef": "agentscan.model",
    "SessionRow": "agentscan.model",
    "SubagentInfo": "agentscan.detailmodel",
    "TokenUsage": "agentscan.model",
    "ToolEvent": "agentscan.detailmodel",
    "UsageEntry": "agentscan.model",
    "AgentscanError": "agentscan.errors",
    "demo_home": "agentscan.demo",
    "export_sessions": "agentscan.export.api",
    "ExportResult": "agentscan.export.run",
}

# A literal list, so linters and type checkers see the re-exports.
__all__ = [
    "__version__",
    "AgentscanError",
    "Counts",
    "ExportResult",
    "ListFilter",
    "PlanStep",
    "Prompt",
    "Response",
    "ScanWarning",
    "Scanner",
    "SessionDetail",
    "SessionRef",
    "SessionRow",
    "SubagentInfo",
    "TokenReport",
    "TokenRow",
    "TokenUsage",
    "ToolEvent",
    "UsageEntry",
    "demo_home",
    "export_sessions",
    "token_report",
    "with_costs",
]

if TYPE_CHECKING:
    from typing import Any

    from agentscan.demo import demo_home
    from agentscan.detailmodel import PlanStep, Prompt, Response, SessionDetail, SubagentInfo, ToolEvent
    from agentscan.errors import AgentscanError
    from agentscan.export.api import export_sessions
    from agentscan.export.run import ExportResult
    from agentscan.model import Counts, ScanWarning, SessionRef, SessionRow, TokenUsage, UsageEntry
    from agentscan.scan.listfilter import ListFilter
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.costs import with_costs
    from agentscan.scan.tokenreport import TokenReport, TokenRow
    from agentscan.scan.tokens import token_report


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentscan' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
