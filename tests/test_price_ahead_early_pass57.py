"""A first ``tokens`` forks its price helper before the scanner and its index are made
(``scan.priceahead.start_early``, ``cli.state.start_prices_before_the_index``).

With no index file yet nothing can be priced from it, so the helper's imports need not wait
for the scanner's imports and the index's creation: forked then, they ran further into the
parse, beside both workers.  The helper forked early is the one the run asks (its answers
the library's own: the report is the one a run priced here prints), and any other run starts
its helper as before.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from agentscan.pricing.access import AHEAD
from agentscan.scan import priceahead
from agentscan.scan.cachefile import FILE_NAME, cache_dir
from agentscan.scan.scanner import Scanner
from agentscan.toolkit import cores, helperproc
from builders import cli_json
from pricing_builders import claude_sonnet_session, claude_unknown_model_session


def _forks_noted(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the index file was there as each helper was forked (a list the runs fill)."""
    index_there: list[bool] = []
    real_start = helperproc.Helper.start

    def start(self: helperproc.Helper) -> None:
        index_there.append((cache_dir(os.environ) / FILE_NAME).exists())
        real_start(self)

    monkeypatch.setattr(helperproc.Helper, "start", start)
    monkeypatch.setattr(priceahead, "_imported", lambda: False)  # this test process imported it long ago
    monkeypatch.setattr(cores, "usable_workers", lambda limit=8: 2)
    return index_there


def test_a_first_tokens_forks_its_helper_before_the_index_is_made(isolated_home: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    claude_sonnet_session(isolated_home)
    claude_unknown_model_session(isolated_home)
    here = cli_json("--no-cache", "tokens")  # priced in this process (the helpers are not patched yet)
    index_there = _forks_noted(monkeypatch)
    taken: list = []
    real_start = priceahead.start

    def start(scanner: Scanner) -> None:
        real_start(scanner)
        taken.append(scanner.ctx.memo.get(AHEAD))

    monkeypatch.setattr(priceahead, "start", start)
    helped = cli_json("tokens")
    assert index_there == [False]  # one helper, forked before the index file was made
    assert taken and taken[0] is not None and taken[0].answered  # that one priced the report
    assert taken[0]._helper.pid is None and priceahead._live == [] and priceahead._early == []  # stopped with the run
    assert orjson.dumps(helped) == orjson.dumps(here)
    assert cli_json("tokens") == here  # its prices were kept in the index


def test_a_run_with_an_index_starts_its_helper_as_before(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index (here an empty one: ``tokens -p`` of a provider with no session) may hold the
    prices: nothing is forked before it is read, and what it holds decides as before."""
    claude_sonnet_session(isolated_home)
    cli_json("tokens", "-p", "gemini")  # an index, holding no price
    index_there = _forks_noted(monkeypatch)
    first = cli_json("tokens")
    assert index_there == [True]  # forked by ``start``, once the index was read
    index_there.clear()
    assert cli_json("tokens") == first
    assert index_there == []  # its prices are kept now: no helper at all


def test_a_helper_forked_early_and_not_taken_is_stopped(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One the run has no use for (the library was imported meanwhile, here) is stopped by
    ``start``, not left to ``stop_all``."""
    _forks_noted(monkeypatch)
    priceahead.start_early(dict(os.environ))
    assert len(priceahead._early) == 1
    early = priceahead._early[0]
    try:
        monkeypatch.setattr(priceahead, "_imported", lambda: True)
        with Scanner(env=dict(os.environ), use_cache=True) as scanner:
            priceahead.start(scanner)
            assert AHEAD not in scanner.ctx.memo
        assert priceahead._early == [] and early._helper.pid is None and priceahead._live == []
    finally:
        priceahead.stop_all()


def test_a_refused_tokens_forks_no_helper(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Review of pass 57: the early fork came before ``--since``/``--until`` were read and ``--home``
    # checked, so ``tokens --since bogus`` forked (and stopped) a price helper to say a usage error.
    claude_sonnet_session(isolated_home)
    forks: list[object] = []
    monkeypatch.setattr(priceahead, "start_early", forks.append)
    from builders import invoke

    for args in (("tokens", "--since", "bogus"), ("tokens", "--since", "2026-12-01", "--until", "2026-11-01"),
                 ("--home", str(isolated_home / "no-such-dir"), "tokens"), ("tokens", "-p", "no-such-agent")):
        result = invoke(*args)
        assert result.exit_code in (1, 2) and "error:" in result.stderr, (args, result.stderr)
        assert forks == [], args
    assert invoke("tokens").exit_code == 0 and len(forks) == 1  # (an accepted one still forks it first)
