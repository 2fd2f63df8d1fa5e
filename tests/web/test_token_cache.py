"""API tokens are remembered a few seconds per worker: revocation takes effect within
TOKEN_SECONDS everywhere, at once in the process that revoked; unknown tokens are never
remembered; a deactivated dealer logs nothing even while the token is remembered."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dealer_assist import services
from dealer_assist.store import db
from dealer_assist.web import token_cache
from dealer_assist.web.backend import get_backend
from dealer_assist.web.token_cache import TOKEN_SECONDS, TokenCache

from .conftest import ROUND, Auth, Floor
from .test_api import call, open_shift


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(token_cache.time, "monotonic", clock)
    return clock


def test_entries_expire_and_are_bounded(clock: Clock) -> None:
    cache: TokenCache[str] = TokenCache(seconds=5.0, entries=3)
    cache.put("da_a", "ann")
    assert cache.get("da_a") == "ann"
    clock.now += 4.9
    assert cache.get("da_a") == "ann"
    clock.now += 0.1
    assert cache.get("da_a") is None
    for name in ("a", "b", "c", "d"):
        cache.put(f"da_{name}", name)
    assert [cache.get(f"da_{n}") for n in "abcd"] == [None, "b", "c", "d"]
    assert "da_b" not in repr(cache._users)  # keyed by the token's hash, not the token
    cache.clear()
    assert cache.get("da_d") is None


def _in_another_process(floor: Floor, fn: Any) -> None:
    """What another worker process or the command line would do: its own engine."""
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as s:
            fn(s)
    finally:
        engine.dispose()


def test_revoked_elsewhere_refused_within_the_bound(store_app: Flask, store_client: FlaskClient,
                                                     floor: Floor, clock: Clock) -> None:
    token = floor.tokens["auditor"]
    assert call(store_client, "GET", "/tables", token).status_code == 200
    ids = []
    _in_another_process(floor, lambda s: ids.extend(t.id for t in services.list_tokens(s, "alex")))
    _in_another_process(floor, lambda s: services.revoke_token(s, ids[0]))
    assert call(store_client, "GET", "/tables", token).status_code == 200  # remembered
    clock.now += TOKEN_SECONDS
    assert call(store_client, "GET", "/tables", token).status_code == 401
    assert call(store_client, "GET", "/tables", "da_nonsense").status_code == 401
    assert len(get_backend(store_app).tokens._users) == 0  # type: ignore[attr-defined]


def test_a_deactivated_dealer_logs_nothing_while_remembered(
        store_auth: Auth, store_client: FlaskClient, floor: Floor, clock: Clock) -> None:
    open_shift(store_client, floor)
    token = floor.tokens["dealer"]
    first = call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND)
    assert first.status_code == 201
    _in_another_process(floor, lambda s: services.update_user(s, "dana", active=False))
    refused = call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND)
    assert refused.status_code == 403 and "deactivated" in refused.json["error"]["message"]
    clock.now += TOKEN_SECONDS
    assert call(store_client, "POST", "/tables/TCP-1/rounds", token,
                json=ROUND).status_code == 401


def test_revoked_on_this_process_admin_screen_refused_at_once(
        store_auth: Auth, store_client: FlaskClient, floor: Floor) -> None:
    token = floor.tokens["auditor"]
    assert call(store_client, "GET", "/tables", token).status_code == 200
    store_auth.as_role("admin")
    page = store_client.get("/admin/tokens").text
    ids = re.findall(r"/admin/tokens/(\d+)/revoke", page)
    for token_id in ids:
        store_auth.post_form(f"/admin/tokens/{token_id}/revoke")
    assert call(store_client, "GET", "/tables", token).status_code == 401
