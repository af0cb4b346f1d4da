"""Where agentscan keeps what later runs read back: hook events, fetched price data.

Its own module because ``list`` and ``tokens`` look for fetched prices there
and need nothing else of the hooks store (``hooks/store.py``, which
re-exports these names).  Stdlib only: ``agentscan hook`` imports it on every
agent event.
"""

from __future__ import annotations

import os
from typing import Mapping

ENV_VAR = "AGENTSCAN_DATA_DIR"


def data_dir(env: Mapping[str, str] | None = None) -> str:
    """``$AGENTSCAN_DATA_DIR``, else ``platformdirs.user_data_dir("agentscan")`` (``toolkit.userdirs``)."""
    env = os.environ if env is None else env
    override = env.get(ENV_VAR)
    if override:
        return os.path.expanduser(override)
    from agentscan.toolkit.userdirs import user_data_dir  # only when needed: the override is the common case in tests

    return user_data_dir()
