"""The web app: ``create_app`` builds it (flaskr style: instance folder, config classes, and
each module wiring itself with ``init_app``). Blueprints: auth, dealer, api.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, redirect, url_for
from werkzeug.wrappers import Response

from . import admin, api, auth, backend, dealer, errors, reports, review, scan, security, shifts
from .config import CONFIGS, Config, from_environment

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def template_folder() -> Path:
    """``dealer_assist/templates`` in an installed wheel, else the repository's ``templates/``."""
    installed = PACKAGE_DIR / "templates"
    if installed.is_dir():
        return installed
    return PACKAGE_DIR.parent / "templates"


def _secret_key(instance: Path) -> str:
    path = instance / "secret_key"
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_hex(32)
    path.write_text(key)
    path.chmod(0o600)
    return key


def create_app(config: Mapping[str, Any] | type[Config] | str | None = None, *,
               backend_impl: backend.Backend | None = None,
               instance_path: str | os.PathLike[str] | None = None) -> Flask:
    """Build the app. ``config``: a config class, its name (``"testing"``), or a mapping of
    settings laid over the default (``DEALER_ASSIST_ENV`` or production). The instance
    folder is ``instance_path``, else ``DEALER_ASSIST_INSTANCE``, else ``./instance``."""
    folder = instance_path or os.environ.get("DEALER_ASSIST_INSTANCE") or "instance"
    app = Flask("dealer_assist.web", instance_relative_config=True,
                instance_path=os.path.abspath(folder),
                template_folder=str(template_folder()),
                static_folder=str(Path(__file__).parent / "static"))
    base: type[Config]
    if isinstance(config, type):
        base = config
    elif isinstance(config, str):
        base = CONFIGS[config]
    else:
        base = CONFIGS[os.environ.get("DEALER_ASSIST_ENV", "production")]
        if isinstance(config, Mapping) and config.get("TESTING"):
            base = CONFIGS["testing"]
    app.config.from_object(base)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.from_pyfile("config.py", silent=True)
    app.config.update(from_environment())
    if isinstance(config, Mapping):
        app.config.update(config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))
    if not app.config.get("DATABASE_URL"):
        from dealer_assist.store.db import default_sqlite_url

        app.config["DATABASE_URL"] = default_sqlite_url(app.instance_path)

    backend.init_app(app, backend_impl)
    security.init_app(app)
    errors.init_app(app)
    auth.init_app(app)
    dealer.init_app(app)
    api.init_app(app)
    reports.init_app(app)
    review.init_app(app)
    admin.init_app(app)
    shifts.init_app(app)
    scan.init_app(app)

    @app.get("/")
    def index() -> Response:
        return redirect(url_for("dealer.tables"))

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


__all__ = ["create_app", "template_folder"]
