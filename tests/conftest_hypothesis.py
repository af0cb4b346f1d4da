"""Hypothesis settings for the fuzz tests (imported by them; not a pytest conftest).

* ``hardening`` (used unless told otherwise): bounded, so the whole
  hardening set stays well under two minutes in CI; derandomized and without
  an example database when ``CI`` is set, so a CI failure reproduces as is.
* ``long``: ``HYPOTHESIS_PROFILE=long pytest tests/test_fuzz*.py`` for a
  local soak (thousands of examples per property).  Any other registered
  profile name (Hypothesis's own ``ci``, say) works the same way.

The fuzz tests decorate themselves with ``FUZZ`` instead of loading a
profile globally, so no other test module's Hypothesis settings change.
Examples build their files in their own temporary directories: the autouse
``isolated_home`` fixture (function-scoped, the same for every example) is
harmless, so that health check is off.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SHARED = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_CI = {"derandomize": True, "database": None} if os.environ.get("CI") else {}

settings.register_profile("hardening", max_examples=60, **_CI, **_SHARED)
settings.register_profile("long", max_examples=3000, **_SHARED)

FUZZ: settings = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE") or "hardening")
