"""The casino settings page (admin) and the drop form (supervisor, count team) on the real
hand log, both engines: CSRF, roles, validation with the entry kept, the audit events, and
what the shift pages then show (gaming day, scheduled window, late flag, drop, hold)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask.testing import FlaskClient

from dealer_assist import services
from dealer_assist.services import drops
from dealer_assist.store import db
from dealer_assist.store.models import AuditEvent, CasinoSettings, ShiftDrop

from .conftest import ROUND, Auth, Floor


def _cell(html: str, testid: str) -> str:
    found = re.search(rf'data-testid="{testid}"[^>]*>(.*?)</', html, re.S)
    assert found, testid
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def _rows(floor: Floor, query: Any) -> list[Any]:
    engine = db.make_engine(floor.url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(query))
    finally:
        engine.dispose()


def _settings(floor: Floor) -> Any:
    return _rows(floor, sa.select(CasinoSettings.time_zone, CasinoSettings.gaming_day_start,
                                  CasinoSettings.shift_hours, CasinoSettings.shift_starts,
                                  CasinoSettings.large_win_threshold, CasinoSettings.name))[0]


FORM = {"name": "Riverside", "currency": "usd", "time_zone": "America/Chicago",
        "large_win_threshold": "2,500.50", "gaming_day_start": "06:00", "pattern": "12",
        "shift_starts": ""}


def test_admin_edits_the_schedule_and_it_is_audited(store_client: FlaskClient,
                                                    store_auth: Auth, floor: Floor) -> None:
    store_auth.as_role("admin")
    page = store_client.get("/admin/settings")
    assert page.status_code == 200
    assert 'data-testid="settings-form"' in page.text and "Today's gaming day" in page.text
    # Without the CSRF token nothing is saved.
    no_token = store_client.post("/admin/settings", data=FORM)
    assert no_token.status_code == 400 and _settings(floor).time_zone == "UTC"
    saved = store_auth.post_form("/admin/settings", FORM)
    assert saved.status_code == 302, saved.text[:500]
    stored = _settings(floor)
    assert (stored.time_zone, stored.gaming_day_start.strftime("%H:%M"), stored.shift_hours,
            stored.shift_starts, stored.large_win_threshold, stored.name) == (
        "America/Chicago", "06:00", 12, None, 250_050, "Riverside")
    page = store_client.get("/admin/settings").text
    assert "06:00-18:00" in page and "18:00-06:00" in page and "12 h shifts from 06:00" in page
    # A custom schedule that leaves the gaming day start out: refused, the entry kept.
    bad = store_auth.post_form("/admin/settings", {**FORM, "pattern": "custom",
                                                   "shift_starts": "07:00 15:00 23:00"})
    assert bad.status_code == 422
    assert "must be one of the custom shift starts" in bad.text
    assert 'value="07:00 15:00 23:00"' in bad.text
    assert _settings(floor).shift_starts is None
    custom = store_auth.post_form("/admin/settings", {**FORM, "pattern": "custom",
                                                      "shift_starts": "22:00, 06:00, 14:00"})
    assert custom.status_code == 302
    assert _settings(floor).shift_starts == ["06:00", "14:00", "22:00"]
    for field, value, message in (("time_zone", "Mars/Olympus", "unknown time zone"),
                                  ("gaming_day_start", "25:00", "a time like 06:00"),
                                  ("large_win_threshold", "12.345", "whole cents"),
                                  ("currency", "dollars", "three-letter code"),
                                  ("pattern", "10", "8, 12 or 24 hours")):
        refused = store_auth.post_form("/admin/settings", {**FORM, field: value})
        assert refused.status_code == 422 and message in refused.text, field
    # Every change is an event on the floor chain, by the admin, with what changed.
    events = _rows(floor, sa.select(AuditEvent.actor, AuditEvent.payload, AuditEvent.chain)
                   .where(AuditEvent.action == "settings.changed").order_by(AuditEvent.seq))
    mine = [(e.chain, json.loads(e.payload)) for e in events if e.actor == "ada"]
    assert mine[0] == ("floor", {"gaming_day_start": "06:00",  # USD was already so
                                 "large_win_threshold": 250_050, "name": "Riverside",
                                 "shift_hours": 12, "time_zone": "America/Chicago"})
    assert mine[1] == ("floor", {"shift_starts": ["06:00", "14:00", "22:00"]})
    assert len(mine) == 2  # the refused ones wrote nothing
    assert "shift_starts = [&#39;06:00&#39;" in store_client.get("/admin/settings").text
    same = store_auth.post_form("/admin/settings", {**FORM, "pattern": "custom",
                                                    "shift_starts": "06:00 14:00 22:00"})
    assert same.status_code == 302
    assert "Nothing changed." in store_client.get("/admin/settings").text


def test_settings_are_the_admins_alone(store_client: FlaskClient, store_auth: Auth) -> None:
    for role in ("dealer", "supervisor", "auditor"):
        store_auth.as_role(role)
        assert store_client.get("/admin/settings").status_code == 403, role
        refused = store_auth.post_form("/admin/settings", FORM)
        assert refused.status_code == 403 and "needs the role admin" in refused.text, role
        store_auth.logout()


def _closed_shift(floor: Floor, *, opened: datetime | None = None,
                  closed: datetime | None = None) -> tuple[int, int]:
    """A shift at TCP-1 with one round; players bought 100.00 of chips at the table, so the
    rack closes 100.00 lighter. Returns (shift id, logged house win)."""
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as s:
            shift = services.open_shift(s, table="TCP-1", user="sam", at=opened,
                                        opening_inventory={2500: 100})
            logged = services.log_round(s, table="TCP-1", user="sam", round_json=ROUND)
            win = -int(s.scalar(sa.text("SELECT total FROM rounds WHERE id = :i"),
                                {"i": logged.round_id}))
            closing = 250_000 + win - 10_000
            services.close_shift(s, table="TCP-1", user="sam", at=closed,
                                 closing_inventory={2500: closing // 2500, 1: closing % 2500})
            return shift.id, win
    finally:
        engine.dispose()


def test_the_count_team_records_and_recounts_the_drop(store_client: FlaskClient,
                                                      store_auth: Auth, floor: Floor) -> None:
    shift_id, win = _closed_shift(floor)
    # The admin reads the shift but has no drop form, and is refused if it posts one.
    store_auth.as_role("admin")
    page = store_client.get(f"/shifts/{shift_id}").text
    assert 'data-testid="drop-form"' not in page and "No drop recorded" in page
    refused = store_auth.post_form(f"/shifts/{shift_id}/drop", {"cash": "100"})
    assert refused.status_code == 403 and "needs the role" in refused.text
    store_auth.logout()
    # The count team (auditor) sees the form; without the CSRF token nothing is written.
    store_auth.as_role("auditor")
    page = store_client.get(f"/shifts/{shift_id}").text
    assert 'data-testid="drop-form"' in page and 'name="reason"' not in page
    assert _cell(page, "difference").startswith("-$100")  # no drop yet: taken as 0
    no_token = store_client.post(f"/shifts/{shift_id}/drop", data={"cash": "90"})
    assert no_token.status_code == 400
    typo = store_auth.post_form(f"/shifts/{shift_id}/drop", {"cash": "9O", "replaces": ""})
    assert typo.status_code == 302
    assert "Drop not recorded: cash: an amount like 1,250.00" in store_client.get(
        f"/shifts/{shift_id}").text
    assert _rows(floor, sa.select(ShiftDrop.id)) == []
    # 90.00 cash and a 15.00 marker: 5.00 too much.
    done = store_auth.post_form(f"/shifts/{shift_id}/drop", {"cash": "$90.00", "markers": "15",
                                                             "replaces": ""})
    assert done.status_code == 302
    page = store_client.get(f"/shifts/{shift_id}").text
    assert _cell(page, "drop-value") == "$105"
    assert _cell(page, "difference").startswith("+$5")
    first = _rows(floor, sa.select(ShiftDrop.id, ShiftDrop.amount, ShiftDrop.by_id))
    assert [(r.amount) for r in first] == [10_500]
    store_auth.logout()
    # The supervisor recounts: a reason is needed, and the form names the record it replaces.
    store_auth.as_role("supervisor")
    page = store_client.get(f"/shifts/{shift_id}").text
    assert f'name="replaces" value="{first[0].id}"' in page and 'name="reason"' in page
    no_reason = store_auth.post_form(f"/shifts/{shift_id}/drop", {
        "cash": "100", "replaces": str(first[0].id)})
    assert no_reason.status_code == 302
    assert "say why" in store_client.get(f"/shifts/{shift_id}").text
    stale = store_auth.post_form(f"/shifts/{shift_id}/drop", {
        "cash": "100", "replaces": "", "reason": "recount"})
    assert stale.status_code == 302
    assert "changed meanwhile" in store_client.get(f"/shifts/{shift_id}").text
    recount = store_auth.post_form(f"/shifts/{shift_id}/drop", {
        "cash": "100", "markers": "", "replaces": str(first[0].id),
        "reason": "the marker was table 2's"})
    assert recount.status_code == 302
    page = store_client.get(f"/shifts/{shift_id}").text
    assert _cell(page, "drop-value") == "$100"
    assert _cell(page, "difference") == "none"  # the inventory win is the logged win
    hold = 100 * win / 10_000
    assert _cell(page, "table-hold") == f"{hold:.2f}%"
    assert f"superseded by #{first[0].id + 1}" in page
    rows = _rows(floor, sa.select(ShiftDrop.id, ShiftDrop.amount, ShiftDrop.supersedes_id,
                                  ShiftDrop.reason).order_by(ShiftDrop.id))
    assert [(r.amount, r.supersedes_id, r.reason) for r in rows] == [
        (10_500, None, ""), (10_000, first[0].id, "the marker was table 2's")]
    events = _rows(floor, sa.select(AuditEvent.actor, AuditEvent.payload, AuditEvent.digest)
                   .where(AuditEvent.action == "shift.drop").order_by(AuditEvent.seq))
    assert [e.actor for e in events] == ["alex", "sam"]
    assert [json.loads(e.payload)["drop_id"] for e in events] == [r.id for r in rows]
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as s:
            assert drops.check_drops(s) == []
            assert services.verify_log(s).ok
    finally:
        engine.dispose()


def test_a_drop_waits_for_the_shift_to_close(store_client: FlaskClient, store_auth: Auth,
                                             floor: Floor) -> None:
    store_auth.as_role("supervisor")
    opened = store_auth.post_form("/shifts/open/TCP-2", {"chip-2500": "40"})
    shift_id = int(opened.headers["Location"].rsplit("/", 1)[1])
    page = store_client.get(f"/shifts/{shift_id}").text
    assert 'data-testid="drop-form"' not in page and "counted after the shift closes" in page
    early = store_auth.post_form(f"/shifts/{shift_id}/drop", {"cash": "10", "replaces": ""})
    assert early.status_code == 302
    assert "is still open" in store_client.get(f"/shifts/{shift_id}").text
    assert store_auth.post_form("/shifts/9999/drop", {"cash": "1"}).status_code == 404
    store_auth.logout()
    store_auth.as_role("dealer")
    assert store_auth.post_form(f"/shifts/{shift_id}/drop", {"cash": "1"}).status_code == 403


def test_shift_pages_show_the_gaming_day_and_a_late_shift(store_client: FlaskClient,
                                                          store_auth: Auth,
                                                          floor: Floor) -> None:
    engine = db.make_engine(floor.url)
    try:
        with db.session_factory(engine)() as s:
            services.update_settings(s, time_zone="America/New_York", gaming_day_start="06:00",
                                     shift_hours=8)
    finally:
        engine.dispose()
    # Opened 02:00 New York time (gaming day before, 22:00-06:00), closed 06:45: late.
    opened = datetime(2024, 5, 2, 6, 0, tzinfo=UTC)
    shift_id, _ = _closed_shift(floor, opened=opened, closed=opened + timedelta(hours=4,
                                                                               minutes=45))
    store_auth.as_role("auditor")
    page = store_client.get(f"/shifts/{shift_id}").text
    assert _cell(page, "gaming-day") == "2024-05-01"
    assert _cell(page, "scheduled").startswith("22:00-06:00")
    assert "Ran past its window" in page and "by 45 min" in page
    assert "/reports/day.pdf?date=2024-05-01" in page
    listing = store_client.get("/shifts/").text
    assert f'data-testid="late-{shift_id}"' in listing and "late 45 min" in listing
    assert "8 h shifts from 06:00" in listing
