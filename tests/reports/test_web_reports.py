"""Report downloads over HTTP: the API with a token, the browser signed in; roles."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf

from dealer_assist import services
from dealer_assist.web import create_app
from tests.web.conftest import Auth

from .conftest import Built


def _text(data: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split())
                    for p in pypdf.PdfReader(io.BytesIO(data)).pages)


def test_report_downloads(built: Built, tmp_path: Path) -> None:
    with built.floor.session() as s:
        tokens = {name: services.create_token(s, name) for name in ("sue", "abe", "dan")}
    app = create_app({"TESTING": True, "DATABASE_URL": built.floor.url},
                     instance_path=tmp_path / "instance")
    client = app.test_client()
    path = f"/api/v1/shifts/{built.shift_id}/report.pdf"

    assert client.get(path).status_code == 401
    denied = client.get(path, headers={"Authorization": f"Bearer {tokens['dan']}"})
    assert denied.status_code == 403 and denied.json["error"]["code"] == "forbidden"
    ok = client.get(path, headers={"Authorization": f"Bearer {tokens['abe']}"})
    assert ok.status_code == 200 and ok.mimetype == "application/pdf"
    assert "attachment" in ok.headers["Content-Disposition"]
    text = _text(ok.data)
    assert "Shift Audit Report" in text and "abe" in text  # the auditor's printed name
    missing = client.get("/api/v1/shifts/9999/report.pdf",
                         headers={"Authorization": f"Bearer {tokens['sue']}"})
    assert missing.status_code == 404
    dispute = client.get(f"/api/v1/rounds/{built.corrected}/dispute.pdf",
                         headers={"Authorization": f"Bearer {tokens['sue']}"})
    assert dispute.status_code == 200 and "Dispute Sheet" in _text(dispute.data)
    bad_day = client.get("/api/v1/reports/day.pdf?date=yesterday",
                         headers={"Authorization": f"Bearer {tokens['sue']}"})
    assert bad_day.status_code == 400

    # The browser: signed in as the supervisor, the shift page's download target.
    browser = Auth(client)
    assert browser.login("dan", "dealer-pass").status_code == 302
    assert client.get(f"/shifts/{built.shift_id}/report.pdf").status_code == 403
    browser.logout()
    assert browser.login("sue", "super-pass").status_code == 302
    page = client.get(f"/shifts/{built.shift_id}/report.pdf")
    assert page.status_code == 200 and page.mimetype == "application/pdf"
    day = client.get("/reports/day.pdf?date=2001-01-01")
    assert day.status_code == 200 and "NO ACTIVITY" in _text(day.data)
    app.extensions["dealer_assist.backend"].close()
