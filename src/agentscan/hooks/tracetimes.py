"""A trace's times as a person reads them: a call's duration (``41 ms``, ``2m12s``) and
when a session's events were captured (local time, to the second).

Apart from ``text.py`` (the tree's layout) because these are rules of their own that
``--json`` does not follow: it keeps the milliseconds and the UTC instants.
"""

from __future__ import annotations

from agentscan.hooks.model import Node


def duration_ms(node: Node) -> float | None:
    """A node's milliseconds: the agent's own measure, else its events' span; ``None``: neither."""
    value = node.detail.get("duration_ms")
    if isinstance(value, (int, float)):
        return float(value)  # the agent's own measure (a wave's is its span)
    if node.started_ns is not None and node.ended_ns is not None and node.ended_ns > node.started_ns:
        return (node.ended_ns - node.started_ns) / 1e6
    return None


def seconds_text(ms: float) -> str:
    """``41 ms``, ``12.5 s``; from a minute on, ``2m12s`` (and ``1h05m``): ``132.0 s`` is read
    slowly.  ``--json`` keeps the milliseconds."""
    if ms < 999.5:  # what ``.0f`` would round up to 1000 ms is said as 1.0 s
        return f"{ms:.0f} ms"
    if ms < 59_950:  # what ``.1f`` would round up to 60.0 s is said as 1m00s
        return f"{ms / 1000:.1f} s"
    seconds = round(ms / 1000)
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    minutes = round(seconds / 60)
    return f"{minutes // 60}h{minutes % 60:02d}m"


def captured_between(start_ns: int | None, end_ns: int | None) -> str:
    """Local time to the second, as ``trace --list`` and every other table shows time (to the
    minute there): ``2026-12-04 23:31:10 .. 23:31:11``, the end's date only when it differs.
    ``--json`` keeps the UTC instants."""
    from datetime import datetime, timezone

    def local(ns: int) -> datetime:
        return datetime.fromtimestamp(ns / 1e9, timezone.utc).astimezone()

    if start_ns is None and end_ns is None:
        return "-"
    start = local(start_ns).strftime("%Y-%m-%d %H:%M:%S") if start_ns is not None else "-"
    if end_ns is None:
        return f"{start} .. -"
    end = local(end_ns)
    same_day = start_ns is not None and local(start_ns).date() == end.date()
    return f"{start} .. {end.strftime('%H:%M:%S' if same_day else '%Y-%m-%d %H:%M:%S')}"
