"""A report written to a file as large as the file-size limit lets it grow (pass 54).

``agentscan list --json > sessions.json`` in a cron job's shell with ``ulimit -f`` (or a
systemd unit's ``LimitFSIZE=``) ended in a traceback, ``OSError: [Errno 27] File too
large``, where ``/dev/full`` or a full disk is said in one line (``show`` said it, its
write retried).  Every report says it so now: exit 1, one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from builders import claude_sessions


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE")
@pytest.mark.parametrize("words", [["list", "--json"], ["tokens", "--by", "day", "--json"], ["list", "--all"]])
def test_a_report_past_the_size_limit_is_one_error_line(isolated_home: Path, tmp_path: Path, words: list[str]) -> None:
    claude_sessions(isolated_home, 40)
    with open(tmp_path / "out.json", "wb") as out:
        done = subprocess.run([sys.executable, "-m", "agentscan", "--no-cache", *words], stdout=out,
                              stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=_limited)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == "error: cannot write to stdout: File too large"
