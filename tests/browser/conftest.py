"""Playwright on Debian's Chromium against a live server on the real hand log (SQLite).

Never ``playwright install``: the browser is ``/usr/bin/chromium`` from ``scripts/bootstrap``.
Screenshots go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from dealer_assist.web import create_app
from tests.web.conftest import PASSWORDS, Floor, build_floor

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@dataclass
class LiveServer:
    url: str
    floor: Floor
    app: Any


@pytest.fixture(scope="session")
def browser_floor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Floor]:
    folder = tmp_path_factory.mktemp("browser-floor")
    return folder, build_floor(folder)


@pytest.fixture
def live_server(browser_floor: tuple[Path, Floor], tmp_path: Path) -> Iterator[LiveServer]:
    from dealer_assist.store import db

    folder, template = browser_floor
    shutil.copy(folder / db.SQLITE_FILE, tmp_path / db.SQLITE_FILE)
    floor = Floor(db.default_sqlite_url(tmp_path), template.tokens)
    app = create_app({"TESTING": True, "DATABASE_URL": floor.url}, instance_path=tmp_path)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LiveServer(f"http://127.0.0.1:{server.server_port}", floor, app)
    finally:
        server.shutdown()
        thread.join(5)
        server.server_close()
        app.extensions["dealer_assist.backend"].close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (scripts/bootstrap installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@contextmanager
def tablet_tab(browser: Any) -> Iterator[Any]:
    """A tab at tablet size with touch; any JavaScript error fails the test."""
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with tablet_tab(browser) as tab:
        yield tab


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def sign_in(page: Any, server: LiveServer, name: str) -> None:
    page.goto(server.url + "/dealer/")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORDS[name])
    page.click("button[type=submit]")
    page.wait_for_url("**/dealer/")
