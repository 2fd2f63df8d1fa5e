"""Errors: JSON ``{"error": {"code", "message", "field"}}`` for the API and the screen's
fetches, a plain page for browsers."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
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

    @app.errorhandler(DomainError)
    def _domain(exc: DomainError) -> Any:
        return error_response(422, "invalid_round", exc.message, exc.field)

    @app.errorhandler(BackendError)
    def _backend(exc: BackendError) -> Any:
        if wants_json():
            return error_response(exc.status, exc.code, exc.message, exc.field)
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
