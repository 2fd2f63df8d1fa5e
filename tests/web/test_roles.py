"""The role matrix, built from the app's url_map: every route is either public or names
the action it needs, and every role outside that action is refused with a 403 and a
message, in the browser (session) and the API (token). A new route cannot escape: it
fails here until it is classified."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dealer_assist.web.backend import PERMISSIONS
from dealer_assist.web.reports import REPORT_ROLES

from .conftest import ROLE_USERS, Auth, Floor

ROLES = tuple(ROLE_USERS)
#: Routes anyone may reach (sign-in itself, health, the spec, static files).
PUBLIC = {"static", "index", "healthz", "auth.login", "auth.logout", "api.openapi"}
#: The reports blueprint checks its own roles (supervisor, auditor, admin).
REPORTS = {"reports.", "reports_api."}

#: The matrix the issue asks for, as the roles' allowed actions.
EXPECTED = {
    "dealer": {"deal", "read"},
    "supervisor": {"deal", "read", "review", "amend", "approve", "open_shift", "close_shift",
                   "shift_chips", "record_drop"},
    "auditor": {"read", "review", "record_drop"},
    "admin": {"read", "review", "administer", "open_shift", "close_shift", "shift_chips"},
}


def test_permissions_are_the_matrix() -> None:
    for role, actions in EXPECTED.items():
        assert {a for a, roles in PERMISSIONS.items() if role in roles} == actions, role


def _routes(app: Flask) -> list[tuple[str, str, str, frozenset[str]]]:
    """(endpoint, method, url, roles allowed) for every protected route."""
    out = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PUBLIC:
            continue
        view = app.view_functions[rule.endpoint]
        if any(rule.endpoint.startswith(p) for p in REPORTS):
            allowed = frozenset(REPORT_ROLES)
        else:
            action = getattr(view, "required_action", None)
            assert action is not None, f"{rule.endpoint} ({rule.rule}) needs a role check"
            allowed = PERMISSIONS[action]
        url = re.sub(r"<int:[^>]+>", "1", rule.rule)
        url = re.sub(r"<[^>]+>", "TCP-1", url)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            out.append((rule.endpoint, method, url, allowed))
    return out


def test_every_route_is_classified(store_app: Flask) -> None:
    routes = _routes(store_app)
    endpoints = {r[0] for r in routes}
    assert {"review.void_page", "review.correct_page", "admin.users", "api.void_round",
            "api.correct_round", "api.round_audit", "dealer.log_round", "shifts.list_page",
            "shifts.shift_page", "shifts.open_form", "shifts.open_shift", "shifts.close_form",
            "shifts.close_shift", "shifts.record_chips", "shifts.record_drop",
            "admin.settings", "admin.save_settings"} <= endpoints


def _call(client: FlaskClient, auth: Auth | None, token: str | None, method: str,
          url: str) -> Any:
    if token is not None:
        return client.open(url, method=method, headers={"Authorization": f"Bearer {token}"},
                           json={})
    assert auth is not None
    if method == "GET":
        return client.get(url)
    return client.open(url, method=method, json={}, headers={"X-CSRFToken": auth.token})


@pytest.mark.parametrize("role", ROLES)
def test_matrix(store_app: Flask, store_client: FlaskClient, store_auth: Auth, floor: Floor,
                role: str) -> None:
    store_auth.as_role(role)
    checked = 0
    for endpoint, method, url, allowed in _routes(store_app):
        api = url.startswith("/api/")
        response = _call(store_client, None if api else store_auth,
                         floor.tokens[role] if api else None, method, url)
        where = f"{role} {method} {url} ({endpoint})"
        if role in allowed:
            assert response.status_code != 403 or (
                response.is_json and response.json["error"]["code"] == "approval_required"
            ), where
        else:
            assert response.status_code == 403, where
            text = response.json["error"]["message"] if response.is_json else response.text
            assert "needs the role" in text or "need the role" in text, where
        assert response.status_code < 500, where
        checked += 1
    assert checked > 30
