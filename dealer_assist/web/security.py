"""CSRF protection on every form and fetch, response headers, and sign-in throttling."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from flask import Flask
from flask_wtf.csrf import CSRFProtect
from werkzeug.wrappers import Response

csrf = CSRFProtect()

#: No CDN and no inline script: every script and style comes from our own static folder.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


class LoginThrottle:
    """Refuse sign-ins for a key (a user name, a client address) after repeated failures.

    ``max_failures`` failures within ``window`` seconds lock the key for ``lockout`` seconds.
    In-process: behind several gunicorn workers each worker counts on its own, so the
    effective limit is at most workers x max_failures per lockout period.

    >>> t = LoginThrottle(max_failures=2, window=60, lockout=30, clock=lambda: 0.0)
    >>> t.failed("bob"); t.locked_for("bob")
    0
    >>> t.failed("bob"); t.locked_for("bob")
    30
    >>> t.succeeded("bob"); t.locked_for("bob")
    0
    """

    def __init__(self, max_failures: int, window: float, lockout: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_failures = max_failures
        self.window = window
        self.lockout = lockout
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._locked_until: dict[str, float] = {}
        self._lock = threading.Lock()

    def locked_for(self, key: str) -> int:
        """Seconds (rounded up) until ``key`` may try again; 0 when it may now."""
        with self._lock:
            until = self._locked_until.get(key, 0.0)
            left = until - self.clock()
            if left <= 0:
                self._locked_until.pop(key, None)
                return 0
            return int(left + 0.999)

    def failed(self, key: str) -> None:
        now = self.clock()
        with self._lock:
            seen = self._failures.setdefault(key, deque())
            seen.append(now)
            while seen and seen[0] <= now - self.window:
                seen.popleft()
            if len(seen) >= self.max_failures:
                self._locked_until[key] = now + self.lockout
                seen.clear()

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)
            self._locked_until.pop(key, None)


def _headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype in ("text/html", "application/json"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    app.extensions["dealer_assist.login_throttle"] = LoginThrottle(
        app.config["LOGIN_MAX_FAILURES"], app.config["LOGIN_WINDOW_SECONDS"],
        app.config["LOGIN_LOCKOUT_SECONDS"])
    app.after_request(_headers)
