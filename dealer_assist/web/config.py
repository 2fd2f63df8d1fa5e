"""Configuration classes. ``create_app`` starts from one of these, then reads the instance
folder's ``config.py`` (if any), then ``DEALER_ASSIST_*`` / ``DATABASE_URL`` environment
variables, then the mapping given to ``create_app``.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

from dealer_assist.domain.chips import DEFAULT_DENOMINATIONS


class Config:
    #: Set from the environment or the instance folder's ``secret_key`` file (made once).
    SECRET_KEY: str | None = None
    #: ``None``: SQLite file ``dealer_assist.sqlite`` in the instance folder.
    DATABASE_URL: str | None = None
    DEBUG = False
    TESTING = False

    SESSION_COOKIE_NAME = "dealer_assist_session"
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE = True
    REMEMBER_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_SAMESITE = "Lax"
    REMEMBER_COOKIE_SECURE = True
    REMEMBER_COOKIE_DURATION = timedelta(hours=12)
    PERMANENT_SESSION_LIFETIME = timedelta(hours=12)

    #: A dealer screen stays open a whole shift: the CSRF token lives as long as the session.
    WTF_CSRF_TIME_LIMIT: int | None = None
    WTF_CSRF_ENABLED = True

    #: Failed sign-ins per name (and per client address) before further tries are refused.
    LOGIN_MAX_FAILURES = 5
    LOGIN_WINDOW_SECONDS = 300
    LOGIN_LOCKOUT_SECONDS = 300

    CURRENCY_SYMBOL = "$"
    #: Chip values in cents, used for tables that do not set their own.
    CHIP_DENOMINATIONS: tuple[int, ...] = DEFAULT_DENOMINATIONS
    #: Payouts above this (cents) are flagged for a supervisor, unless the table sets its own.
    LARGE_PAYOUT_THRESHOLD: int | None = 500_000

    #: Camera scan: kept photos (``None``: ``photos/`` in the instance folder; a floor of
    #: several servers shares one folder), the upload limits (bytes, pixels; ``None``: 16 MB,
    #: 16 megapixels), the confidence under which a card needs the dealer's confirmation
    #: (``None``: the reader's default), and how long a scan waits while the process reads
    #: another photo before a 503 (``None``: 30 s).
    PHOTO_DIR: str | None = None
    #: Each table's enrolled deck, ``TABLE.npz`` (``dealer-assist vision enroll-table``
    #: writes it; ``None``: ``decks/`` in the instance folder): a scan at the table reads
    #: with it.
    DECK_DIR: str | None = None
    SCAN_MAX_BYTES: int | None = None
    SCAN_MAX_PIXELS: int | None = None
    SCAN_THRESHOLD: float | None = None
    SCAN_WAIT_SECONDS: float | None = None

    #: Allow ``demo`` users and data (set only by ``dealer-assist demo``).
    DEMO = False


class DevelopmentConfig(Config):
    DEBUG = True
    SESSION_COOKIE_SECURE = False
    REMEMBER_COOKIE_SECURE = False


class TestingConfig(Config):
    TESTING = True
    SECRET_KEY = "testing-only-not-secret"
    SESSION_COOKIE_SECURE = False
    REMEMBER_COOKIE_SECURE = False


class ProductionConfig(Config):
    pass


CONFIGS: dict[str, type[Config]] = {
    "development": DevelopmentConfig,
    "testing": TestingConfig,
    "production": ProductionConfig,
}


def from_environment() -> dict[str, Any]:
    """Settings given by environment variables (``DATABASE_URL``, ``DEALER_ASSIST_SECRET_KEY``)."""
    out: dict[str, Any] = {}
    if os.environ.get("DATABASE_URL"):
        out["DATABASE_URL"] = os.environ["DATABASE_URL"]
    if os.environ.get("DEALER_ASSIST_SECRET_KEY"):
        out["SECRET_KEY"] = os.environ["DEALER_ASSIST_SECRET_KEY"]
    if os.environ.get("DEALER_ASSIST_INSECURE_COOKIES") == "1":
        # Plain HTTP on a closed floor network (no TLS terminator in front).
        out["SESSION_COOKIE_SECURE"] = False
        out["REMEMBER_COOKIE_SECURE"] = False
    return out
