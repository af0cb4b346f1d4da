"""A remembered answer (``scan.answers``: a ``tokens`` report, a ``list`` page) is printed
without importing orjson or the model: orjson imports ``dataclasses`` (with ``inspect``,
``ast`` and ``dis``), ``uuid`` and ``json``, and the model makes its dataclasses, a quarter
of a warm run (docs/architecture.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders import claude_assistant, claude_session_file, claude_usage, claude_user
from test_fastpath import SESSION, build_home


_IMPORTS_OF_A_RUN = (
    "import sys; sys.argv[0] = 'agentscan'\n"
    "import agentscan.scan.memo\n"
    "agentscan.scan.memo.SETTLE_NS = 0  # the home was just written: as conftest does in-process\n"
    "from agentscan.entry import main\n"
    "try:\n    main()\n"
    "finally:\n    print('imported:', *(name for name in ('orjson', 'dataclasses', 'agentscan.model', 'agentscan.pricing.book')\n"
    "                                      if name in sys.modules), file=sys.stderr)\n"
)


def _claude_only(home: Path) -> None:
    ts = "2026-05-01T10:00:00Z"
    claude_session_file(home, SESSION, [
        claude_user(SESSION, ts, "fix the parser", cwd="/work/app"),
        claude_assistant(SESSION, ts, msg_id="m1", request_id="r1", usage=claude_usage(120, 30, 400, 9000), cwd="/work/app"),
    ])


def _prices_fetched_once(home: Path) -> None:
    """``prices --update`` ran for an older genai-prices: its description is there (the
    bundled data is used), and a warm run must not read it to know that nothing changed."""
    from agentscan.pricing import source

    _claude_only(home)
    folder = source.prices_dir(os.environ)
    folder.mkdir(parents=True)
    (folder / source.META_FILE).write_text('{"library_version": "0.0.1", "sha256": "ab", "fetched_at": "2026-01-01"}')
    (folder / source.DATA_FILE).write_text("[]")


def _every_provider(home: Path) -> None:
    from cursor_builders import copy_real_dot_cursor

    build_home(home)  # a real Codex session's model has no price: a warning on every run
    copy_real_dot_cursor(home)


@pytest.mark.parametrize(("argv", "home", "imported"), [
    (["list"], _every_provider, []),
    (["tokens"], _every_provider, []),
    (["list", "--json"], _claude_only, []),
    (["tokens", "--json"], _claude_only, []),
    (["list"], _prices_fetched_once, []),
    (["tokens", "--json"], _prices_fetched_once, []),
    # The warning is said in JSON (orjson, which imports ``dataclasses``), still without the model.
    (["list", "--json"], _every_provider, ["orjson", "dataclasses"]),
    (["tokens", "--json"], _every_provider, ["orjson", "dataclasses"]),
])
def test_a_remembered_answer_is_printed_without_orjson_or_the_model(argv: list[str], home, imported: list[str],  # noqa: ANN001
                                                                    isolated_home: Path) -> None:
    """A first run imports them; the second prints the same bytes without: a warning said
    again too."""
    home(isolated_home)
    done = [subprocess.run([sys.executable, "-c", _IMPORTS_OF_A_RUN, *argv], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ)) for _ in range(2)]
    assert all(run.returncode == 0 and run.stdout for run in done), done[0].stderr
    made, printed = (run.stderr.rsplit("imported:", 1) for run in done)
    assert made[1].split() == ["orjson", "dataclasses", "agentscan.model", "agentscan.pricing.book"], made[1]
    assert printed[1].split() == imported, printed[1]
    assert done[1].stdout == done[0].stdout and printed[0] == made[0]
    warned = "no price" in done[0].stdout + done[0].stderr
    assert warned == (home is _every_provider)
