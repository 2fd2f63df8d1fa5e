"""The dealer's pages end to end on the real hand log (SQLite)."""

from __future__ import annotations

import re

import pytest

from .conftest import ROUND, Auth


@pytest.mark.parametrize("role", ["dealer", "supervisor", "auditor", "admin"])
def test_every_role_signs_in(store_auth: Auth, role: str) -> None:
    store_auth.as_role(role)
    page = store_auth.client.get("/dealer/")
    assert page.status_code == 200 and "TCP-1" in page.text


def test_wrong_password_on_the_store(store_auth: Auth) -> None:
    assert store_auth.login("dana", "not-the-password").status_code == 401


def test_shift_round_history_close(store_auth: Auth) -> None:
    store_auth.as_role("supervisor")
    assert store_auth.post_form("/dealer/TCP-1/shift/open").status_code == 302
    screen = store_auth.client.get("/dealer/TCP-1")
    assert screen.status_code == 200 and 'data-testid="settle"' in screen.text
    preview = store_auth.post_json("/dealer/TCP-1/settle", ROUND)
    assert preview.status_code == 200
    assert preview.json["pay_plan"][0]["pay"] == 2000
    key = {"Idempotency-Key": "screen-attempt-0001"}
    logged = store_auth.post_json("/dealer/TCP-1/rounds", ROUND, **key)
    assert logged.status_code == 201 and logged.json["serial"] == 1
    assert logged.json["settlement"] == preview.json["settlement"]
    twice = store_auth.post_json("/dealer/TCP-1/rounds", ROUND, **key)
    assert twice.status_code == 200 and twice.json["round_id"] == logged.json["round_id"]
    history = store_auth.client.get("/dealer/TCP-1/history")
    assert history.text.count("data-serial=") == 1
    detail = store_auth.client.get(f"/dealer/rounds/{logged.json['round_id']}")
    assert "Folded: ante loses" in detail.text
    config = re.search(r'"lastStakes": (\[.*?\])', store_auth.client.get("/dealer/TCP-1").text)
    assert config and '"ante": 1000' in config.group(1)
    assert store_auth.post_form("/dealer/TCP-1/shift/close").status_code == 302
    assert "no shift open" in store_auth.client.get("/dealer/").text


def test_dealer_cannot_open_a_shift_on_the_store(store_auth: Auth) -> None:
    store_auth.as_role("dealer")
    assert store_auth.post_form("/dealer/TCP-1/shift/open").status_code == 403


def test_table_rules_apply(store_auth: Auth) -> None:
    store_auth.as_role("supervisor")
    store_auth.post_form("/dealer/TCP-2/shift/open")
    body = {"dealer": ["QH", "8C", "3D"], "seats": [
        {"seat": 1, "cards": ["7S", "7H", "7C"], "ante": 1000, "play": True, "pair_plus": 100}]}
    seat = store_auth.post_json("/dealer/TCP-2/settle", body).json["settlement"]["seats"][0]
    assert seat["net"]["pair_plus"] == 2500  # 35-25-6-4-1: trips pay 25
    body["seats"][0]["seat"] = 7  # TCP-2 has 6 seats
    error = store_auth.post_json("/dealer/TCP-2/settle", body).json["error"]
    assert error["message"] == "seat 7 is not at this table (seats 1-6)"
