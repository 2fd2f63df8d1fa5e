"""Fixtures like flaskr's: ``app``, ``client``, ``runner``, plus signed-in helpers.

``backend`` is the in-memory backend (fast, and lets a test make the log fail on purpose);
tests marked ``store`` run the same app on the real hand log (SQLite in a temporary folder).
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from dealer_assist.web import create_app
from dealer_assist.web.backend import get_backend

from .memory_backend import MemoryBackend, demo_memory_backend

PASSWORDS = {"dana": "dealer-pass-1", "sam": "super-pass-1", "alex": "audit-pass-1",
             "ada": "admin-pass-1"}
ROLE_USERS = {"dealer": "dana", "supervisor": "sam", "auditor": "alex", "admin": "ada"}

ROUND: dict[str, Any] = {
    "dealer": ["QH", "8C", "3D"],
    "seats": [
        {"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1000, "play": True, "pair_plus": 500},
        {"seat": 2, "cards": ["5C", "5D", "9H"], "ante": 1000, "play": False, "pair_plus": 500},
    ],
}


@pytest.fixture
def backend() -> MemoryBackend:
    return demo_memory_backend()


@pytest.fixture
def app(backend: MemoryBackend, tmp_path: Any) -> Iterator[Flask]:
    yield create_app({"TESTING": True, "LOGIN_MAX_FAILURES": 3}, backend_impl=backend,
                     instance_path=tmp_path)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


def csrf_token(client: FlaskClient, path: str = "/auth/login") -> str:
    page = client.get(path)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)"', page.text)
    assert found, f"no CSRF token on {path} ({page.status_code})"
    return found.group(1)


class Auth:
    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.token = ""

    def login(self, name: str = "dana", password: str | None = None) -> Any:
        token = csrf_token(self.client)
        response = self.client.post("/auth/login", data={
            "name": name, "password": PASSWORDS.get(name, "") if password is None else password,
            "csrf_token": token})
        if response.status_code == 302:
            self.token = csrf_token(self.client, "/dealer/")
        return response

    def as_role(self, role: str) -> Auth:
        response = self.login(ROLE_USERS[role])
        assert response.status_code == 302, response.text
        return self

    def logout(self) -> Any:
        return self.client.post("/auth/logout", data={"csrf_token": self.token})

    def post_json(self, path: str, body: Any, **headers: str) -> Any:
        return self.client.post(path, json=body, headers={"X-CSRFToken": self.token, **headers})

    def post_form(self, path: str, data: dict[str, str] | None = None) -> Any:
        return self.client.post(path, data={"csrf_token": self.token, **(data or {})})


@pytest.fixture
def auth(client: FlaskClient) -> Auth:
    return Auth(client)


# ---- the real hand log -------------------------------------------------------------------

@dataclass
class Floor:
    """A fresh SQLite hand log with the same users and tables as the memory backend."""

    url: str
    tokens: dict[str, str]


def build_floor(folder: Path, url: str | None = None) -> Floor:
    from dealer_assist import services
    from dealer_assist.store import db

    url = url or db.default_sqlite_url(folder)
    db.upgrade(url)
    engine = db.make_engine(url)
    tokens: dict[str, str] = {}
    try:
        with db.session_factory(engine)() as session:
            for role, name in ROLE_USERS.items():
                services.create_user(session, name, role, PASSWORDS[name])
                tokens[role] = services.create_token(session, name)
            services.create_table(session, "TCP-1", 7)
            services.create_table(session, "TCP-2", 6, {"pair_plus": "35-25-6-4-1"})
            services.update_settings(session, large_win_threshold=500_000)
    finally:
        engine.dispose()
    return Floor(url, tokens)


PG_URL = os.environ.get("DATABASE_URL_POSTGRES")
ENGINES = ["sqlite", *(["postgresql"] if PG_URL else [])]


@pytest.fixture(scope="session")
def floor_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Floor]:
    """Built once (migrations and password hashing are slow); each test gets a copy."""
    folder = tmp_path_factory.mktemp("floor")
    return folder, build_floor(folder)


@pytest.fixture(params=ENGINES)
def floor(request: pytest.FixtureRequest, floor_template: tuple[Path, Floor],
          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Floor]:
    """The floor on SQLite (a copy of the template) and, when DATABASE_URL_POSTGRES is set,
    on PostgreSQL in a fresh schema dropped afterwards."""
    from dealer_assist.store import db

    if request.param == "sqlite":
        folder, template = floor_template
        shutil.copy(folder / db.SQLITE_FILE, tmp_path / db.SQLITE_FILE)
        yield Floor(db.default_sqlite_url(tmp_path), template.tokens)
        return
    import sqlalchemy as sa
    from argon2 import PasswordHasher

    from dealer_assist.services import admin

    cheap = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
    monkeypatch.setattr(admin, "_hasher", cheap)
    monkeypatch.setattr(admin, "_DUMMY_HASH", cheap.hash("x"))
    schema = f"da_web_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{uuid.uuid4().hex[:8]}"
    root = db.make_engine(PG_URL or "")
    with root.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = sa.engine.make_url(PG_URL or "").update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    try:
        yield build_floor(tmp_path, url)
    finally:
        with root.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        root.dispose()


@pytest.fixture
def store_app(floor: Floor, tmp_path: Path) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE_URL": floor.url}, instance_path=tmp_path)
    yield app
    get_backend(app).close()


@pytest.fixture
def store_client(store_app: Flask) -> FlaskClient:
    return store_app.test_client()


@pytest.fixture
def store_auth(store_client: FlaskClient) -> Auth:
    return Auth(store_client)


@pytest.fixture
def store_runner(store_app: Flask) -> FlaskCliRunner:
    return store_app.test_cli_runner()
