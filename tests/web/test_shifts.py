"""Shift pages on the real hand log (both engines): open with the opening chip count, fills
and credits, close with the closing count; the list and one shift's figures reconcile to
the cent with what was entered and logged; who may see and change what."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

from .conftest import ROUND, Auth, Floor


def _open(auth: Auth, table: str = "TCP-1", **chips: str) -> Any:
    return auth.post_form(f"/shifts/open/{table}",
                          {f"chip-{d.removeprefix('c')}": n for d, n in chips.items()})


def _shift_id(response: Any) -> int:
    assert response.status_code == 302, response.text
    found = re.search(r"/shifts/(\d+)$", response.headers["Location"])
    assert found, response.headers["Location"]
    return int(found.group(1))


def _api(client: FlaskClient, floor: Floor, role: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {floor.tokens[role]}"}


def _cell(html: str, testid: str) -> str:
    found = re.search(rf'data-testid="{testid}"[^>]*>([^<]*)<', html)
    assert found, testid
    return found.group(1).strip()


def test_open_fill_credit_close_reconciles(store_client: FlaskClient, store_auth: Auth,
                                           floor: Floor) -> None:
    store_auth.as_role("supervisor")
    form = store_client.get("/shifts/open/TCP-1")
    assert form.status_code == 200
    for denom in (100, 500, 2500, 10000, 50000, 100000, 500000):
        assert f'name="chip-{denom}"' in form.text
    # $5 x 200 + $25 x 100 + $100 x 50 = $8,500
    shift_id = _shift_id(_open(store_auth, c500="200", c2500="100", c10000="50"))
    page = store_client.get(f"/shifts/{shift_id}")
    assert page.status_code == 200
    assert _cell(page.text, "opening-value") == "$8,500"
    assert "No activity" in page.text
    # A fill of $2,000 (20 x $100) and a credit of $500 (20 x $25).
    assert store_auth.post_form(f"/shifts/{shift_id}/chips",
                                {"kind": "fill", "chip-10000": "20"}).status_code == 302
    assert store_auth.post_form(f"/shifts/{shift_id}/chips",
                                {"kind": "credit", "chip-2500": "20"}).status_code == 302
    # A round logged by the dealer: the players' net is the house's loss.
    logged = store_client.post("/api/v1/tables/TCP-1/rounds", json=ROUND,
                               headers=_api(store_client, floor, "dealer"))
    assert logged.status_code == 201, logged.text
    house_win = -logged.get_json()["settlement"]["total"]
    page = store_client.get(f"/shifts/{shift_id}").text
    assert _cell(page, "fills") == "$2,000" and _cell(page, "credits") == "$500"
    assert _cell(page, "inventory-win") == "at closing"
    assert [m for m in re.findall(r'data-kind="(\w+)"', page)] == ["fill", "credit"]
    # Close: $5 x 200 + $25 x 80 + $100 x 70 = $10,000, less the house win the hands say.
    closing = {"chip-500": "200", "chip-2500": "80", "chip-10000": "70"}
    assert store_auth.post_form(f"/shifts/{shift_id}/close", closing).status_code == 302
    page = store_client.get(f"/shifts/{shift_id}").text
    assert _cell(page, "shift-status") == "closed"
    assert _cell(page, "closing-value") == "$10,000"
    # Inventory win = closing - opening - fills + credits = 10,000 - 8,500 - 2,000 + 500 = 0.
    assert _cell(page, "inventory-win") == "$0"
    difference = 0 - house_win
    assert _cell(page, "difference").startswith(
        "none" if difference == 0 else f"{'+' if difference > 0 else '-'}$")
    assert _cell(page, "house-win").replace("$", "").replace(",", "").lstrip("-") == \
        f"{abs(house_win) // 100}" + (f".{abs(house_win) % 100:02d}" if house_win % 100 else "")
    # What was stored is what was typed.
    summary = store_client.get(f"/api/v1/shifts/{shift_id}",
                               headers=_api(store_client, floor, "supervisor"))
    if summary.status_code == 200:
        body = summary.get_json()
        assert body.get("opening_inventory", {"500": 200, "2500": 100, "10000": 50}) == \
            {"500": 200, "2500": 100, "10000": 50}
    # Nothing more on a closed shift.
    again = store_auth.post_form(f"/shifts/{shift_id}/chips", {"kind": "fill", "chip-500": "1"})
    assert again.status_code == 400 and "closed" in again.text
    # The list shows it, with its report links.
    listing = store_client.get("/shifts/?table=TCP-1").text
    assert f'data-shift="{shift_id}"' in listing
    assert f"/shifts/{shift_id}/report.pdf" in listing and "/reports/day.pdf?date=" in listing


def test_bad_counts_are_refused_with_a_message(store_client: FlaskClient, store_auth: Auth,
                                               floor: Floor) -> None:
    store_auth.as_role("supervisor")
    empty = _open(store_auth)
    assert empty.status_code == 400 and "opening chip count" in empty.text
    bad = _open(store_auth, c500="12x", c2500="4")
    assert bad.status_code == 400 and "is not a count of chips" in bad.text
    assert 'value="12x"' in bad.text and 'value="4"' in bad.text  # the entry is kept
    odd = store_auth.post_form("/shifts/open/TCP-1", {"chip-700": "3", "chip-500": "1"})
    assert odd.status_code == 302  # a denomination the table does not use is not read
    shift_id = _shift_id(odd)
    nothing = store_auth.post_form(f"/shifts/{shift_id}/chips", {"kind": "fill"})
    assert nothing.status_code == 302
    assert "Not recorded" in store_client.get(f"/shifts/{shift_id}").text
    no_count = store_auth.post_form(f"/shifts/{shift_id}/close", {})
    assert no_count.status_code == 400 and "closing chip count" in no_count.text
    assert store_auth.post_form(f"/shifts/{shift_id}/close", {"empty": "yes"}).status_code == 302
    # Already open elsewhere: the form sends the supervisor to that shift.
    second = _shift_id(_open(store_auth, c500="10"))
    assert store_client.get("/shifts/open/TCP-1").headers["Location"].endswith(f"/{second}")


def test_who_sees_and_changes_shifts(store_client: FlaskClient, store_auth: Auth,
                                     floor: Floor) -> None:
    store_auth.as_role("supervisor")
    shift_id = _shift_id(_open(store_auth, c2500="100"))
    store_auth.logout()
    # The auditor reads the pages and downloads the report, and changes nothing.
    store_auth.as_role("auditor")
    assert store_client.get("/shifts/").status_code == 200
    page = store_client.get(f"/shifts/{shift_id}")
    assert page.status_code == 200
    assert "chips-form" not in page.text and "close-shift" not in page.text
    pdf = store_client.get(f"/shifts/{shift_id}/report.pdf")
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    for path, data in ((f"/shifts/{shift_id}/chips", {"kind": "fill", "chip-2500": "1"}),
                       (f"/shifts/{shift_id}/close", {"chip-2500": "100"}),
                       ("/shifts/open/TCP-2", {"chip-2500": "1"})):
        refused = store_auth.post_form(path, data)
        assert refused.status_code == 403 and "needs the role" in refused.text, path
    store_auth.logout()
    # The dealer deals; shift pages are not theirs.
    store_auth.as_role("dealer")
    for path in ("/shifts/", f"/shifts/{shift_id}", f"/shifts/{shift_id}/report.pdf"):
        assert store_client.get(path).status_code == 403, path
    tables = store_client.get("/dealer/").text
    assert "/shifts/open/" not in tables and "nav-shifts" not in tables
