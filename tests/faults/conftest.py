"""Fault tests run real servers (gunicorn) on 127.0.0.1; each floor is fresh."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.floor import ENGINES, Floor, build_floor, cheap_hashing, drop_pg_schema


@pytest.fixture(params=ENGINES)
def floor(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Floor]:
    cheap_hashing()
    built = build_floor(request.param, tmp_path, tables=("T1", "T2", "T3"))
    yield built
    if built.schema:
        drop_pg_schema(built.schema)
