"""The camera scan over HTTP, shared by the API (token) and the dealer screen (session).

``POST .../tables/<table>/scan`` takes the photo as the body (``image/jpeg``, ``image/png``
or any other type: the bytes tell) or as the multipart field ``photo``, reads it against
the table's seat zones (``dealer_assist.services.scan``) and answers the scan JSON with the
photo's SHA-256. The photo is kept (content-addressed) so that a round logged with that
``photo_sha256`` keeps its photo. Bad uploads get a 4xx in the API's error shape: 413
``too_large`` (over the byte or pixel limit, refused before decoding), 422
``invalid_image`` (empty, not JPEG/PNG, truncated, corrupt).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, overload

from flask import Flask, current_app, jsonify, request
from werkzeug.wrappers import Response

from dealer_assist.services import errors as service_errors
from dealer_assist.services import scan as scan_service
from dealer_assist.services.seat_zones import empty_layout

from .backend import BackendError, TableInfo

#: Endpoints that take a photo upload: their body limit is set before anything reads it
#: (the CSRF check reads a multipart form first).
SCAN_ENDPOINTS = frozenset({"api.scan_photo", "dealer.scan_photo", "admin.save_zones"})
#: Room for the multipart envelope around the photo.
_MULTIPART_SLACK = 64 * 1024


class ScanRefused(BackendError):
    """A refused upload or photo reference, with the service error's status."""

    def __init__(self, message: str, field: str | None, status: int, code: str) -> None:
        super().__init__(message, field)
        self.status = status
        self.code = code


_CODES: dict[type[service_errors.ServiceError], tuple[int, str]] = {
    scan_service.PhotoTooLarge: (413, "too_large"),
    scan_service.InvalidPhoto: (422, "invalid_image"),
    scan_service.ScannerUnavailable: (503, "scanner_unavailable"),
    service_errors.NotFound: (422, "unknown_photo"),
    service_errors.InvalidInput: (400, "bad_request"),
}


def refused(exc: service_errors.ServiceError, field: str | None) -> ScanRefused:
    status, code = _CODES.get(type(exc), (exc.status, "bad_request"))
    return ScanRefused(exc.message, field if status != 503 else None, status, code)


def max_bytes() -> int:
    return int(current_app.config.get("SCAN_MAX_BYTES") or scan_service.MAX_BYTES)


def max_pixels() -> int:
    return int(current_app.config.get("SCAN_MAX_PIXELS") or scan_service.MAX_PIXELS)


def photo_folder(config: Mapping[str, Any], instance_path: str) -> str:
    """Where scanned photos are kept: ``PHOTO_DIR``, else ``photos/`` in the instance."""
    return str(config.get("PHOTO_DIR") or f"{instance_path}/photos")


def deck_folder(config: Mapping[str, Any], instance_path: str) -> str:
    """Where the tables' enrolled decks are kept: ``DECK_DIR``, else ``decks/`` in the
    instance."""
    return str(config.get("DECK_DIR") or f"{instance_path}/decks")


def photo_store() -> scan_service.PhotoStore:
    return scan_service.PhotoStore(photo_folder(current_app.config, current_app.instance_path))


def _limit_uploads() -> None:
    if request.endpoint in SCAN_ENDPOINTS:
        request.max_content_length = max_bytes() + _MULTIPART_SLACK


def _upload(optional: bool) -> bytes | None:
    """The photo's bytes, at most the byte limit (past it: 413 before reading it all);
    None when ``optional`` and no file was chosen in the form."""
    limit = max_bytes()
    if request.content_length is not None and request.content_length > limit + _MULTIPART_SLACK:
        raise ScanRefused(f"the photo is {request.content_length / 1e6:.1f} MB; the limit is "
                          f"{limit / 1e6:.0f} MB", "photo", 413, "too_large")
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("photo")
        if optional and (upload is None or not upload.filename):
            return None
        if upload is None:
            raise ScanRefused('send the photo as the multipart field "photo" (or as the '
                              "whole body)", "photo", 400, "bad_request")
        data = upload.stream.read(limit + 1)
    elif optional:
        return None
    else:
        data = request.stream.read(limit + 1)
    if len(data) > limit:
        raise ScanRefused(f"the photo is over the {limit / 1e6:.0f} MB limit", "photo", 413,
                          "too_large")
    return bytes(data)


@overload
def uploaded_photo(optional: Literal[False] = False) -> scan_service.Photo: ...
@overload
def uploaded_photo(optional: Literal[True]) -> scan_service.Photo | None: ...


def uploaded_photo(optional: bool = False) -> scan_service.Photo | None:
    """The photo sent (the body, or the multipart field ``photo``), checked from its header
    (nothing decoded); refused as the scan refuses it. ``optional``: a form whose file
    field may be left empty (then None)."""
    data = _upload(optional)
    if data is None:
        return None
    try:
        return scan_service.check_photo(data, max_bytes=max_bytes(), max_pixels=max_pixels())
    except service_errors.ServiceError as exc:
        raise refused(exc, "photo") from None


def scan_response(table: TableInfo) -> Response:
    """Read the uploaded photo at ``table``; keep it; the scan JSON."""
    photo = uploaded_photo()
    try:
        empty, missing = empty_layout(photo_store(), table.seat_zones)
        # zones drawn on the photo of the empty layout: the reader maps them from it
        zones, note = scan_service.table_zones(
            table.seat_zones, table.seats, None if empty else (photo.width, photo.height))
        wait = current_app.config.get("SCAN_WAIT_SECONDS")
        deck = scan_service.deck_file(
            deck_folder(current_app.config, current_app.instance_path), table.name)
        result = scan_service.scan_photo(
            photo, zones, threshold=current_app.config.get("SCAN_THRESHOLD"),
            wait_seconds=scan_service.WAIT_SECONDS if wait is None else float(wait),
            deck=deck, deck_on_record=table.deck_sha256, empty=empty)
    except service_errors.ServiceError as exc:
        raise refused(exc, "photo") from None
    for reason in ([f"{note}: seats follow the arc of the table"] if note else []) + (
            [missing] if missing else []):
        result["needs_confirmation"].append(
            {"hand": None, "seat": None, "card": None, "reason": reason})
    photo_store().put(photo)
    result["table"] = table.name
    return jsonify(result)


def split_photo(data: object) -> tuple[object, str | None]:
    """The round without its ``photo_sha256`` key, and the stored photo it names (if any):
    a round logged with it has source "scan"."""
    if not isinstance(data, Mapping) or "photo_sha256" not in data:
        return data, None
    rest = {k: v for k, v in data.items() if k != "photo_sha256"}
    if data["photo_sha256"] is None:
        return rest, None
    try:
        sha = scan_service.check_photo_ref(photo_store(), data["photo_sha256"])
    except service_errors.ServiceError as exc:
        raise refused(exc, "photo_sha256") from None
    return rest, sha


def photo_response(sha256: str) -> Response:
    """A kept photo, as stored (its bytes hash to ``sha256``)."""
    try:
        data, media_type = photo_store().get(sha256.lower())
    except service_errors.NotFound as exc:
        raise ScanRefused(exc.message, None, 404, "not_found") from None
    response = Response(data, mimetype=media_type)
    response.headers["Cache-Control"] = "private, max-age=31536000, immutable"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def init_app(app: Flask) -> None:
    # First of the app's before-request hooks, so the CSRF check's form parsing is bounded.
    app.before_request_funcs.setdefault(None, []).insert(0, _limit_uploads)


__all__ = ["SCAN_ENDPOINTS", "deck_folder", "init_app", "photo_response", "photo_store",
           "refused", "scan_response", "split_photo", "uploaded_photo"]
