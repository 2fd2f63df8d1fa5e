"""Nobody signed in reaches nothing but the public routes. Built from the app's url_map (as
the role matrix in tests/web is), so a new route cannot escape: every other route, every
method, answers an anonymous caller with a refusal and changes nothing: the API 401 with
the ``{"error": ...}`` shape, a browser page a redirect to the sign-in page, a screen's
fetch 401. A garbage or revoked token is anonymous too."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask

from dealer_assist import services
from dealer_assist.store import db

from .floor import Floor, counts

#: What anyone may reach: sign-in and out, the health check, the API's spec, static files.
PUBLIC = {"static", "index", "healthz", "auth.login", "auth.logout", "api.openapi"}


def _urls(app: Flask) -> list[tuple[str, str, str]]:
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PUBLIC:
            continue
        url = re.sub(r"<int:[^>]+>", "1", rule.rule)
        url = re.sub(r"<[^>]+>", "TCP-1", url)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            out.append((rule.endpoint, method, url))
    return out


def _refused(response: Any, as_json: bool) -> bool:
    if as_json:
        body = response.get_json(silent=True) or {}
        return response.status_code == 401 and bool(body.get("error", {}).get("message"))
    location = response.headers.get("Location", "")
    return response.status_code == 302 and "/auth/login" in location


def test_anonymous_reaches_only_public_routes(app: Flask, floor: Floor) -> None:
    routes = _urls(app)
    assert len(routes) > 40, routes
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            revoked = services.create_token(session, "sam")
            token_id = services.list_tokens(session, "sam")[-1].id
            services.revoke_token(session, token_id)
    finally:
        engine.dispose()
    before = counts(floor.url)
    client = app.test_client()
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/auth/login").text)
    assert csrf
    token = {"X-CSRFToken": csrf.group(1)}      # the anonymous session's own: CSRF passes
    wrong: list[str] = []
    for endpoint, method, url in routes:
        # (what, headers, a JSON body?, expect JSON 401 rather than a redirect to sign in)
        if url.startswith("/api/"):
            variants = [("no credentials", {}, True, True),
                        ("garbage token", {"Authorization": "Bearer da_garbage"}, True, True),
                        ("revoked token", {"Authorization": f"Bearer {revoked}"}, True, True)]
        else:
            variants = [("page", token, False, False),
                        ("fetch", {**token, "Accept": "application/json"}, True, True)]
        for kind, headers, json_body, as_json in variants:
            if method == "GET":
                response = client.get(url, headers=headers)
            elif json_body:
                response = client.open(url, method=method, json={}, headers=headers)
            else:
                response = client.open(url, method=method, data={"x": "1"}, headers=headers)
            if not _refused(response, as_json):
                wrong.append(f"{kind}: {method} {url} ({endpoint}) -> "
                             f"{response.status_code} {response.headers.get('Location')}")
    assert not wrong, "\n".join(wrong)
    assert counts(floor.url) == before
