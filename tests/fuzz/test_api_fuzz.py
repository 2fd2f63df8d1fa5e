"""The HTTP API under hostile input, on the real hand log (SQLite): every operation of the
OpenAPI spec (read from the app, so a new route is fuzzed too) with hostile path values,
query values, headers and bodies, signed in as each role or not at all. Never a 5xx; every
4xx under /api/ is the JSON error shape with a message; the chain still verifies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.web import create_app
from dealer_assist.web.backend import get_backend
from tests.security.floor import Floor, build_floor, cheap_hashing, verify

from .strategies import hostile_text, huge_ints, json_values, mutated_rounds, valid_rounds

QUIET = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture],
                 max_examples=200)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, Floor]]:
    cheap_hashing()
    folder = tmp_path_factory.mktemp("fuzz-floor")
    floor = build_floor("sqlite", folder)
    app = create_app({"TESTING": True, "DATABASE_URL": floor.url}, instance_path=folder)
    yield app, floor
    assert verify(floor.url).ok
    get_backend(app).close()


def operations(app: Flask) -> list[tuple[str, str, dict[str, Any]]]:
    with app.test_client() as client:
        spec = client.get("/api/v1/openapi.json").get_json()
    base = spec.get("servers", [{}])[0].get("url", "/api/v1") if spec.get("servers") else "/api/v1"
    out = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method in ("get", "post", "put", "patch", "delete") and isinstance(op, dict):
                out.append((method.upper(), base.rstrip("/") + path, op))
    return out


def check(response: Any, path: str) -> None:
    assert response.status_code < 500, (path, response.status_code, response.data[:500])
    if response.status_code >= 400 and path.startswith("/api/"):
        body = response.get_json(silent=True)
        assert isinstance(body, dict) and isinstance(body.get("error"), dict), response.data[:300]
        assert str(body["error"].get("message", "")).strip()
    assert b"Traceback" not in response.data


path_values = st.one_of(hostile_text, huge_ints.map(str), st.sampled_from(
    ["TCP-1", "TCP-2", "1", "0", "-1", "..", "%2e%2e", "'; DROP TABLE rounds; --"]))
query_values = st.one_of(hostile_text, huge_ints.map(str), st.sampled_from(
    ["2026-01-31T18:00:00Z", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+14:00",
     "2026-13-45", "1' OR '1'='1", "true", "-0", "1e9"]))
tokens = st.sampled_from(["none", "garbage", "dealer", "supervisor", "auditor", "admin"])
bodies = st.one_of(
    json_values.map(lambda v: json.dumps(v).encode("utf-8", "surrogatepass")),
    mutated_rounds().map(lambda v: json.dumps(v).encode("utf-8", "surrogatepass")),
    valid_rounds().map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
)


@st.composite
def requests(draw: st.DrawFn, ops: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    method, path, op = draw(st.sampled_from(ops))
    params = [p for p in op.get("parameters", []) if isinstance(p, dict)]
    url = path
    query: dict[str, str] = {}
    headers: dict[str, str] = {}
    for p in params:
        where, name = p.get("in"), p.get("name", "")
        if where == "path":
            # Lone surrogates go out as the bytes a hostile client would send.
            raw = draw(path_values).encode("utf-8", "surrogatepass")
            url = url.replace("{" + name + "}", quote(raw, safe=""))
        elif where == "query" and draw(st.booleans()):
            query[name] = draw(query_values)
        elif where == "header" and draw(st.booleans()):
            value = draw(hostile_text)
            if value.isprintable() and value.isascii():
                headers[name] = value
    for name in draw(st.lists(hostile_text, max_size=2)):
        query[name] = draw(query_values)
    body = draw(bodies) if "requestBody" in op or draw(st.integers(0, 9)) == 0 else None
    return {"method": method, "url": url, "query": query, "headers": headers, "body": body,
            "token": draw(tokens), "json_type": draw(st.integers(0, 5)) > 0}


def send(client: FlaskClient, floor: Floor, req: dict[str, Any]) -> Any:
    headers = dict(req["headers"])
    if req["token"] == "garbage":
        headers["Authorization"] = "Bearer da_" + "A" * 43
    elif req["token"] != "none":
        headers["Authorization"] = "Bearer " + floor.tokens[req["token"]]
    if req["body"] is not None:
        headers["Content-Type"] = "application/json" if req["json_type"] else "text/plain"
    query = {k.encode("utf-8", "surrogatepass").decode("utf-8", "replace"):
             v.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
             for k, v in req["query"].items()}
    return client.open(req["url"], method=req["method"], query_string=query, headers=headers,
                       data=req["body"])


def test_every_operation_under_hostile_input(served: tuple[Flask, Floor]) -> None:
    app, floor = served
    ops = operations(app)
    assert len(ops) >= 6
    client = app.test_client()

    @QUIET
    @given(requests(ops))
    def run(req: dict[str, Any]) -> None:
        check(send(client, floor, req), req["url"])

    run()


@pytest.mark.parametrize("body", [
    b"[" * 100_000 + b"]" * 100_000,
    b"[" * 990 + b'"AS"' + b"]" * 990,
    b'{"dealer":["QH","8C","3D"],"seats":[{"seat":1,"cards":["KS","7H","2C"],"ante":'
    + b"9" * 5000 + b"}]}",
    b'{"dealer":["QH","8C","3D"],"misdeal":true,"misdeal_reason":"\\ud800",'
    b'"seats":[{"seat":1,"cards":["KS","7H","2C"],"ante":100}]}',
    b'{"dealer":["QH","8C","3D"],"seats":[{"seat":1,"cards":["KS","7H","2C"],"ante":NaN}]}',
    b"\xff\xfe{}", "{}".encode("utf-16"), b"\x00" * 100, b"",
    json.dumps({"dealer": ["QH", "8C", "3D"],
                "seats": [{"seat": 1, "cards": ["KS", "7H", "2C"], "ante": 1}] * 10_000}).encode(),
])
def test_hostile_round_bodies(served: tuple[Flask, Floor], body: bytes) -> None:
    app, floor = served
    response = app.test_client().post(
        "/api/v1/tables/TCP-1/rounds", data=body, headers={
            "Authorization": "Bearer " + floor.tokens["dealer"],
            "Content-Type": "application/json", "Idempotency-Key": "fuzz-edge-0001"})
    check(response, "/api/v1/")
    assert response.status_code in (400, 409, 413, 422)


@pytest.mark.parametrize("query", [
    {"since": "9999-12-31T23:59:59-23:59"}, {"until": "0001-01-01T00:00:00+14:00"},
    {"since": "2026-01-01T00:00:00+99:00"}, {"limit": "9" * 5000}, {"offset": "-1"},
    {"seat": "1e3"}, {"shift_id": str(2**64)}, {"table": "\x00"}, {"table": "x" * 100_000},
])
def test_hostile_round_filters(served: tuple[Flask, Floor], query: dict[str, str]) -> None:
    app, floor = served
    response = app.test_client().get("/api/v1/rounds", query_string=query, headers={
        "Authorization": "Bearer " + floor.tokens["auditor"]})
    check(response, "/api/v1/")


def test_dealer_screen_json_endpoints(served: tuple[Flask, Floor],
                                      tmp_path: Path) -> None:
    """The screen's own fetches (session + CSRF header) take the same hostile bodies."""
    import re

    from tests.security.floor import PASSWORDS

    app, _ = served
    client = app.test_client()
    page = client.get("/auth/login")
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token
    client.post("/auth/login", data={"name": "dana", "password": PASSWORDS["dana"],
                                     "csrf_token": token.group(1)})
    screen = client.get("/dealer/TCP-1")
    token = re.search(r'name="csrf-token" content="([^"]+)"', screen.text)
    assert token, screen.status_code

    @QUIET
    @given(bodies, st.sampled_from(["/dealer/TCP-1/settle", "/dealer/TCP-1/rounds"]))
    def run(body: bytes, path: str) -> None:
        response = client.post(path, data=body, headers={
            "X-CSRFToken": token.group(1), "Content-Type": "application/json",
            "Accept": "application/json"})
        assert response.status_code < 500, (path, response.status_code, response.data[:300])

    run()
    deep = client.post("/dealer/TCP-1/settle", data=b"[" * 100_000, headers={
        "X-CSRFToken": token.group(1), "Content-Type": "application/json"})
    assert deep.status_code == 400
