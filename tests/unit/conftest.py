"""Hypothesis profiles: ``ci`` (default) keeps the suite quick; ``deep`` runs many more rounds.

    HYPOTHESIS_PROFILE=deep .venv/bin/pytest tests/unit
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", deadline=None, max_examples=300, database=None)
settings.register_profile("deep", deadline=None, max_examples=20_000, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
