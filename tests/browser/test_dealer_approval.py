"""The dealer screen in Chromium: a large payout approved in place by the supervisor (wrong
password first, then a lost answer: logged once), and a misdeal with its reason, every
stake returned. Screenshots in test-artifacts/ (dealer-approval-*.png, dealer-misdeal-*.png).
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.web.conftest import PASSWORDS

from .conftest import LiveServer, shot, sign_in


def _open_shift(server: LiveServer) -> None:
    client = server.app.test_client()
    sup = {"Authorization": f"Bearer {server.floor.tokens['supervisor']}"}
    assert client.post("/api/v1/tables/TCP-1/shifts", headers=sup).status_code == 201


def _rounds(server: LiveServer, **args: str) -> list[dict[str, Any]]:
    client = server.app.test_client()
    sup = {"Authorization": f"Bearer {server.floor.tokens['supervisor']}"}
    response = client.get("/api/v1/rounds", headers=sup, query_string={"table": "TCP-1", **args})
    assert response.status_code == 200, response.text
    body = response.get_json()
    rows: list[dict[str, Any]] = body["rounds"] if isinstance(body, dict) else body
    return rows


def _enter_large_payout(page: Any) -> None:
    """RULES.md §6 "every bet at once": $5,285 to seat 4, over the $5,000 threshold."""
    for key, amount in (("ante", "10"), ("pair_plus", "5"), ("six_card", "5"), ("prime", "5")):
        page.fill(f"[data-testid=stake-4-{key}]", amount)
    page.fill("#cards-dealer", "kh ah 2c")
    page.fill("#cards-4", "10h jh qh")
    page.tap("[data-testid=decision-4] [data-decide=play]")
    page.tap("[data-testid=settle]")
    page.wait_for_selector("#result:not([hidden])")


def test_large_payout_approved_at_the_dealer_screen(page: Any, live_server: LiveServer) -> None:
    _open_shift(live_server)
    sign_in(page, live_server, "dana")
    page.goto(live_server.url + "/dealer/TCP-1")
    _enter_large_payout(page)
    page.tap("[data-testid=confirm]")
    approval = page.locator("[data-testid=approval]")
    expect(approval).to_be_visible()
    expect(page.locator("[data-testid=approval-why]")).to_contain_text("seat 4")
    expect(page.locator("[data-testid=confirm]")).to_be_hidden()
    assert _rounds(live_server) == []
    shot(page, "dealer-approval-01-asked")

    # A wrong password: refused, nothing logged, the round stays on the screen.
    page.fill("[data-testid=approval-name]", "sam")
    page.fill("[data-testid=approval-password]", "not-his-password")
    page.click("[data-testid=approval-submit]")
    expect(page.locator("[data-testid=approval-error]")).to_contain_text("wrong")
    expect(approval).to_be_visible()
    assert page.input_value("[data-testid=approval-password]") == ""
    assert _rounds(live_server) == []
    shot(page, "dealer-approval-02-wrong-password")

    # The dealer is not a supervisor: their own password does not approve.
    page.fill("[data-testid=approval-name]", "dana")
    page.fill("[data-testid=approval-password]", PASSWORDS["dana"])
    page.click("[data-testid=approval-submit]")
    expect(page.locator("[data-testid=approval-error]")).to_contain_text("not a supervisor")
    assert _rounds(live_server) == []

    # The right password, but the answer is lost on the way back: the server logged it.
    def lose_answer(route: Any) -> None:
        route.fetch()
        route.abort("internetdisconnected")

    page.route("**/rounds", lose_answer)
    page.fill("[data-testid=approval-name]", "sam")
    page.fill("[data-testid=approval-password]", PASSWORDS["sam"])
    page.click("[data-testid=approval-submit]")
    expect(page.locator("[data-testid=approval-error]")).to_contain_text("never logged twice")
    assert page.input_value("#cards-4") == "10h jh qh"
    assert len(_rounds(live_server)) == 1

    # The retry (same Idempotency-Key) returns the first result and logs nothing twice.
    page.unroute("**/rounds")
    page.fill("[data-testid=approval-password]", PASSWORDS["sam"])
    page.click("[data-testid=approval-submit]")
    page.wait_for_selector("#result", state="hidden")
    expect(page.locator("[data-testid=toast]")).to_contain_text("Round 1 logged")
    expect(page.locator("[data-testid=toast]")).to_contain_text("already logged")
    shot(page, "dealer-approval-03-logged")
    rows = _rounds(live_server)
    assert len(rows) == 1

    # The dispute page shows who approved it.
    page.click("text=Sign out")
    sign_in(page, live_server, "sam")
    page.goto(f"{live_server.url}/review/rounds/{rows[0]['round_id']}")
    expect(page.locator("body")).to_contain_text("sam")
    expect(page.locator("body")).to_contain_text("approv")


def test_misdeal_returns_every_stake(page: Any, live_server: LiveServer) -> None:
    _open_shift(live_server)
    sign_in(page, live_server, "dana")
    page.goto(live_server.url + "/dealer/TCP-1")
    page.fill("[data-testid=stake-1-ante]", "25")
    page.fill("[data-testid=stake-1-pair_plus]", "5")
    page.fill("[data-testid=stake-3-ante]", "10")
    page.fill("#cards-dealer", "qh 8c")
    page.fill("#cards-1", "ks 7h 2c")
    # The misdeal button is apart from Settle (in the top bar), and asks first.
    page.tap("[data-testid=misdeal]")
    dialog = page.locator("[data-testid=misdeal-dialog]")
    expect(dialog).to_be_visible()
    expect(page.locator("[data-testid=misdeal-seats]")).to_have_text("1, 3")
    page.tap("[data-testid=misdeal-go]")
    expect(page.locator("[data-testid=misdeal-error]")).to_contain_text("reason")
    shot(page, "dealer-misdeal-01-reason")
    # Cancel keeps the entry.
    page.tap("[data-testid=misdeal-cancel]")
    expect(dialog).to_be_hidden()
    assert page.input_value("#cards-dealer") == "qh 8c"
    page.tap("[data-testid=misdeal]")
    page.tap("text=A card exposed during the deal")
    assert page.input_value("[data-testid=misdeal-reason]") == "a card exposed during the deal"
    page.tap("[data-testid=misdeal-go]")
    page.wait_for_selector("#result:not([hidden])")
    expect(page.locator("#result-title")).to_have_text("Misdeal: every stake returned")
    expect(page.locator("[data-testid=result-totals]")).to_contain_text("Pay $0")
    expect(page.locator(".pill[data-seat='1']")).to_contain_text("Push")
    expect(page.locator(".pill[data-seat='3']")).to_contain_text("Push")
    shot(page, "dealer-misdeal-02-confirm")
    page.tap("[data-testid=confirm]")
    page.wait_for_selector("#result", state="hidden")
    expect(page.locator("[data-testid=toast]")).to_contain_text("Round 1 logged")
    assert page.input_value("#cards-dealer") == ""
    rows = _rounds(live_server)
    assert len(rows) == 1 and rows[0]["total"] == 0
    client = live_server.app.test_client()
    sup = {"Authorization": f"Bearer {live_server.floor.tokens['supervisor']}"}
    logged = client.get(f"/api/v1/rounds/{rows[0]['round_id']}", headers=sup).get_json()
    assert logged["misdeal"] is True
    assert "exposed" in logged["settlement"]["misdeal_reason"]
