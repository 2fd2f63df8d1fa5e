"""A real floor (SQLite, and PostgreSQL when DATABASE_URL_POSTGRES is set) with the app on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from dealer_assist.web import create_app
from dealer_assist.web.backend import get_backend

from .floor import ENGINES, Floor, build_floor, cheap_hashing, drop_pg_schema


@pytest.fixture(params=ENGINES)
def floor(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Floor]:
    cheap_hashing()
    built = build_floor(request.param, tmp_path)
    yield built
    if built.schema:
        drop_pg_schema(built.schema)


@pytest.fixture
def sqlite_floor(tmp_path: Path) -> Floor:
    cheap_hashing()
    return build_floor("sqlite", tmp_path)


@pytest.fixture
def app(floor: Floor, tmp_path: Path) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE_URL": floor.url}, instance_path=tmp_path)
    yield app
    get_backend(app).close()
