"""CSRF protection on every form and fetch, response headers, and sign-in throttling."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

from flask import Flask
from flask_wtf.csrf import CSRFProtect
from werkzeug.wrappers import Response

csrf = CSRFProtect()

#: No CDN and no inline script: every script and style comes from our own static folder.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


def lockout_left(failures: Iterable[float], now: float, *, max_failures: int, window: float,
                 lockout: float) -> int:
    """Seconds (rounded up) a key stays locked, given the times of its failed sign-ins since
    its last success, oldest first; 0 when it may try now.

    ``max_failures`` failures within ``window`` seconds lock the key for ``lockout``
    seconds from the last of them; a failure during a lockout (another worker's, in a race)
    does not extend it, and the failures that caused a lockout do not count again.

    >>> lockout_left([0, 1], 2, max_failures=2, window=60, lockout=30)
    29
    >>> lockout_left([0, 100], 101, max_failures=2, window=60, lockout=30)
    0
    >>> lockout_left([0, 1, 2, 40], 41, max_failures=2, window=60, lockout=30)
    0
    """
    until = 0.0
    recent: deque[float] = deque()
    for t in failures:
        if t < until:
            continue
        recent.append(t)
        while recent[0] <= t - window:
            recent.popleft()
        if len(recent) >= max_failures:
            until = t + lockout
            recent.clear()
    left = until - now
    return int(left + 0.999) if left > 0 else 0


class LoginThrottle:
    """Failed sign-ins per key (a user name, a client address) kept in this process's memory,
    judged by :func:`lockout_left`.

    The served app counts the audit log's sign-in events instead, so every worker and a
    restarted server see the same failures (``web.auth``); this one serves a backend
    without a hand log (the tests' in-memory one).

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
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def locked_for(self, key: str) -> int:
        """Seconds (rounded up) until ``key`` may try again; 0 when it may now."""
        now = self.clock()
        with self._lock:
            seen = self._failures.get(key, [])
            # What is older than a window and a lockout cannot lock any more.
            seen[:] = [t for t in seen if t > now - 2 * (self.window + self.lockout)]
            return lockout_left(seen, now, max_failures=self.max_failures,
                                window=self.window, lockout=self.lockout)

    def failed(self, key: str) -> None:
        with self._lock:
            self._failures.setdefault(key, []).append(self.clock())

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)


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
