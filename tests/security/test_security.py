"""Security checks on the real hand log: CSRF on every state-changing form (from the route
map, so a new form cannot escape), cookie flags as served, no password or token in clear in
any row or log line, no trace or secret in an error page, SQL injection in every search and
filter field changes nothing, no open redirect after sign-in.

The role matrix and schemathesis live in tests/web (test_roles.py, test_schemathesis.py)."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from dealer_assist.store import db
from dealer_assist.web import create_app
from dealer_assist.web.backend import get_backend
from dealer_assist.web.config import ProductionConfig

from .floor import PASSWORDS, Floor, counts, round_json, verify

STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}


def csrf_of(client: FlaskClient, path: str) -> str:
    page = client.get(path)
    found = re.search(r'name="csrf-token" content="([^"]+)"', page.text) or re.search(
        r'name="csrf_token"[^>]*value="([^"]+)"', page.text)
    assert found, (path, page.status_code)
    return found.group(1)


def sign_in(client: FlaskClient, name: str) -> str:
    token = csrf_of(client, "/auth/login")
    done = client.post("/auth/login", data={"name": name, "password": PASSWORDS[name],
                                            "csrf_token": token})
    assert done.status_code == 302, done.text[:300]
    return csrf_of(client, "/dealer/")


def fill(rule: Any) -> str:
    """A URL for the rule with plausible values (CSRF is checked before the view runs)."""
    values = {}
    for arg in rule.arguments:
        converter = rule._converters[arg].__class__.__name__
        values[arg] = 1 if "Integer" in converter else "TCP-1"
    url = rule.rule
    for key, value in values.items():
        url = re.sub(r"<(?:[^:<>]+:)?" + key + ">", str(value), url)
    return url


def forms(app: Flask) -> list[tuple[str, str, str]]:
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(("api.", "reports_api.")) or rule.endpoint == "static":
            continue        # the API authenticates by Bearer token only: no cookie, no CSRF
        for method in sorted((rule.methods or set()) & STATE_CHANGING):
            out.append((rule.endpoint, method, fill(rule)))
    return out


@pytest.mark.parametrize("who", ["anonymous", "sam", "ada"])
def test_every_state_changing_form_needs_csrf(app: Flask, floor: Floor, who: str) -> None:
    client = app.test_client()
    if who != "anonymous":
        sign_in(client, who)
    other = app.test_client()
    foreign = csrf_of(other, "/auth/login")        # a valid token, of someone else's session
    found = forms(app)
    assert len(found) >= 10, found
    before = counts(floor.url)
    for endpoint, method, url in found:
        for kind, headers, data in (
                ("none", {}, {"name": "x", "reason": "x", "password": "x"}),
                ("foreign", {"X-CSRFToken": foreign}, {"csrf_token": foreign, "name": "x"}),
                ("garbage", {"X-CSRFToken": "x" * 40}, {"csrf_token": "x" * 40})):
            response = client.open(url, method=method, data=data, headers=headers)
            assert response.status_code == 400, (endpoint, kind, response.status_code)
            assert "CSRF" in response.text, (endpoint, kind, response.text[:200])
    assert counts(floor.url) == before, "a refused form changed the database"


def test_the_api_ignores_the_session_cookie(app: Flask) -> None:
    """No CSRF on the API is safe only because a cookie never authenticates it."""
    client = app.test_client()
    sign_in(client, "sam")
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(("api.", "reports_api.")) and rule.endpoint != "api.openapi":
            for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
                response = client.open(fill(rule), method=method, json={})
                assert response.status_code == 401, (rule.endpoint, response.status_code)


def test_cookie_flags_in_production(floor: Floor, tmp_path: Path) -> None:
    app = create_app(ProductionConfig, instance_path=tmp_path)
    app.config["DATABASE_URL"] = floor.url
    get_backend(app).close()
    app = create_app({"DATABASE_URL": floor.url, "DEALER_ASSIST_ENV": "production"},
                     instance_path=tmp_path)
    assert not app.testing and not app.debug
    client = app.test_client()
    token = csrf_of(client, "/auth/login")
    done = client.post("/auth/login", data={"name": "dana", "password": PASSWORDS["dana"],
                                            "csrf_token": token})
    assert done.status_code == 302
    cookies = [c for c in done.headers.getlist("Set-Cookie") if "session" in c.lower()]
    assert cookies, done.headers
    for cookie in cookies:
        flags = {f.strip().lower() for f in cookie.split(";")[1:]}
        assert "secure" in flags and "httponly" in flags and "samesite=lax" in flags, cookie
    get_backend(app).close()


def all_text(url: str) -> str:
    """Every value of every row of every table, as text."""
    engine = db.make_engine(url)
    try:
        parts = []
        with engine.connect() as conn:
            for name in sa.inspect(engine).get_table_names():
                for row in conn.execute(sa.text(f'SELECT * FROM "{name}"')):
                    parts.extend(str(v) for v in row)
        return "\n".join(parts)
    finally:
        engine.dispose()


def test_passwords_and_tokens_never_in_clear(floor: Floor, tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    from dealer_assist import services

    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.INFO, logger="sqlalchemy.engine")   # statements and parameters
    app = create_app({"TESTING": True, "DATABASE_URL": floor.url}, instance_path=tmp_path)
    client = app.test_client()
    for name, password in PASSWORDS.items():
        token = csrf_of(client, "/auth/login")
        client.post("/auth/login", data={"name": name, "password": password + "-wrong",
                                         "csrf_token": token})
        client.post("/auth/login", data={"name": name, "password": password,
                                         "csrf_token": csrf_of(client, "/auth/login")})
        client.post("/auth/logout", data={"csrf_token": csrf_of(client, "/dealer/")})
    for token in floor.tokens.values():
        client.get("/api/v1/tables", headers={"Authorization": f"Bearer {token}"})
        client.get("/api/v1/tables", headers={"Authorization": f"Bearer {token}x"})
    client.post("/api/v1/tables/TCP-1/rounds", json=round_json(1),
                headers={"Authorization": f"Bearer {floor.tokens['dealer']}"})
    # A password typed into the name field (it happens): a failed sign-in, never stored.
    client.post("/auth/login", data={"name": PASSWORDS["ada"], "password": "x",
                                     "csrf_token": csrf_of(client, "/auth/login")})
    # A supervisor's password typed at a dealer's screen to approve a large payout (a
    # straight flush on $1,000 of pair plus pays 40:1), wrong and then right, by the API
    # and by the screen's fetch.
    big = {"dealer": ["2C", "7D", "9H"],
           "seats": [{"seat": 1, "cards": ["9S", "TS", "JS"], "ante": 1000, "play": True,
                      "pair_plus": 100_000}]}
    dealer = {"Authorization": f"Bearer {floor.tokens['dealer']}"}
    for n, password in enumerate(("approval-wrong-guess-77", PASSWORDS["sam"])):
        answer = client.post("/api/v1/tables/TCP-1/rounds", headers={
            **dealer, "Idempotency-Key": f"approval-api-{n}"},
            json={**big, "approval": {"supervisor": "sam", "password": password}})
        assert answer.status_code == (403, 201)[n], answer.text[:300]
    client.post("/auth/login", data={"name": "dana", "password": PASSWORDS["dana"],
                                     "csrf_token": csrf_of(client, "/auth/login")})
    screen = csrf_of(client, "/dealer/TCP-2")
    for n, password in enumerate(("approval-wrong-guess-78", PASSWORDS["sam"])):
        answer = client.post("/dealer/TCP-2/rounds", headers={
            "X-CSRFToken": screen, "Idempotency-Key": f"approval-screen-{n}"},
            json={**big, "approval": {"supervisor": "sam", "password": password}})
        assert answer.status_code == (403, 201)[n], answer.text[:300]
    get_backend(app).close()
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            extra_token = services.create_token(session, "dana")
            services.update_user(session, "dana", password="a-new-password-42")
    finally:
        engine.dispose()
    secrets = [*PASSWORDS.values(), *floor.tokens.values(), extra_token, "a-new-password-42",
               "approval-wrong-guess-77", "approval-wrong-guess-78"]
    stored = all_text(floor.url)
    logged = caplog.text
    assert "SELECT" in logged and "api_tokens" in logged, "the capture sees the SQL"
    for secret in secrets:
        # The token's random part (after its "da_" prefix) must appear nowhere.
        needle = secret[3:] if secret.startswith("da_") else secret
        assert needle not in stored, "a secret is stored in clear"
        assert needle not in logged, "a secret is logged in clear"
        assert needle[:16] not in stored and needle[:16] not in logged


def test_error_pages_show_no_trace_or_secret(floor: Floor, tmp_path: Path) -> None:
    app = create_app({"DATABASE_URL": floor.url, "SECRET_KEY": "marker-secret-key-0123456789"},
                     instance_path=tmp_path)
    assert not app.testing and not app.debug

    def boom() -> str:
        raise RuntimeError(f"marker-exception-text {floor.url}")

    app.add_url_rule("/boom", "boom", boom)
    app.add_url_rule("/api/v1/boom", "api_boom", boom)
    client = app.test_client()
    logging.getLogger("dealer_assist.web").disabled = True   # the trace goes to the log only
    try:
        pages = [client.get("/boom"), client.get("/api/v1/boom"),
                 client.get("/boom", headers={"Accept": "application/json"}),
                 client.get("/no-such-page"), client.post("/healthz"),
                 client.get("/api/v1/rounds/abc"), client.get("/dealer/TCP-1"),
                 client.post("/auth/login", data={"name": "x"})]
    finally:
        logging.getLogger("dealer_assist.web").disabled = False
    assert pages[0].status_code == 500 and pages[1].status_code == 500
    for page in pages:
        text = page.get_data(as_text=True)
        for leak in ("Traceback", "marker-exception-text", "marker-secret-key",
                     "RuntimeError", str(tmp_path), "sqlite:///", "postgresql", 'File "'):
            assert leak not in text, (page.request.path, page.status_code, leak)
    get_backend(app).close()


INJECTIONS = ["' OR '1'='1", "1; DROP TABLE rounds; --", "TCP-1' --", "1 OR 1=1",
              "'); DELETE FROM rounds; --", '" OR ""="', "%' OR 1=1 --", "1' UNION SELECT "
              "password_hash, token_hash FROM users, api_tokens --", "\\'; SELECT pg_sleep(5)--",
              "AS' OR 'x'='x", "2026-01-01T00:00:00' OR '1'='1"]


def test_sql_injection_in_every_search_field_changes_nothing(app: Flask, floor: Floor) -> None:
    import time

    api = app.test_client()
    auth = {"Authorization": f"Bearer {floor.tokens['supervisor']}"}
    for i in range(3):
        assert api.post("/api/v1/tables/TCP-1/rounds", json=round_json(i), headers={
            **auth, "Idempotency-Key": f"inject-{i:04}-abcdef"}).status_code == 201
    web = app.test_client()
    sign_in(web, "sam")
    before, chain = counts(floor.url), verify(floor.url)
    assert chain.ok

    spec = api.get("/api/v1/openapi.json").get_json()
    api_fields = [p["name"] for p in spec["paths"]["/rounds"]["get"]["parameters"]
                  if p.get("in") == "query"]
    assert {"table", "since", "seat"} <= set(api_fields)
    history = web.get("/review/history").text
    page_fields = sorted(set(re.findall(r'<(?:input|select)[^>]*name="([a-z_]+)"', history))
                         - {"csrf_token"})
    assert {"table", "card"} <= set(page_fields), page_fields
    started = time.monotonic()
    for payload in INJECTIONS:
        for field in api_fields:
            response = api.get("/api/v1/rounds", query_string={field: payload}, headers=auth)
            assert response.status_code in (200, 400, 404, 422), (field, response.status_code)
            if response.status_code == 200:   # a filter can only narrow: never more rows
                assert response.get_json()["count"] <= 3
        for field in page_fields:
            response = web.get("/review/history", query_string={field: payload})
            assert response.status_code in (200, 400, 404), (field, response.status_code)
        for path in (f"/shifts/?table={payload}", f"/dealer/TCP-1/history?scope={payload}"):
            assert web.get(path).status_code in (200, 400, 404)
        from urllib.parse import quote
        assert web.get(f"/dealer/{quote(payload, safe='')}").status_code in (400, 404)
        response = api.post(f"/api/v1/tables/{quote(payload, safe='')}/rounds",
                            json=round_json(9), headers=auth)
        assert response.status_code in (400, 404), response.status_code
    assert time.monotonic() - started < 120, "an injected sleep ran"
    assert counts(floor.url) == before
    after = verify(floor.url)
    assert after.ok and after.head == chain.head


@pytest.mark.parametrize("target", ["//evil.example/", "/\\evil.example/", "https://evil.example/",
                                    "/\\/evil.example", "\\\\evil.example", "/%5Cevil.example"])
def test_no_open_redirect_after_sign_in(app: Flask, target: str) -> None:
    client = app.test_client()
    token = csrf_of(client, "/auth/login")
    done = client.post("/auth/login", query_string={"next": target},
                       data={"name": "dana", "password": PASSWORDS["dana"],
                             "csrf_token": token})
    assert done.status_code == 302
    location = done.headers["Location"]
    # A browser reads a backslash as a slash: "/\\evil" is "//evil", another site.
    assert location.startswith("/") and not location.startswith("//"), location
    assert "\\" not in location, location
