"""Sign-in, sign-out, CSRF, throttling."""

from __future__ import annotations

from flask.testing import FlaskClient

from .conftest import Auth, csrf_token


def test_login_page(client: FlaskClient) -> None:
    page = client.get("/auth/login")
    assert page.status_code == 200
    assert 'name="csrf_token"' in page.text


def test_pages_need_sign_in(client: FlaskClient) -> None:
    for path in ("/dealer/", "/dealer/TCP-1", "/dealer/TCP-1/history", "/dealer/rounds/1"):
        response = client.get(path)
        assert response.status_code == 302
        assert "/auth/login" in response.headers["Location"]


def test_fetch_without_session_gets_json_401(client: FlaskClient) -> None:
    response = client.post("/dealer/TCP-1/settle", json={}, headers={"Accept": "application/json"})
    # CSRF runs first for a POST without a session token: refused either way, as JSON.
    assert response.status_code in (400, 401)
    assert "error" in response.json


def test_login_and_logout(auth: Auth, client: FlaskClient) -> None:
    response = auth.login("dana")
    assert response.status_code == 302 and response.headers["Location"] == "/dealer/"
    page = client.get("/dealer/")
    assert "dana" in page.text and "dealer" in page.text
    assert auth.logout().status_code == 302
    assert client.get("/dealer/").status_code == 302


def test_next_is_followed_only_on_this_site(client: FlaskClient) -> None:
    token = csrf_token(client)
    ok = client.post("/auth/login?next=/dealer/TCP-1",
                     data={"name": "dana", "password": "dealer-pass-1", "csrf_token": token})
    assert ok.headers["Location"] == "/dealer/TCP-1"
    client.post("/auth/logout", data={"csrf_token": csrf_token(client, "/dealer/")})
    token = csrf_token(client)
    evil = client.post("/auth/login?next=//evil.example/x",
                       data={"name": "dana", "password": "dealer-pass-1", "csrf_token": token})
    assert evil.headers["Location"] == "/dealer/"


def test_wrong_password(auth: Auth) -> None:
    response = auth.login("dana", "nope-nope")
    assert response.status_code == 401
    assert "Wrong name or password" in response.text


def test_login_without_csrf_token_is_refused(client: FlaskClient) -> None:
    response = client.post("/auth/login", data={"name": "dana", "password": "dealer-pass-1"})
    assert response.status_code == 400
    assert "CSRF" in response.text


def test_logout_needs_csrf(auth: Auth, client: FlaskClient) -> None:
    auth.login("dana")
    assert client.post("/auth/logout").status_code == 400
    assert client.get("/dealer/").status_code == 200


def test_throttled_after_repeated_failures(auth: Auth) -> None:
    for _ in range(3):  # LOGIN_MAX_FAILURES is 3 in the test app
        assert auth.login("dana", "wrong-pass").status_code == 401
    locked = auth.login("dana")  # right password, but locked out now
    assert locked.status_code == 429
    assert "Too many failed sign-ins" in locked.text


def test_empty_form(client: FlaskClient) -> None:
    token = csrf_token(client)
    response = client.post("/auth/login", data={"name": "", "password": "", "csrf_token": token})
    assert response.status_code == 400
