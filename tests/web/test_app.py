"""The app factory: config classes, instance folder, templates, headers, cookies."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from dealer_assist.web import create_app, template_folder
from dealer_assist.web.config import ProductionConfig

from .conftest import Auth
from .memory_backend import demo_memory_backend


def test_testing_config(app: Flask) -> None:
    assert app.testing
    assert app.config["SESSION_COOKIE_HTTPONLY"]
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"
    assert not app.config["SESSION_COOKIE_SECURE"]


def test_production_cookies_are_secure(tmp_path: Path) -> None:
    prod = create_app(ProductionConfig, backend_impl=demo_memory_backend(),
                      instance_path=tmp_path)
    assert prod.config["SESSION_COOKIE_SECURE"] and prod.config["REMEMBER_COOKIE_SECURE"]
    assert prod.config["SECRET_KEY"] and not prod.debug
    assert prod.config["DATABASE_URL"] == f"sqlite:///{tmp_path}/dealer_assist.sqlite3"


def test_secret_key_is_made_once_in_the_instance_folder(tmp_path: Path) -> None:
    first = create_app({"SECRET_KEY": None}, backend_impl=demo_memory_backend(),
                       instance_path=tmp_path)
    second = create_app({"SECRET_KEY": None}, backend_impl=demo_memory_backend(),
                        instance_path=tmp_path)
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"]
    assert (Path(first.instance_path) / "secret_key").exists()


def test_templates_come_from_the_top_level_folder() -> None:
    folder = template_folder()
    assert (folder / "dealer" / "screen.html").exists()
    assert folder.name == "templates"


def test_index_redirects_and_health(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/").status_code == 302
    assert client.get("/healthz").json == {"status": "ok"}


def test_security_headers(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/auth/login")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Cache-Control"] == "no-store"


def test_session_cookie_flags(auth: Auth) -> None:
    response = auth.login("dana")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_static_assets_are_local(client) -> None:  # type: ignore[no-untyped-def]
    for path in ("/static/dealer.js", "/static/app.css"):
        response = client.get(path)
        assert response.status_code == 200
        response.close()
    page = client.get("/auth/login").text
    assert "http://" not in page and "https://" not in page
