"""``list``'s costs name "adding up tokens" only when they add some up (pass 53).

``costs._with_costs`` entered the phase around the index's lookups: on a ``list --all``
after ``tokens`` (every sum kept, nothing parsed) a terminal drew "adding up tokens" and
erased it with nothing in it, and a parse's first frame read "1/500 (14/s)", the lookups'
time counted as its own.  The parse names the phase itself (``usageparse``)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from agentscan.progress import Progress
from agentscan.scan.costs import with_costs
from agentscan.scan.scanner import Scanner
from agentscan.scan.tokens import token_report
from agentscan.scan.usageparse import ADDING_UP
from builders import claude_sessions
from codex_builders import lay_out_real_codex


class _Phases(Progress):
    def __init__(self) -> None:
        super().__init__()
        self.entered: list[str] = []

    @contextmanager
    def named(self, phase: str, done: int = 0, total: int = 0) -> Iterator[None]:
        self.entered.append(phase)
        with super().named(phase, done, total):
            yield


def _phases_of_costs(scanner: Scanner) -> list[str]:
    rows = scanner.list_sessions()
    scanner.ctx.progress = progress = _Phases()
    assert [row.cost for row in with_costs(scanner, rows)]
    return progress.entered


def test_costs_of_kept_sums_name_no_phase(isolated_home: Path) -> None:
    claude_sessions(isolated_home, 3)
    with Scanner(use_cache=True) as scanner:
        token_report(scanner)  # every sum kept
    with Scanner(use_cache=True) as scanner:
        assert ADDING_UP not in _phases_of_costs(scanner)


def test_costs_that_parse_still_name_it(isolated_home: Path) -> None:
    lay_out_real_codex(isolated_home)  # (a Codex row keeps no sums: its costs parse them)
    with Scanner(use_cache=True) as scanner:
        assert ADDING_UP in _phases_of_costs(scanner)
