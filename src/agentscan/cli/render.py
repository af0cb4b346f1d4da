"""Output for people (tables) and scripts (one JSON document).

Rich is used only when stdout is a terminal and ``NO_COLOR`` is unset; pipes
and cron get plain aligned text, which is also faster to start.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime
from decimal import Decimal
from typing import Any, Sequence

import orjson

from agentscan.model import ScanWarning, TokenUsage


def emit_json(document: dict[str, Any]) -> None:
    sys.stdout.buffer.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def envelope(command: str, body: dict[str, Any], warnings: Sequence[ScanWarning]) -> dict[str, Any]:
    return {"schema": f"agentscan.{command}/1", **body, "warnings": [w.to_json() for w in warnings]}


def fancy() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, title: str | None = None, right: Sequence[int] = ()) -> None:
    if fancy():
        from rich.console import Console
        from rich.table import Table

        rich_table = Table(title=title, show_lines=False, header_style="bold")
        for index, header in enumerate(headers):
            rich_table.add_column(header, justify="right" if index in right else "left", overflow="fold")
        for row in rows:
            rich_table.add_row(*row)
        Console().print(rich_table)
        return
    if title:
        print(title)
    widths = [len(h) for h in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))
    def fmt(cells: Sequence[str]) -> str:
        parts = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells)]
        return "  ".join(parts).rstrip()
    print(fmt(headers))
    for row in rows:
        print(fmt(row))


def warn_summary(warnings: Sequence[ScanWarning], *, verbose: bool = False) -> None:
    if not warnings:
        return
    shown = warnings if verbose else warnings[:5]
    for warning in shown:
        where = f"{warning.path}:{warning.line}" if warning.line else warning.path
        print(f"warning: {where}: {warning.message}", file=sys.stderr)
    if len(warnings) > len(shown):
        print(f"warning: … {len(warnings) - len(shown)} more (use --json to see all)", file=sys.stderr)


def short_time(value: datetime | None) -> str:
    if value is None:
        return "-"
    return value.astimezone().strftime("%Y-%m-%d %H:%M")


def human_tokens(usage: TokenUsage | None) -> str:
    if usage is None:
        return "-"
    return compact_number(usage.total)


def human_usd(cost: Decimal | None) -> str:
    """Dollars rounded to the cent for people; JSON keeps the exact value."""
    if cost is None:
        return "-"
    if 0 < cost < Decimal("0.01"):
        return "<$0.01"
    return f"${cost:,.2f}"


def compact_number(value: int) -> str:
    for limit, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if value >= limit:
            return f"{value / limit:.1f}{suffix}"
    return str(value)


def ellipsize(text: str | None, width: int) -> str:
    if not text:
        return "-"
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def home_short(path: str | None) -> str:
    if not path:
        return "-"
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home and home != "/" and path.startswith(home + "/") else path
