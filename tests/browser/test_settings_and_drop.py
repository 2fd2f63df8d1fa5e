"""Casino settings and the drop in Chromium: the admin sets the gaming day and custom
shifts; the count team records a closed shift's drop and the supervisor recounts it; the
shift page then reconciles with the drop. Screenshots in test-artifacts/ (settings-*.png,
drop-*.png)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from dealer_assist import services
from dealer_assist.store import db
from tests.web.conftest import ROUND

from .conftest import LiveServer, shot, sign_in


def _closed_shift(server: LiveServer) -> tuple[int, int]:
    """TCP-1's shift, one round; players bought 100.00 of chips at the table."""
    engine = db.make_engine(server.floor.url)
    try:
        with db.session_factory(engine)() as s:
            shift = services.open_shift(s, table="TCP-1", user="sam", dealers=["dana"],
                                        opening_inventory={2500: 100})
            logged = services.log_round(s, table="TCP-1", user="sam", round_json=ROUND)
            win = -logged.settlement_json["total"]
            closing = 250_000 + win - 10_000
            services.close_shift(s, table="TCP-1", user="sam",
                                 closing_inventory={2500: closing // 2500, 100: (closing % 2500)
                                                    // 100, 1: closing % 100})
            return shift.id, win
    finally:
        engine.dispose()


def test_admin_sets_the_schedule(page: Any, live_server: LiveServer) -> None:
    sign_in(page, live_server, "ada")
    page.goto(live_server.url + "/admin/settings")
    page.set_viewport_size({"width": 1280, "height": 1300})
    page.fill("[data-testid=time-zone]", "America/New_York")
    page.fill("[data-testid=day-start]", "06:00")
    page.select_option("[data-testid=pattern]", "custom")
    page.fill("[data-testid=shift-starts]", "06:00, 14:00, 22:00")
    shot(page, "settings-01-form")
    page.click("[data-testid=save-settings]")
    expect(page.locator(".flashes")).to_contain_text("Casino settings saved.")
    expect(page.locator("[data-testid=schedule-preview]")).to_contain_text(
        "custom shifts from 06:00, 14:00, 22:00")
    expect(page.locator("[data-testid=settings-history] tbody tr")).to_have_count(2)
    shot(page, "settings-02-saved")
    # A schedule that leaves the gaming-day start out is refused beside the form.
    page.fill("[data-testid=shift-starts]", "07:00, 15:00, 23:00")
    page.click("[data-testid=save-settings]")
    expect(page.locator("[data-testid=settings-error]")).to_contain_text(
        "must be one of the custom shift starts")
    expect(page.locator("[data-testid=shift-starts]")).to_have_value("07:00, 15:00, 23:00")
    shot(page, "settings-03-refused")


def test_count_team_records_the_drop_and_the_supervisor_recounts(
        page: Any, live_server: LiveServer) -> None:
    shift_id, _ = _closed_shift(live_server)
    sign_in(page, live_server, "alex")
    page.goto(f"{live_server.url}/shifts/{shift_id}#drop")
    page.set_viewport_size({"width": 1280, "height": 1700})
    expect(page.locator("[data-testid=no-drop]")).to_be_visible()
    page.fill("[data-testid=drop-cash]", "90.00")
    page.fill("[data-testid=drop-markers]", "15.00")
    shot(page, "drop-01-form")
    page.click("[data-testid=record-drop]")
    expect(page.locator(".flashes")).to_contain_text("Drop of $105 recorded")
    expect(page.locator("[data-testid=drop-value]")).to_have_text("$105")
    expect(page.locator("[data-testid=difference]")).to_contain_text("+$5")
    shot(page, "drop-02-recorded-with-difference")
    page.click("text=Sign out")
    sign_in(page, live_server, "sam")
    page.goto(f"{live_server.url}/shifts/{shift_id}#drop")
    page.fill("[data-testid=drop-cash]", "100")
    page.fill("[data-testid=drop-reason]", "the marker was table 2's")
    page.click("[data-testid=record-drop]")
    expect(page.locator("[data-testid=difference]")).to_have_text("none")
    expect(page.locator("[data-testid=drops] tbody tr")).to_have_count(2)
    expect(page.locator("[data-testid=drops]")).to_contain_text("superseded by")
    shot(page, "drop-03-recounted-reconciled")
