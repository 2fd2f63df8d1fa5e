"""The dealer blueprint: tables, shifts, the screen, settle preview, logging, history."""

from __future__ import annotations

import copy
import json
import re

import pytest

from dealer_assist.web.backend import UnavailableError

from .conftest import ROUND, Auth
from .memory_backend import MemoryBackend


def open_shift(backend: MemoryBackend, table: str = "TCP-1") -> None:
    backend.open_shift(table, backend.users["sam"][0])


@pytest.mark.parametrize("role", ["dealer", "supervisor", "auditor", "admin"])
def test_tables_page_for_every_role(auth: Auth, role: str) -> None:
    auth.as_role(role)
    page = auth.client.get("/dealer/")
    assert page.status_code == 200
    assert "TCP-1" in page.text and "TCP-2" in page.text
    assert ("Open shift" in page.text) == (role in ("supervisor", "admin"))


@pytest.mark.parametrize("role,status", [("dealer", 403), ("auditor", 403),
                                         ("supervisor", 302), ("admin", 302)])
def test_open_shift_by_role(auth: Auth, backend: MemoryBackend, role: str, status: int) -> None:
    auth.as_role(role)
    response = auth.post_form("/dealer/TCP-1/shift/open")
    assert response.status_code == status
    assert (backend.current_shift("TCP-1") is not None) == (status == 302)


def test_open_shift_needs_csrf(auth: Auth, backend: MemoryBackend) -> None:
    auth.as_role("supervisor")
    assert auth.client.post("/dealer/TCP-1/shift/open").status_code == 400
    assert backend.current_shift("TCP-1") is None


@pytest.mark.parametrize("role,status", [("dealer", 403), ("supervisor", 302)])
def test_close_shift_by_role(auth: Auth, backend: MemoryBackend, role: str, status: int) -> None:
    open_shift(backend)
    auth.as_role(role)
    assert auth.post_form("/dealer/TCP-1/shift/close").status_code == status
    assert (backend.current_shift("TCP-1") is None) == (status == 302)


def test_close_without_shift_says_so(auth: Auth) -> None:
    auth.as_role("supervisor")
    response = auth.post_form("/dealer/TCP-1/shift/close")
    assert response.status_code == 302
    assert "No shift is open" in auth.client.get("/dealer/").text


def test_unknown_table_is_404(auth: Auth) -> None:
    auth.as_role("dealer")
    assert auth.client.get("/dealer/NOPE").status_code == 404


def test_screen_without_shift(auth: Auth) -> None:
    auth.as_role("dealer")
    page = auth.client.get("/dealer/TCP-1")
    assert page.status_code == 200
    assert "no shift is open" in page.text and "Ask a supervisor" in page.text
    auth.logout()
    auth.as_role("supervisor")
    assert "Open shift at TCP-1" in auth.client.get("/dealer/TCP-1").text


@pytest.mark.parametrize("role,status", [("dealer", 200), ("supervisor", 200), ("admin", 403),
                                         ("auditor", 403)])
def test_screen_by_role(auth: Auth, backend: MemoryBackend, role: str, status: int) -> None:
    open_shift(backend)
    auth.as_role(role)
    assert auth.client.get("/dealer/TCP-1").status_code == status


def _config(page: str) -> dict:  # type: ignore[type-arg]
    found = re.search(r'<script type="application/json" id="dealer-config">(.*?)</script>',
                      page, re.S)
    assert found
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def test_screen_has_seats_picker_chips_and_config(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    page = auth.client.get("/dealer/TCP-1").text
    assert page.count('class="seat"') == 7
    assert page.count('class="pick ') == 52
    assert 'data-chip="2500"' in page
    config = _config(page)
    assert config["seats"] == 7 and config["threshold"] == 500_000
    assert config["lastStakes"] == []


def test_settle_preview(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    response = auth.post_json("/dealer/TCP-1/settle", ROUND)
    assert response.status_code == 200
    seats = response.json["settlement"]["seats"]
    assert [s["total"] for s in seats] == [1500, -1500]
    plan = response.json["pay_plan"]
    assert plan[0]["pay"] == 2000 and plan[0]["chips"] == [{"denomination": 500, "count": 4}]
    assert plan[1]["collect"] == 1500
    assert backend.rounds == []  # a preview logs nothing


def test_settle_flags_over_threshold(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend, "TCP-2")  # threshold $1,000
    auth.as_role("dealer")
    body = {"dealer": ["KH", "AH", "2C"], "seats": [
        {"seat": 4, "cards": ["10H", "JH", "QH"], "ante": 1000, "play": True, "pair_plus": 500,
         "six_card": 500, "prime": 500}]}
    plan = auth.post_json("/dealer/TCP-2/settle", body).json["pay_plan"][0]
    assert plan["flagged"] and plan["pay"] > 100_000
    assert plan["chips"][0]["denomination"] == 500_000


def test_settle_error_names_seat_and_field(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    body = copy.deepcopy(ROUND)
    body["seats"][1]["cards"] = ["KS", "5D", "9H"]
    response = auth.post_json("/dealer/TCP-1/settle", body)
    assert response.status_code == 422
    assert response.json["error"] == {"code": "invalid_round", "field": "seats[1].cards",
                                       "message": "seat 2: KS is already in seat 1"}


def test_settle_refuses_rules_in_the_round(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    response = auth.post_json("/dealer/TCP-1/settle", {**ROUND, "rules": {}})
    assert response.status_code == 422 and response.json["error"]["field"] == "rules"


def test_settle_needs_csrf_header(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    response = auth.client.post("/dealer/TCP-1/settle", json=ROUND)
    assert response.status_code == 400 and response.json["error"]["code"] == "csrf_failed"


def test_auditor_cannot_settle(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("auditor")
    assert auth.post_json("/dealer/TCP-1/settle", ROUND).status_code == 403


def test_log_round_is_idempotent(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    key = "a1b2c3d4e5f60718"
    first = auth.post_json("/dealer/TCP-1/rounds", ROUND, **{"Idempotency-Key": key})
    assert first.status_code == 201
    assert first.json["serial"] == 1 and not first.json["replayed"]
    again = auth.post_json("/dealer/TCP-1/rounds", ROUND, **{"Idempotency-Key": key})
    assert again.status_code == 200 and again.json["replayed"]
    assert again.json["round_id"] == first.json["round_id"]
    assert len(backend.rounds) == 1
    other = auth.post_json("/dealer/TCP-1/rounds", ROUND, **{"Idempotency-Key": key + "x"})
    assert other.json["serial"] == 2


def test_log_round_bad_key(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    response = auth.post_json("/dealer/TCP-1/rounds", ROUND, **{"Idempotency-Key": "x y"})
    assert response.status_code == 400 and response.json["error"]["field"] == "Idempotency-Key"


def test_log_round_invalid_logs_nothing(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    body = {"dealer": ["QH", "8C"], "seats": ROUND["seats"]}
    response = auth.post_json("/dealer/TCP-1/rounds", body)
    assert response.status_code == 422
    assert response.json["error"]["message"] == "dealer: needs exactly 3 cards, got 2"
    assert backend.rounds == []


def test_log_round_needs_open_shift(auth: Auth) -> None:
    auth.as_role("dealer")
    response = auth.post_json("/dealer/TCP-1/rounds", ROUND)
    assert response.status_code == 409 and "no shift is open" in response.json["error"]["message"]


def test_store_down_is_503_and_nothing_lost(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    backend.fail_next_log = UnavailableError("the database cannot be reached")
    response = auth.post_json("/dealer/TCP-1/rounds", ROUND, **{"Idempotency-Key": "k" * 16})
    assert response.status_code == 503
    assert response.json["error"]["code"] == "store_unavailable"
    retry = auth.post_json("/dealer/TCP-1/rounds", ROUND, **{"Idempotency-Key": "k" * 16})
    assert retry.status_code == 201


def test_next_screen_carries_last_stakes(auth: Auth, backend: MemoryBackend) -> None:
    open_shift(backend)
    auth.as_role("dealer")
    auth.post_json("/dealer/TCP-1/rounds", ROUND)
    config = _config(auth.client.get("/dealer/TCP-1").text)
    assert config["lastStakes"][0] == {"seat": 1, "ante": 1000, "pair_plus": 500,
                                       "six_card": 0, "prime": 0}


@pytest.mark.parametrize("role", ["dealer", "supervisor", "auditor", "admin"])
def test_history_and_round_page(auth: Auth, backend: MemoryBackend, role: str) -> None:
    open_shift(backend)
    backend.log_round("TCP-1", ROUND, backend.users["dana"][0], None)
    auth.as_role(role)
    page = auth.client.get("/dealer/TCP-1/history")
    assert page.status_code == 200 and 'data-serial="1"' in page.text
    assert '<td class="num">$0</td>' in page.text  # seat 1 +$15, seat 2 -$15
    detail = auth.client.get("/dealer/rounds/1")
    assert detail.status_code == 200
    assert "Player K-7-2 high beats dealer Q-8-3 high" in detail.text
    assert auth.client.get("/dealer/rounds/99").status_code == 404
    assert auth.client.get("/dealer/TCP-1/history?scope=all").status_code == 200
