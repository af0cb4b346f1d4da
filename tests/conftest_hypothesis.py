"""Hypothesis profiles for the fuzz tests (imported by them; not a pytest conftest).

* ``default``: bounded, so the whole hardening set stays well under two
  minutes in CI; derandomized when ``CI`` is set, so a CI failure reproduces.
* ``long``: ``HYPOTHESIS_PROFILE=long pytest tests/test_fuzz*.py`` for a
  local soak (thousands of examples per property).

Examples build files in their own temporary directories, so the autouse
``isolated_home`` fixture (function-scoped, the same for every example) is
not a problem: that health check is switched off.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SHARED = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

_CI = {"derandomize": True, "database": None} if os.environ.get("CI") else {}

settings.register_profile("default", max_examples=60, **_CI, **_SHARED)
settings.register_profile("long", max_examples=3000, **_SHARED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
