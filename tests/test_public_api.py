"""The library's public surface: pinned, importable, and free to import."""

from __future__ import annotations

import subprocess
import sys

import agentscan

PUBLIC = [
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
    "__version__",
    "demo_home",
    "export_sessions",
    "token_report",
    "with_costs",
]


def test_all_is_pinned() -> None:
    # A change here is an API change: update the README and docs/architecture.md too.
    assert sorted(agentscan.__all__) == sorted(PUBLIC)


def test_every_public_name_resolves_to_its_defining_object() -> None:
    from agentscan.model import SessionRow
    from agentscan.scan.scanner import Scanner
    from agentscan.scan.tokens import token_report

    for name in agentscan.__all__:
        assert getattr(agentscan, name) is not None, name
    assert agentscan.Scanner is Scanner and agentscan.token_report is token_report and agentscan.SessionRow is SessionRow


def test_unknown_names_raise_attribute_error() -> None:
    try:
        agentscan.not_a_name  # noqa: B018
    except AttributeError as exc:
        assert "not_a_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_importing_the_package_imports_nothing_heavy() -> None:
    code = "import sys, agentscan; print(sorted(m for m in sys.modules if m.startswith('agentscan')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['agentscan']"


def test_the_show_values_load_only_when_named() -> None:
    # ``list`` and ``tokens`` import agentscan.model; show's dataclasses must not come with it.
    code = (
        "import sys, agentscan.model; before = 'agentscan.detailmodel' in sys.modules\n"
        "from agentscan import SessionDetail\n"
        "import agentscan.detailmodel as d\n"
        "print(before, SessionDetail is d.SessionDetail)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_every_public_type_has_resolvable_hints() -> None:
    """``typing.get_type_hints`` (dataclass tooling, pydantic, IDEs) works on every public class."""
    import typing

    import agentscan

    classes = [getattr(agentscan, name) for name in agentscan.__all__ if isinstance(getattr(agentscan, name), type)]
    assert len(classes) >= 10
    for cls in classes:
        typing.get_type_hints(cls)


def test_the_readme_example_runs(isolated_home) -> None:
    scanner = agentscan.Scanner(home=isolated_home)
    with scanner:
        assert scanner.list_sessions(limit=5) == []
        assert agentscan.token_report(scanner, by="model").to_json()["rows"] == []


def test_all_and_the_lazy_table_agree() -> None:
    assert set(agentscan.__all__) - {"__version__"} == set(agentscan._EXPORTS)


def test_with_costs_gives_clean_exact_decimals(isolated_home) -> None:
    """What the README's example prints: ``0.33195``, the exact sum, not ``0.331950000000000000…``."""
    from decimal import Decimal

    from pricing_builders import HAIKU_CALL, SONNET_CALL_1, SONNET_CALL_2, claude_sonnet_session

    claude_sonnet_session(isolated_home)
    with agentscan.Scanner(home=isolated_home) as scanner:
        (row,) = agentscan.with_costs(scanner, scanner.list_sessions(limit=5))
        report = agentscan.token_report(scanner)
    assert row.cost == SONNET_CALL_1 + SONNET_CALL_2 + HAIKU_CALL
    assert str(row.cost) == "0.33195" and isinstance(row.cost, Decimal)
    (token_row,) = report.rows
    assert [str(c) for c in (token_row.cost, token_row.own_cost, *token_row.subagent_costs, report.cost)] == [
        "0.33195", "0.32685", "0.0051", "0.33195"]


def test_the_demo_home_is_public_and_reads_as_demo_does() -> None:
    # (pass 46: the README's library example showed nothing on a fresh machine, and the CLI's
    # ``--demo`` had no library counterpart)
    from agentscan import Scanner, demo_home, token_report

    with Scanner(home=demo_home(), env={}) as scanner:
        rows = scanner.list_sessions()
        report = token_report(scanner)
    assert {row.provider for row in rows} == {"claude", "codex", "gemini", "cursor"}
    assert report.total is not None and report.total.total > 0
