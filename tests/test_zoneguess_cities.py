"""``zoneguess.closest_zone``: a city typed for ``--tz`` whose zone is named for another city
(``Beijing`` keeps Shanghai's time) or by an old name tzdata keeps only as a backward alias
(``Calcutta``, ``Saigon``) is offered the zone tzdata names today, as ``Paris`` is."""

from __future__ import annotations

import pytest

from agentscan import zoneguess


@pytest.mark.parametrize(("typed", "offered"), [
    ("Beijing", "Asia/Shanghai"), ("peking", "Asia/Shanghai"), ("Bombay", "Asia/Kolkata"),
    ("Mumbai", "Asia/Kolkata"), ("Calcutta", "Asia/Kolkata"), ("New_Delhi", "Asia/Kolkata"),
    ("Saigon", "Asia/Ho_Chi_Minh"), ("Rangoon", "Asia/Yangon"), ("Kiev", "Europe/Kyiv"),
    ("Paris", "Europe/Paris"), ("Kolkata", "Asia/Kolkata"),
])
def test_a_city_is_offered_its_current_zone(typed: str, offered: str) -> None:
    assert zoneguess.closest_zone(typed, local=False) == offered


def test_the_refusal_names_the_current_zone() -> None:
    from agentscan import timeutil

    with pytest.raises(Exception) as refused:
        timeutil.zone("Bombay")
    assert "did you mean Asia/Kolkata?" in str(refused.value)
