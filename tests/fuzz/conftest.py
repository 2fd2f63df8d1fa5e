"""Hypothesis profiles for the fuzz tests, the same as tests/unit's: ``ci`` by default,
``deep`` (HYPOTHESIS_PROFILE=deep) for a long run. Each test sets only its health checks."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, max_examples=300, database=None)
settings.register_profile("deep", deadline=None, max_examples=20_000, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
