"""The scan's search for the older parser that kept a session's sums (``upgraded.older_search``)
shares its answers between the row pass and the parse's ``lockedusage.kept_under_a_lock``, but
each counts its own sessions against the cap: eight changed chats whose rows were searched
first gave the search up for the parse, and an unchanged chat under a locked database lost the
sums an older parser kept of it (its usage not known after an upgrade)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentscan import providers
from agentscan.context import ScanContext
from agentscan.model import SessionRef
from agentscan.scan.lockedusage import kept_under_a_lock, sums_stand_under_a_lock
from agentscan.scan.sessionsums import SessionSums
from agentscan.scan.upgraded import _SEARCHED


class _Locked:
    """A provider at parser version 5 whose chats' usage is in a database locked this run;
    those named ``c…`` changed on disk since an older parser read them (no version matches)."""

    name = "locked58"
    parser_version = "5"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def fingerprint(self, ref: SessionRef, ctx: Any, *, version: str | None = None) -> str:
        self.asked.append(ref.native_id)
        changed = "+changed" if ref.native_id.startswith("c") else ""
        return f"{ref.id}@{version or self.parser_version}{changed}"

    def locked_usage(self, ref: SessionRef, ctx: Any) -> tuple[str, str]:
        return ("/db", "locked")


def test_a_row_pass_of_changed_chats_leaves_the_parse_its_own_search(isolated_home: Path) -> None:
    provider = _Locked()
    ctx = ScanContext(home=isolated_home, env={})

    class Scanner:
        def __init__(self) -> None:
            self.ctx = ctx

        def provider(self, name: str) -> Any:
            return provider

    sums = SessionSums([], []).to_bytes()

    class Cache:  # every chat's sums kept by parser version 2
        def get_usage(self, ids: list[str]) -> dict[str, tuple[str, bytes, bytes]]:
            return {ref_id: (f"{ref_id}@2", sums, b"") for ref_id in ids}

        def get_calls(self, ids: list[str]) -> dict[str, Any]:
            return {}

    changed = [SessionRef("locked58", f"c{index}", None, 0.0) for index in range(_SEARCHED + 2)]
    unchanged = SessionRef("locked58", "g1", None, 0.0)
    providers.register(provider)  # type: ignore[arg-type]
    try:
        # The rows shown (a list of the newest chats, all changed) are asked first.
        assert not any(sums_stand_under_a_lock(Scanner(), ref, f"{ref.id}@2") for ref in changed)  # type: ignore[arg-type]
        parsed: dict[str, Any] = {}
        taken = kept_under_a_lock(Scanner(), Cache(), [unchanged], {unchanged.id}, False, parsed, {})  # type: ignore[arg-type]
        assert taken == {unchanged.id}  # (set(): the rows' eight searches had given it up)
        assert parsed[unchanged.id].sums.passing
        # A row asked again is answered, not searched again.
        before = len(provider.asked)
        assert sums_stand_under_a_lock(Scanner(), unchanged, f"{unchanged.id}@2")  # type: ignore[arg-type]
        assert len(provider.asked) == before
    finally:
        providers.unregister("locked58")
