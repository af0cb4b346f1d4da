"""A subagent's short id is never its parent session's own short id: a UUIDv7's first 8
digits change once a minute, so a run spawned at once shares them (review s35, Codex F8)."""

from __future__ import annotations

from agentscan.scan.short_ids import child_prefixes, unique_prefixes

PARENT = "019cff87-1111-7000-8000-000000000001"
CHILD = "019cff87-8f00-7000-8000-000000000002"
OTHER = "019d0000-8f00-7000-8000-000000000003"


def test_a_child_sharing_its_parent_s_first_digits_is_told_from_it() -> None:
    assert unique_prefixes([CHILD]) == {CHILD: "019cff87"}  # alone, it would read as the parent's
    assert child_prefixes([CHILD, OTHER], PARENT) == {CHILD: "019cff87-8", OTHER: "019d0000"}


def test_without_a_parent_the_children_are_told_from_each_other_only() -> None:
    assert child_prefixes([CHILD, OTHER], None) == unique_prefixes([CHILD, OTHER])
