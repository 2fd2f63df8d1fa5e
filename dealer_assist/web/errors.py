"""Errors: JSON ``{"error": {"code", "message", "field"}}`` for the API and the screen's
fetches, a plain page for browsers."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, g, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import HTTPException

from dealer_assist.domain.errors import DomainError

from .backend import BackendError


def wants_json() -> bool:
    if request.path.startswith("/api/"):
        return True
    if request.is_json:
        return True
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "application/json" and request.accept_mimetypes[best] > \
        request.accept_mimetypes["text/html"]


def error_response(status: int, code: str, message: str, field: str | None = None,
                   **extra: Any) -> tuple[Response, int]:
    body: dict[str, Any] = {"code": code, "message": message, "field": field, **extra}
    return jsonify({"error": body}), status


def _page(status: int, title: str, message: str) -> tuple[str, int]:
    return render_template("error.html", status=status, title=title, message=message), status


def _outage_page(message: str) -> tuple[str, int]:
    # The page's layout shows who is signed in, and looking that up needs the database that
    # just failed: show it as signed out instead of failing again (a 500).
    if "_login_user" not in g:
        g._login_user = current_app.login_manager.anonymous_user()  # type: ignore[attr-defined]
    return _page(503, "Database unavailable", message)


_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
          405: "method_not_allowed", 409: "conflict", 413: "too_large", 415: "unsupported_media",
          429: "too_many_requests", 500: "server_error", 503: "unavailable"}


def init_app(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError) -> Any:
        message = ("The form had expired or was not sent from this site (CSRF check failed). "
                   "Reload the page and try again.")
        if wants_json():
            return error_response(400, "csrf_failed", message)
        return _page(400, "Please reload", message)

    @app.errorhandler(RecursionError)
    def _too_deep(exc: RecursionError) -> Any:
        # Only a request body nested deeper than the JSON parser goes gets here (json.loads
        # raises RecursionError, not the ValueError that get_json(silent=True) swallows).
        message = "the body is not valid JSON: it is nested too deeply"
        if wants_json():
            return error_response(400, "invalid_json", message)
        return _page(400, "Bad request", message)

    def _out_of_range() -> Any:
        message = "a number or time in the request is out of range"
        if wants_json():
            return error_response(400, "out_of_range", message)
        return _page(400, "Bad request", message)

    @app.errorhandler(OverflowError)
    def _overflow(exc: OverflowError) -> Any:
        # An id past 64 bits in a URL, a time past year 9999 in UTC: bound to a query, refused.
        return _out_of_range()

    @app.errorhandler(sa_exc.StatementError)
    def _database(exc: sa_exc.StatementError) -> Any:
        """A safety net for database errors a service did not map itself."""
        if isinstance(exc.orig, OverflowError) or isinstance(exc, sa_exc.DataError):
            return _out_of_range()
        if isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError)) or (
                isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated):
            app.logger.warning("database unavailable: %s", type(exc).__name__)
            message = "the database cannot be reached; nothing was written, try again"
            if "database is locked" in str(exc.orig):   # SQLite, beyond the busy timeout
                message = ("the database is locked: another program kept it busy beyond the "
                           "wait limit; nothing was written, try again")
            if wants_json():
                return error_response(503, "store_unavailable", message)
            return _outage_page(message)
        app.logger.exception("database error")
        if wants_json():
            return error_response(500, "server_error", "an internal error occurred")
        return _page(500, "Internal Server Error", "an internal error occurred")

    @app.errorhandler(DomainError)
    def _domain(exc: DomainError) -> Any:
        return error_response(422, "invalid_round", exc.message, exc.field)

    @app.errorhandler(BackendError)
    def _backend(exc: BackendError) -> Any:
        if wants_json():
            return error_response(exc.status, exc.code, exc.message, exc.field)
        if exc.status == 503:
            return _outage_page(exc.message)
        return _page(exc.status, exc.code.replace("_", " ").capitalize(), exc.message)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        status = exc.code or 500
        message = exc.description or exc.name
        if wants_json():
            response, _ = error_response(status, _CODES.get(status, "error"), message)
            if status == 405 and exc.get_response().headers.get("Allow"):
                response.headers["Allow"] = exc.get_response().headers["Allow"]
            return response, status
        return _page(status, exc.name, message)
