"""The process's local zone switched for a test (``TZ`` and ``time.tzset``), and put back."""

from __future__ import annotations

import os
import time
from typing import Iterable, Iterator


def in_each_zone(zones: Iterable[str]) -> Iterator[str]:
    """Each of ``zones`` made the local one in turn (yielded while it is); the zone the
    process had is put back however the loop ends."""
    before = os.environ.get("TZ")
    try:
        for zone in zones:
            os.environ["TZ"] = zone
            time.tzset()
            yield zone
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()
