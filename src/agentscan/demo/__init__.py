"""The small demo home shipped inside the package (``agentscan --demo``)."""

from __future__ import annotations

from pathlib import Path


def demo_home() -> Path:
    return Path(__file__).resolve().parent / "home"
