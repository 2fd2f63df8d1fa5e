"""Shift pages in Chromium: the supervisor opens a shift with the opening chip count, records
a fill and a credit, closes it with the closing count; the auditor reads the shift list and
page and downloads the shift report; the dealer has no way in. Screenshots in
test-artifacts/ (shift-*.png)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.web.conftest import ROUND

from .conftest import LiveServer, shot, sign_in


def test_supervisor_runs_a_shift_and_the_auditor_downloads_it(page: Any,
                                                              live_server: LiveServer) -> None:
    sign_in(page, live_server, "sam")
    page.click("tr[data-table='TCP-1'] >> text=Open shift")
    page.fill("[data-testid=chip-500]", "200")
    page.fill("[data-testid=chip-2500]", "100")
    page.fill("[data-testid=chip-10000]", "50")
    expect(page.locator("[data-testid=chip-total]")).to_have_text("Total $8,500.00")
    shot(page, "shift-01-open-form")
    page.click("[data-testid=open-submit]")
    expect(page.locator("[data-testid=shift-status]")).to_have_text("open")
    expect(page.locator("[data-testid=opening-value]")).to_have_text("$8,500")

    # A round at the table (through the API, as a dealer's tablet would).
    client = live_server.app.test_client()
    dealer = {"Authorization": f"Bearer {live_server.floor.tokens['dealer']}"}
    logged = client.post("/api/v1/tables/TCP-1/rounds", headers=dealer, json=ROUND)
    assert logged.status_code == 201
    house_win = -logged.get_json()["settlement"]["total"]

    # A fill of 20 x $100, then a credit of 20 x $25.
    form = page.locator("[data-testid=chips-form]")
    form.locator("[data-testid=chip-10000]").fill("20")
    form.locator("[data-testid=record-fill]").click()
    expect(page.locator("[data-testid=fills]")).to_have_text("$2,000")
    page.locator("[data-testid=chips-form] [data-testid=chip-2500]").fill("20")
    page.locator("[data-testid=record-credit]").click()
    expect(page.locator("[data-testid=credits]")).to_have_text("$500")
    expect(page.locator("[data-testid=movements] tbody tr")).to_have_count(2)
    page.set_viewport_size({"width": 1280, "height": 1500})
    shot(page, "shift-02-open-with-fill-and-credit")

    # Close: the closing count is typed the same way.
    page.click("[data-testid=close-shift]")
    page.click("[data-testid=close-submit]")
    expect(page.locator("[data-testid=form-error]")).to_contain_text("closing chip count")
    page.fill("[data-testid=chip-500]", "200")
    page.fill("[data-testid=chip-2500]", "80")
    page.fill("[data-testid=chip-10000]", "70")
    shot(page, "shift-03-close-form")
    page.click("[data-testid=close-submit]")
    expect(page.locator("[data-testid=shift-status]")).to_have_text("closed")
    expect(page.locator("[data-testid=closing-value]")).to_have_text("$10,000")
    expect(page.locator("[data-testid=inventory-win]")).to_have_text("$0")
    if house_win:
        expect(page.locator("[data-testid=difference]")).to_contain_text("count again")
    shot(page, "shift-04-closed")
    page.click("text=Sign out")

    # The auditor: the list, the page, the report.
    page.set_viewport_size({"width": 1024, "height": 768})
    sign_in(page, live_server, "alex")
    page.click("[data-testid=nav-shifts]")
    rows = page.locator("[data-testid=shifts] tbody tr[data-shift]")
    expect(rows).to_have_count(1)
    shot(page, "shift-05-list-auditor")
    rows.first.locator("a").first.click()
    expect(page.locator("[data-testid=chips-form]")).to_have_count(0)
    expect(page.locator("[data-testid=close-shift]")).to_have_count(0)
    with page.expect_download() as info:
        page.click("[data-testid=shift-pdf]")
    download = info.value
    assert download.suggested_filename.endswith("-report.pdf")
    with open(download.path(), "rb") as fh:
        assert fh.read(5) == b"%PDF-"
    assert "/reports/day.pdf?date=" in (page.get_attribute("[data-testid=day-pdf]", "href") or "")
    page.click("text=Sign out")

    # The dealer: no link, and a 403 with a message at the address.
    sign_in(page, live_server, "dana")
    expect(page.locator("[data-testid=nav-shifts]")).to_have_count(0)
    response = page.goto(live_server.url + "/shifts/")
    assert response is not None and response.status == 403
    expect(page.locator("body")).to_contain_text("needs the role")
