"""The supervisor's, auditor's and admin's screens in Chromium: dispute review with
re-check, void, correction with what is still owed, history, floor, administration.
Screenshots in test-artifacts/ (review-*.png)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.web.conftest import ROUND

from .conftest import LiveServer, shot, sign_in


def _floor_with_rounds(server: LiveServer, n: int = 3) -> list[int]:
    client = server.app.test_client()
    sup = {"Authorization": f"Bearer {server.floor.tokens['supervisor']}"}
    dealer = {"Authorization": f"Bearer {server.floor.tokens['dealer']}"}
    assert client.post("/api/v1/tables/TCP-1/shifts", headers=sup).status_code == 201
    ids = []
    for _ in range(n):
        response = client.post("/api/v1/tables/TCP-1/rounds", headers=dealer, json=ROUND)
        assert response.status_code == 201
        ids.append(response.get_json()["round_id"])
    return ids


def test_dispute_page_and_recheck(page: Any, live_server: LiveServer) -> None:
    rid = _floor_with_rounds(live_server)[0]
    sign_in(page, live_server, "alex")
    page.goto(f"{live_server.url}/review/rounds/{rid}")
    expect(page.locator("[data-testid=status]")).to_have_text("settled")
    expect(page.locator("[data-testid=dispute-pdf]")).to_be_visible()
    expect(page.locator("[data-testid=void]")).to_have_count(0)
    shot(page, "review-01-dispute")
    page.click("[data-testid=recheck]")
    expect(page.locator("[data-testid=recheck-result]")).to_contain_text("agrees")
    page.set_viewport_size({"width": 1280, "height": 1800})
    shot(page, "review-02-dispute-full")


def test_void_from_the_history(page: Any, live_server: LiveServer) -> None:
    ids = _floor_with_rounds(live_server)
    sign_in(page, live_server, "sam")
    page.goto(f"{live_server.url}/review/history")
    shot(page, "review-03-history")
    page.click(f"tr[data-round='{ids[1]}'] a")
    page.click("[data-testid=void]")
    page.fill("[data-testid=reason]", "dealt at the wrong table")
    shot(page, "review-04-void-form")
    page.click("[data-testid=confirm]")
    expect(page.locator("[data-testid=status]")).to_have_text("voided")
    expect(page.locator("[data-testid=event]")).to_contain_text("dealt at the wrong table")
    shot(page, "review-05-voided")
    page.goto(f"{live_server.url}/review/history?status=voided")
    expect(page.locator("[data-testid=history] tbody tr")).to_have_count(1)


def test_correction_shows_what_to_pay(page: Any, live_server: LiveServer) -> None:
    rid = _floor_with_rounds(live_server, 1)[0]
    sign_in(page, live_server, "sam")
    page.goto(f"{live_server.url}/review/rounds/{rid}")
    page.click("[data-testid=correct]")
    page.select_option("[data-testid=play-2]", "play")
    page.fill("[data-testid=reason]", "seat 2 played; entered as a fold")
    page.click("[data-testid=preview]")
    expect(page.locator("[data-testid=preview-table]")).to_be_visible()
    shot(page, "review-06-correction-preview")
    page.click("[data-testid=confirm]")
    expect(page.locator("[data-testid=deltas] tr[data-seat='2']")).to_contain_text(
        "Pay the player $40")
    shot(page, "review-07-correction-owed")
    page.goto(f"{live_server.url}/review/rounds/{rid}")
    expect(page.locator("[data-testid=replaced]")).to_be_visible()


def test_floor_and_admin(page: Any, live_server: LiveServer) -> None:
    _floor_with_rounds(live_server)
    sign_in(page, live_server, "ada")
    page.goto(f"{live_server.url}/review/floor")
    expect(page.locator("tr[data-table='TCP-1']")).to_contain_text("dana")
    shot(page, "review-08-floor")
    page.goto(f"{live_server.url}/admin/tables")
    shot(page, "review-09-admin-tables")
    page.goto(f"{live_server.url}/admin/rulesets")
    page.click("[data-testid=preview]")
    expect(page.locator("[data-testid=candidate]")).to_contain_text("2.3167%")
    shot(page, "review-10-admin-ruleset")
    page.goto(f"{live_server.url}/admin/users")
    shot(page, "review-11-admin-users")
