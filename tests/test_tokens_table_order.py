"""``tokens``' table lists sessions newest first by their DATE (what each recorded last), as
``list`` does: file times are only a bound of it (a copied home, the installed ``--demo``,
has them all alike or shuffled).  ``--json`` keeps its order (newest file first)."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from agentscan.cli import app
from builders import claude_assistant, claude_session_file, claude_usage, claude_user

runner = CliRunner()
SESSIONS = {  # native id -> (recorded day, file mtime): the newest recorded has the oldest file
    "11111111-0000-4000-8000-000000000001": ("2026-11-03", 1_790_000_000),
    "22222222-0000-4000-8000-000000000002": ("2026-11-01", 1_790_000_300),
    "33333333-0000-4000-8000-000000000003": ("2026-11-02", 1_790_000_200),
}


def test_the_table_is_newest_first_by_date(isolated_home: Path) -> None:
    for native, (day, mtime) in SESSIONS.items():
        claude_session_file(isolated_home, native, [
            claude_user(native, f"{day}T10:00:00Z", "hello"),
            claude_assistant(native, f"{day}T10:00:05Z", msg_id=f"m-{native}", request_id=f"r-{native}",
                             usage=claude_usage(10, 20)),
        ], mtime=mtime)
    for args in ((), ("--no-cache",)):
        table = runner.invoke(app, ["tokens", *args])
        assert table.exit_code == 0, table.output
        shown = [line.split()[0] for line in table.stdout.splitlines()[1:] if line.startswith("claude:")]
        assert shown == [f"claude:{native}" for native in sorted(SESSIONS, key=lambda n: SESSIONS[n][0], reverse=True)]
        document = runner.invoke(app, ["tokens", "--json", *args])
        keys = [row["key"] for row in orjson.loads(document.stdout)["rows"]]
        assert keys == [f"claude:{native}" for native in sorted(SESSIONS, key=lambda n: SESSIONS[n][1], reverse=True)]
