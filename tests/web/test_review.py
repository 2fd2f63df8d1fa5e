"""Supervisor and auditor screens and API on the real hand log: history search, dispute
review and re-check, void, correction with what is still owed, misdeal, large-payout
approval, floor view, administration."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from dealer_assist.store import db
from dealer_assist.store.models import AuditEvent, PayoutApproval

from .conftest import ROUND, Auth, Floor
from .test_api import assert_error, call, open_shift

#: RULES.md §6 "every bet at once": seat 1 is paid $5,285, over the $5,000 threshold.
BIG = {"dealer": ["KH", "AH", "2C"], "seats": [
    {"seat": 1, "cards": ["10H", "JH", "QH"], "ante": 1000, "play": True, "pair_plus": 500,
     "six_card": 500, "prime": 500}]}


def log(client: FlaskClient, floor: Floor, body: dict[str, Any] | None = None,
        role: str = "dealer") -> dict[str, Any]:
    response = call(client, "POST", "/tables/TCP-1/rounds", floor.tokens[role],
                    json=body or ROUND)
    assert response.status_code == 201, response.json
    return response.json  # type: ignore[no-any-return]


def test_history_search_filters_and_links(store_auth: Auth, floor: Floor) -> None:
    client = store_auth.client
    open_shift(client, floor)
    first = log(client, floor)
    other = copy.deepcopy(ROUND)
    other["dealer"] = ["2S", "3S", "9D"]
    second = log(client, floor, other)
    store_auth.as_role("auditor")
    page = client.get("/review/history")
    assert page.status_code == 200
    assert f'/review/rounds/{first["round_id"]}' in page.text
    by_card = client.get("/review/history?card=9d").text
    assert f'data-round="{second["round_id"]}"' in by_card
    assert f'data-round="{first["round_id"]}"' not in by_card
    assert "No rounds match" in client.get("/review/history?status=voided").text
    paid = client.get("/review/history?min_payout=20").text  # seat 1 paid $20
    assert f'data-round="{first["round_id"]}"' in paid
    assert "No rounds match" in client.get("/review/history?min_payout=20.01").text
    bad = client.get("/review/history?card=ZZ")
    assert bad.status_code == 200 and "is not a card" in bad.text


def test_api_rounds_filters_and_cursor(store_client: FlaskClient, floor: Floor) -> None:
    open_shift(store_client, floor)
    ids = [log(store_client, floor)["round_id"] for _ in range(3)]
    token = floor.tokens["auditor"]
    page = call(store_client, "GET", "/rounds?limit=2", token).json
    assert [r["round_id"] for r in page["rounds"]] == ids[:0:-1] and page["next_before"]
    rest = call(store_client, "GET", f"/rounds?limit=2&before={page['next_before']}", token)
    assert [r["round_id"] for r in rest.json["rounds"]] == [ids[0]]
    assert rest.json["next_before"] is None
    for query, expected in (("bet=pair_plus", 3), ("bet=prime", 0), ("card=KS", 3),
                            ("seat=2&min_payout=1", 0), ("status=settled", 3)):
        found = call(store_client, "GET", f"/rounds?{query}", token).json["rounds"]
        assert len(found) == expected, query
    assert_error(call(store_client, "GET", "/rounds?status=lost", token), 400, "bad_request")


def test_dispute_page_shows_everything_and_rechecks(store_auth: Auth, floor: Floor) -> None:
    client = store_auth.client
    open_shift(client, floor)
    rid = log(client, floor)["round_id"]
    store_auth.as_role("auditor")
    page = client.get(f"/review/rounds/{rid}").text
    for text in ("K-7-2 high", "typed at the dealer screen", "dana", "Pay tables",
                 "2.3167%", "round.logged", f"/rounds/{rid}/dispute.pdf",
                 "beats dealer Q-8-3 high"):
        assert text in page, text
    assert 'data-testid="void"' not in page  # an auditor changes nothing
    checked = client.get(f"/review/rounds/{rid}?recheck=1").text
    assert "agrees with every logged amount" in checked


def test_void_and_misdeal_by_a_supervisor(store_auth: Auth, floor: Floor) -> None:
    client = store_auth.client
    open_shift(client, floor)
    rid = log(client, floor)["round_id"]
    other = log(client, floor)["round_id"]
    store_auth.as_role("supervisor")
    assert store_auth.post_form(f"/review/rounds/{rid}/void", {"reason": " "}).status_code == 400
    done = store_auth.post_form(f"/review/rounds/{rid}/void", {"reason": "wrong table"})
    assert done.status_code == 302
    page = client.get(f"/review/rounds/{rid}").text
    assert "Voided by sam" in page and "wrong table" in page and "K-7-2 high" in page
    again = store_auth.post_form(f"/review/rounds/{rid}/void", {"reason": "twice"})
    assert again.status_code == 409
    store_auth.post_form(f"/review/rounds/{other}/void", {"reason": "card exposed",
                                                          "kind": "misdeal"})
    assert "Declared a misdeal" in client.get(f"/review/rounds/{other}").text
    listed = client.get("/review/history?status=misdeal").text
    assert f'data-round="{other}"' in listed and f'data-round="{rid}"' not in listed


def test_correction_shows_what_is_still_owed(store_auth: Auth, floor: Floor) -> None:
    client = store_auth.client
    open_shift(client, floor)
    rid = log(client, floor)["round_id"]
    store_auth.as_role("supervisor")
    form = client.get(f"/review/rounds/{rid}/correct").text
    assert 'value="KS 7H 2C"' in form
    # Seat 2 had really played (it was entered as a fold): 5C 5D 9H beats Q-8-3.
    data = {"dealer": "QH 8C 3D", "cards-1": "KS 7H 2C", "ante-1": "10", "play-1": "play",
            "pair_plus-1": "5", "cards-2": "5C 5D 9H", "ante-2": "10", "play-2": "play",
            "pair_plus-2": "5", "reason": "seat 2 played"}
    preview = store_auth.post_form(f"/review/rounds/{rid}/correct",
                                   {**data, "action": "preview"})
    assert preview.status_code == 200 and "Preview (not logged)" in preview.text
    done = store_auth.post_form(f"/review/rounds/{rid}/correct", {**data, "action": "log"})
    assert done.status_code == 302
    new_page = client.get(done.headers["Location"]).text
    # Seat 2: logged -1500 (ante and pair plus lost); truly +2500 (ante, play, pair plus 1:1).
    assert re.search(r'data-seat="2">.*?Pay the player \$40', new_page, re.S)
    assert "Nothing" in new_page  # seat 1 unchanged
    old = client.get(f"/review/rounds/{rid}").text
    assert "This round was corrected" in old and "K-7-2 high" in old
    bad = store_auth.post_form(f"/review/rounds/{rid}/correct", {**data, "action": "log"})
    assert bad.status_code == 422


def test_supervisor_only_changes(store_auth: Auth, floor: Floor) -> None:
    client = store_auth.client
    open_shift(client, floor)
    rid = log(client, floor)["round_id"]
    for role in ("dealer", "auditor", "admin"):
        store_auth.as_role(role)
        refused = store_auth.post_form(f"/review/rounds/{rid}/void", {"reason": "x"})
        assert refused.status_code == 403 and "needs the role supervisor" in refused.text
        store_auth.logout()


def test_api_void_correct_audit(store_client: FlaskClient, floor: Floor) -> None:
    open_shift(store_client, floor)
    rid = log(store_client, floor)["round_id"]
    sup = floor.tokens["supervisor"]
    assert_error(call(store_client, "POST", f"/rounds/{rid}/void", floor.tokens["dealer"],
                      json={"reason": "x"}), 403, "forbidden")
    assert_error(call(store_client, "POST", f"/rounds/{rid}/void", sup, json={}), 400,
                 "bad_request")
    fixed = copy.deepcopy(ROUND)
    fixed["seats"][1]["play"] = True
    made = call(store_client, "POST", f"/rounds/{rid}/corrections", sup,
                json={"round": fixed, "reason": "seat 2 played"})
    assert made.status_code == 201, made.json
    body = made.json
    assert body["corrects_round_id"] == rid and body["serial"] == 2
    owed = {d["seat"]: (d["action"], d["amount"]) for d in body["deltas"]}
    assert owed == {1: ("none", 0), 2: ("pay", 4000)}
    audit = call(store_client, "GET", f"/rounds/{rid}/audit", floor.tokens["auditor"]).json
    assert audit["status"] == "corrected" and audit["replaced_by_round_id"] == body["round_id"]
    assert [a["action"] for a in audit["audit"]] == ["round.logged", "round.corrected"]
    assert_error(call(store_client, "POST", f"/rounds/{rid}/void", sup, json={"reason": "x"}),
                 409, "conflict")
    voided = call(store_client, "POST", f"/rounds/{body['round_id']}/void", sup,
                  json={"reason": "test", "kind": "void"})
    assert voided.status_code == 201 and voided.json["status"] == "voided"


def test_large_payout_needs_a_supervisor(store_auth: Auth, floor: Floor,
                                         store_app: Flask) -> None:
    client = store_auth.client
    open_shift(client, floor)
    refused = call(client, "POST", "/tables/TCP-1/rounds", floor.tokens["dealer"], json=BIG)
    body = assert_error(refused, 403, "approval_required")
    assert "supervisor must approve" in body["message"]
    wrong = call(client, "POST", "/tables/TCP-1/rounds", floor.tokens["dealer"],
                 json={**BIG, "approval": {"supervisor": "sam", "password": "nope"}})
    assert_error(wrong, 403, "forbidden")
    not_sup = call(client, "POST", "/tables/TCP-1/rounds", floor.tokens["dealer"],
                   json={**BIG, "approval": {"supervisor": "alex",
                                             "password": "audit-pass-1"}})
    assert_error(not_sup, 403, "forbidden")
    ok = call(client, "POST", "/tables/TCP-1/rounds", floor.tokens["dealer"],
              json={**BIG, "approval": {"supervisor": "sam", "password": "super-pass-1"}},
              headers={"Idempotency-Key": "big-round-0001"})
    assert ok.status_code == 201, ok.json
    again = call(client, "POST", "/tables/TCP-1/rounds", floor.tokens["dealer"], json=BIG,
                 headers={"Idempotency-Key": "big-round-0001"})
    assert again.status_code == 200 and again.json["replayed"]
    # Signed in as the dealer at the screen, with the supervisor's password typed in.
    store_auth.as_role("dealer")
    screen = store_auth.post_json("/dealer/TCP-1/rounds", {**BIG, "approval": {
        "supervisor": "sam", "password": "super-pass-1"}})
    assert screen.status_code == 201, screen.json
    engine = db.make_engine(floor.url)
    try:
        with engine.connect() as conn:
            methods = conn.execute(sa.select(PayoutApproval.method)).scalars().all()
            actions = conn.execute(sa.select(AuditEvent.action)).scalars().all()
    finally:
        engine.dispose()
    assert methods == ["password", "password"]
    assert actions.count("payout.approved") == 2
    store_auth.logout()
    store_auth.as_role("auditor")
    page = client.get(f"/review/rounds/{ok.json['round_id']}").text
    assert "approved by <strong>sam</strong> (password)" in page


def test_floor_view(store_auth: Auth, floor: Floor) -> None:
    client = store_auth.client
    open_shift(client, floor)
    log(client, floor)
    store_auth.as_role("auditor")
    page = client.get("/review/floor").text
    assert 'http-equiv="refresh"' in page
    row = re.search(r'data-table="TCP-1".*?</tr>', page, re.S)
    assert row and "dana" in row.group(0) and "$40" in row.group(0)  # handle 10+10+5 + 10+5
    assert "no shift open" in re.search(r'data-table="TCP-2".*?</tr>', page, re.S).group(0)


def test_administration(store_auth: Auth, floor: Floor) -> None:
    client = store_auth.client
    store_auth.as_role("admin")
    assert client.get("/admin/tables").status_code == 200
    saved = store_auth.post_form("/admin/tables/TCP-1", {
        "seats": "6", "active": "on", "large_payout_threshold": "2500",
        "chip_denominations": "1 5 25 100"})
    assert saved.status_code == 302
    api = call(client, "GET", "/tables", floor.tokens["admin"]).json["tables"]
    tcp1 = next(t for t in api if t["name"] == "TCP-1")
    assert tcp1["seats"] == 6 and tcp1["large_payout_threshold"] == 250_000
    assert tcp1["denominations"] == [10_000, 2_500, 500, 100]
    preview = store_auth.post_form("/admin/rulesets", {
        "source": "preset", "preset": "pair_plus 40-25-6-4-1", "action": "preview"})
    assert "3.4932%" in preview.text
    bad = store_auth.post_form("/admin/rulesets", {"source": "json", "rules_json": "{",
                                                   "action": "preview"})
    assert bad.status_code == 422 and "not valid JSON" in bad.text
    created = store_auth.post_form("/admin/rulesets", {
        "source": "json", "rules_json": '{"pair_plus": "40-25-6-4-1"}', "action": "create",
        "label": "PP 40-25"})
    assert created.status_code == 302
    assert "PP 40-25" in client.get("/admin/rulesets").text
    made = store_auth.post_form("/admin/users", {"name": "newbie", "password": "newbie-pass-1",
                                                 "roles": "dealer"})
    assert made.status_code == 302
    assert store_auth.post_form("/admin/users/newbie", {
        "what": "active", "active": "0"}).status_code == 302
    token_page = store_auth.post_form("/admin/tokens", {"user": "alex", "label": "audit box"})
    token = re.search(r"<code>(da_[^<]+)</code>", token_page.text)
    assert token
    assert call(client, "GET", "/tables", token.group(1)).status_code == 200
    token_id = re.findall(r'/admin/tokens/(\d+)/revoke', token_page.text)[-1]
    store_auth.post_form(f"/admin/tokens/{token_id}/revoke")
    assert call(client, "GET", "/tables", token.group(1)).status_code == 401
    engine = db.make_engine(floor.url)
    try:
        with engine.connect() as conn:
            actions = set(conn.execute(sa.select(AuditEvent.action)).scalars())
    finally:
        engine.dispose()
    assert {"table.changed", "ruleset.added", "user.created", "user.changed",
            "token.created", "token.revoked"} <= actions


def test_the_tables_page_shows_each_tables_scan_deck(store_auth: Auth, floor: Floor) -> None:
    """The enrolled deck on record for a table's scans, by the start of its SHA-256."""
    from dealer_assist.services.table_decks import set_table_deck

    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as session:
            set_table_deck(session, "TCP-1", "ab12" * 16)
    finally:
        engine.dispose()
    store_auth.as_role("admin")
    page = store_auth.client.get("/admin/tables").text
    row = re.search(r'data-testid="deck-TCP-1".*?</td>', page, re.S)
    assert row and ">ab12ab12ab12<" in row.group(0) and "ab12" * 16 in row.group(0)
    other = re.search(r'data-testid="deck-TCP-2".*?</td>', page, re.S)
    assert other and "none" in other.group(0)


@pytest.mark.parametrize("role", ["dealer", "auditor", "supervisor"])
def test_admin_pages_refused(store_auth: Auth, role: str) -> None:
    store_auth.as_role(role)
    refused = store_auth.client.get("/admin/users")
    assert refused.status_code == 403 and "needs the role admin" in refused.text
