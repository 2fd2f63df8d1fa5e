"""Security as served by ``dealer-assist serve`` (gunicorn), not only the Flask test client:
the sign-in cookie's flags, and sign-in throttling across worker processes and a restart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from tests.security.floor import PASSWORDS, Floor, build_floor, cheap_hashing

from .server import Server


@pytest.fixture
def sqlite_floor(tmp_path: Path) -> Floor:
    cheap_hashing()
    return build_floor("sqlite", tmp_path, tables=("T1",))


def _login(web: requests.Session, base: str, name: str, password: str) -> int:
    page = web.get(f"{base}/auth/login", timeout=10)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token
    return web.post(f"{base}/auth/login", data={"name": name, "password": password,
                                                "csrf_token": token.group(1)},
                    allow_redirects=False, timeout=10).status_code


def test_served_cookie_flags(sqlite_floor: Floor, tmp_path: Path) -> None:
    server = Server(sqlite_floor.url, tmp_path, workers=1, threads=2)
    server.insecure_cookies = False
    server.start()
    try:
        with requests.Session() as web:
            page = web.get(f"http://127.0.0.1:{server.port}/auth/login", timeout=10)
            cookies = [c for c in page.raw.headers.getlist("Set-Cookie") if "session" in c]
            assert cookies, page.headers
            for cookie in cookies:
                flags = {f.strip().lower() for f in cookie.split(";")[1:]}
                assert {"secure", "httponly", "samesite=lax"} <= flags, cookie
    finally:
        server.stop()


def test_served_sign_in_throttle_across_workers(sqlite_floor: Floor, tmp_path: Path) -> None:
    """The failures are counted in the shared hand log (the audit log's failed sign-ins):
    behind 2 worker processes a guesser gets exactly LOGIN_MAX_FAILURES (5) tries at a
    name, then every worker refuses (429), even the right password, and so does the
    server restarted."""
    server = Server(sqlite_floor.url, tmp_path, workers=2, threads=2).start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        statuses = []
        for _ in range(12):
            with requests.Session() as web:   # a new connection each time: any worker
                statuses.append(_login(web, base, "dana", "wrong-guess"))
        assert statuses == [401] * 5 + [429] * 7, statuses
        with requests.Session() as web:      # locked out even with the right password
            assert _login(web, base, "dana", PASSWORDS["dana"]) == 429
    finally:
        server.stop()
    server = Server(sqlite_floor.url, tmp_path, workers=2, threads=2).start()
    try:
        with requests.Session() as web:      # a restart forgets nothing
            assert _login(web, f"http://127.0.0.1:{server.port}", "dana",
                          PASSWORDS["dana"]) == 429
    finally:
        server.stop()
