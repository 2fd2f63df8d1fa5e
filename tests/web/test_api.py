"""The JSON API on the real hand log (SQLite): tokens, roles, rounds, shifts, the spec."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from .conftest import ROUND, Floor


def call(client: FlaskClient, method: str, path: str, token: str | None = None,
         **kwargs: Any) -> Any:
    headers = dict(kwargs.pop("headers", {}))
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return client.open(f"/api/v1{path}", method=method, headers=headers, **kwargs)


def open_shift(client: FlaskClient, floor: Floor, table: str = "TCP-1") -> dict[str, Any]:
    response = call(client, "POST", f"/tables/{table}/shifts", floor.tokens["supervisor"])
    assert response.status_code == 201, response.json
    return response.json  # type: ignore[no-any-return]


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.json
    body = response.json["error"]
    assert set(body) >= {"code", "message", "field"} and body["code"] == code
    return body  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", ["/tables", "/rounds", "/rounds/1"])
def test_token_required(store_client: FlaskClient, path: str) -> None:
    assert_error(call(store_client, "GET", path), 401, "unauthorized")
    assert_error(call(store_client, "GET", path, "da_not-a-token"), 401, "unauthorized")
    basic = call(store_client, "GET", path, headers={"Authorization": "Basic eDp5"})
    assert_error(basic, 401, "unauthorized")


def test_session_cookie_does_not_authenticate_the_api(store_auth: Any) -> None:
    store_auth.as_role("admin")
    assert_error(call(store_auth.client, "GET", "/tables"), 401, "unauthorized")


def test_tables(store_client: FlaskClient, floor: Floor) -> None:
    body = call(store_client, "GET", "/tables", floor.tokens["auditor"]).json
    names = {t["name"]: t for t in body["tables"]}
    assert names["TCP-2"]["rules"]["pair_plus"]["straight_flush"] == 35
    assert names["TCP-1"]["shift"] is None


@pytest.mark.parametrize("role,status", [("dealer", 403), ("auditor", 403),
                                         ("supervisor", 201), ("admin", 201)])
def test_open_shift_by_role(store_client: FlaskClient, floor: Floor, role: str,
                            status: int) -> None:
    response = call(store_client, "POST", "/tables/TCP-1/shifts", floor.tokens[role])
    assert response.status_code == status
    if status == 201:
        assert response.json["open"] and response.json["table"] == "TCP-1"


def test_shift_conflicts_and_close(store_client: FlaskClient, floor: Floor) -> None:
    shift = open_shift(store_client, floor)
    again = call(store_client, "POST", "/tables/TCP-1/shifts", floor.tokens["supervisor"])
    assert_error(again, 409, "conflict")
    dealer = call(store_client, "POST", f"/shifts/{shift['id']}/close", floor.tokens["dealer"])
    assert_error(dealer, 403, "forbidden")
    closed = call(store_client, "POST", f"/shifts/{shift['id']}/close",
                  floor.tokens["supervisor"])
    assert closed.status_code == 200 and not closed.json["open"]
    assert_error(call(store_client, "POST", f"/shifts/{shift['id']}/close",
                      floor.tokens["supervisor"]), 409, "conflict")
    assert_error(call(store_client, "POST", "/shifts/999/close", floor.tokens["supervisor"]),
                 404, "not_found")
    assert_error(call(store_client, "POST", "/tables/NOPE/shifts", floor.tokens["supervisor"]),
                 404, "not_found")


def test_log_round_and_read_it_back(store_client: FlaskClient, floor: Floor) -> None:
    shift = open_shift(store_client, floor)
    token = floor.tokens["dealer"]
    key = {"Idempotency-Key": "round-0001-abcdef"}
    first = call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND, headers=key)
    assert first.status_code == 201, first.json
    assert first.json["serial"] == 1 and not first.json["replayed"]
    assert [s["total"] for s in first.json["settlement"]["seats"]] == [1500, -1500]
    again = call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND, headers=key)
    assert again.status_code == 200 and again.json["replayed"]
    assert again.json["round_id"] == first.json["round_id"]
    second = call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND)
    assert second.json["serial"] == 2

    got = call(store_client, "GET", f"/rounds/{first.json['round_id']}",
               floor.tokens["auditor"]).json
    assert got["serial"] == 1 and got["table"] == "TCP-1" and got["shift_id"] == shift["id"]
    assert got["round"]["seats"][1]["cards"] == ["5C", "5D", "9H"]
    assert got["settlement"]["seats"][0]["net"]["pair_plus"] == -500
    assert got["stored_matches"] and got["audit"]

    listed = call(store_client, "GET", "/rounds?table=TCP-1", floor.tokens["auditor"]).json
    assert [r["serial"] for r in listed["rounds"]] == [2, 1]
    by_seat = call(store_client, "GET", "/rounds?seat=3", floor.tokens["auditor"]).json
    assert by_seat["rounds"] == []
    by_shift = call(store_client, "GET", f"/rounds?shift_id={shift['id']}&limit=1",
                    floor.tokens["auditor"]).json
    assert by_shift["count"] == 1
    window = call(store_client, "GET", "/rounds?since=2000-01-01T00:00:00Z"
                  "&until=2999-01-01T00:00:00Z", floor.tokens["auditor"]).json
    assert window["count"] == 2
    naive = call(store_client, "GET", "/rounds?since=2000-01-01T00:00", floor.tokens["auditor"])
    assert naive.json["count"] == 2
    assert set(listed["rounds"][0]) >= set(
        store_client.get("/api/v1/openapi.json").json["components"]["schemas"]["RoundSummary"]
        ["required"])


def test_same_key_other_round_is_a_conflict(store_client: FlaskClient, floor: Floor) -> None:
    open_shift(store_client, floor)
    key = {"Idempotency-Key": "round-0002-abcdef"}
    token = floor.tokens["dealer"]
    call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND, headers=key)
    other = copy.deepcopy(ROUND)
    other["seats"][0]["ante"] = 2000
    response = call(store_client, "POST", "/tables/TCP-1/rounds", token, json=other, headers=key)
    assert_error(response, 409, "conflict")


def test_round_errors(store_client: FlaskClient, floor: Floor) -> None:
    token = floor.tokens["dealer"]
    assert_error(call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND),
                 409, "conflict")  # no shift open
    open_shift(store_client, floor)
    bad = copy.deepcopy(ROUND)
    bad["seats"][1]["cards"] = ["QH", "5D", "9H"]
    body = assert_error(call(store_client, "POST", "/tables/TCP-1/rounds", token, json=bad),
                        422, "invalid_round")
    assert body == {"code": "invalid_round", "field": "seats[1].cards",
                    "message": "seat 2: QH is already the dealer's card"}
    assert_error(call(store_client, "POST", "/tables/TCP-1/rounds", token,
                      json={**ROUND, "rules": {}}), 422, "invalid_round")
    assert_error(call(store_client, "POST", "/tables/TCP-1/rounds", token, data="x",
                      content_type="text/plain"), 415, "unsupported_media")
    assert_error(call(store_client, "POST", "/tables/TCP-1/rounds", token, data="{x",
                      content_type="application/json"), 400, "invalid_json")
    assert_error(call(store_client, "POST", "/tables/TCP-1/rounds", token, json=[1]),
                 422, "invalid_round")
    assert_error(call(store_client, "POST", "/tables/TCP-1/rounds", token, json=ROUND,
                      headers={"Idempotency-Key": "short"}), 400, "bad_request")
    assert_error(call(store_client, "POST", "/tables/TCP-1/rounds",
                      floor.tokens["auditor"], json=ROUND), 403, "forbidden")
    assert_error(call(store_client, "POST", "/tables/NOPE/rounds", token, json=ROUND),
                 404, "not_found")
    assert call(store_client, "GET", "/rounds", floor.tokens["auditor"]).json["count"] == 0


def test_list_filter_errors(store_client: FlaskClient, floor: Floor) -> None:
    token = floor.tokens["auditor"]
    assert_error(call(store_client, "GET", "/rounds?limit=0", token), 400, "bad_request")
    assert_error(call(store_client, "GET", "/rounds?seat=x", token), 400, "bad_request")
    assert_error(call(store_client, "GET", "/rounds?since=yesterday", token), 400, "bad_request")
    assert_error(call(store_client, "GET", "/rounds?table=NOPE", token), 404, "not_found")
    assert_error(call(store_client, "GET", "/rounds/12345", token), 404, "not_found")
    assert_error(call(store_client, "GET", "/nothing-here", token), 404, "not_found")
    assert_error(call(store_client, "DELETE", "/rounds/1", token), 405, "method_not_allowed")


def test_openapi_matches_the_routes(store_app: Flask, store_client: FlaskClient) -> None:
    spec = store_client.get("/api/v1/openapi.json").json
    assert spec["openapi"].startswith("3.1")
    documented = {(path, method.upper()) for path, ops in spec["paths"].items()
                  for method in ops}
    routed = set()
    for rule in store_app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/"):
            path = rule.rule.removeprefix("/api/v1")
            for arg in rule.arguments:
                path = path.replace(f"<int:{arg}>", f"{{{arg}}}").replace(f"<{arg}>", f"{{{arg}}}")
            routed |= {(path, m) for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented == routed
    # Every $ref resolves.
    text = str(spec)
    for name in spec["components"]["schemas"]:
        assert name in text
    for ops in spec["paths"].values():
        for op in ops.values():
            for ref in op["responses"].values():
                if "$ref" in ref:
                    assert ref["$ref"].split("/")[-1] in spec["components"]["responses"]


def test_ruleset_analysis_gives_the_exact_house_edges(store_client: FlaskClient,
                                                       floor: Floor) -> None:
    tables = call(store_client, "GET", "/tables", floor.tokens["auditor"]).json["tables"]
    rules_hash = tables[0]["rules_hash"]
    from dealer_assist import services
    from dealer_assist.store import db

    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            version = next(v.id for v in services.list_ruleset_versions(session)
                           if v.content_hash == rules_hash)
    finally:
        engine.dispose()
    response = call(store_client, "GET", f"/rulesets/{version}/analysis", floor.tokens["dealer"])
    assert response.status_code == 200, response.json
    body = response.json
    assert body["ruleset_version"] == version
    assert body["analysis"]["rules_hash"] == rules_hash
    ante = body["analysis"]["ante_play"]
    assert set(ante) >= {"house_edge", "house_edge_exact", "element_of_risk", "strategy"}
    assert 0 < ante["house_edge"] < 0.2
    assert_error(call(store_client, "GET", "/rulesets/999999/analysis", floor.tokens["dealer"]),
                 404, "not_found")
    assert_error(call(store_client, "GET", f"/rulesets/{version}/analysis"), 401, "unauthorized")
