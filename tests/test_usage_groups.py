"""``usagegroups.are_groups`` (a column at a time) says what a check of each group says.

Kept sums come back from the index as decoded JSON; ``list --all`` checks 55,000
groups for 10,000 rows, so the check of a whole document is made in C.  It must
refuse exactly what the group-by-group check refuses: a wrong width, a text
where a number goes, a negative or boolean count, a float bucket.
Settings: ``conftest_hypothesis.FUZZ``.
"""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from agentscan.usagegroups import GROUP_KEYS, GROUP_WIDTH, are_groups
from conftest_hypothesis import FUZZ

def is_group(group: object) -> bool:
    """The rule, group by group and value by value (as the index's readers checked it before)."""
    if not (isinstance(group, list) and len(group) == GROUP_WIDTH):
        return False
    subagent, model, bucket, tier, origin = group[:GROUP_KEYS]
    return (all(value is None or isinstance(value, str) for value in (subagent, model, origin))
            and (bucket is None or type(bucket) is int) and type(tier) is int
            and all(type(value) is int and value >= 0 for value in group[GROUP_KEYS:]))


_ANY = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
                 st.text(max_size=3), st.lists(st.integers(0, 2), max_size=2))
_TEXT = st.one_of(st.none(), st.text(max_size=5))


@st.composite
def _group(draw: st.DrawFn) -> object:
    """Mostly a good group, with now and then one value (or the width) wrong."""
    group: list[object] = [draw(_TEXT), draw(_TEXT), draw(st.one_of(st.none(), st.integers(0, 10**10))),
                           draw(st.integers(0, 3)), draw(_TEXT)]
    group += [draw(st.integers(0, 10**12)) for _ in range(GROUP_WIDTH - GROUP_KEYS)]
    if draw(st.integers(0, 3)) == 0:
        group[draw(st.integers(0, GROUP_WIDTH - 1))] = draw(_ANY)
    if draw(st.integers(0, 15)) == 0:
        group = group[:draw(st.integers(0, GROUP_WIDTH + 1))] + ([0] if draw(st.booleans()) else [])
    if draw(st.integers(0, 30)) == 0:
        return draw(_ANY)
    return group


@FUZZ
@given(groups=st.lists(_group(), max_size=6))
def test_are_groups_is_every_group_is_group(groups: list[object]) -> None:
    document = orjson.loads(orjson.dumps(groups))  # as the index gives it back
    assert are_groups(document) == all(is_group(group) for group in document)


def test_what_is_not_a_list_of_groups() -> None:
    good = [None, "m", 900, 0, None, 1, 2, 3, 4, 0, 1, 0, 0]
    assert are_groups([]) and are_groups([good, good])
    for bad in ({"a": 1}, "x", None, [good[:-1]], [good + [0]], [[*good[:5], -1, *good[6:]]],
                [[*good[:5], True, *good[6:]]], [[*good[:2], 900.0, *good[3:]]], [[*good[:1], 5, *good[2:]]]):
        assert not are_groups(bad), bad
