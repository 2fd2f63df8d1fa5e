"""Sign-in and sign-out (Flask-Login sessions), roles, and the ``requires`` decorator."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, ParamSpec, TypeVar, cast
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import LoginManager, UserMixin, current_user, login_user, logout_user
from flask_wtf import FlaskForm
from werkzeug.wrappers import Response
from wtforms import PasswordField, StringField
from wtforms.validators import DataRequired, Length

from .backend import BackendError, ForbiddenError, UserInfo, allowed, get_backend, refusal
from .security import LoginThrottle

bp = Blueprint("auth", __name__, url_prefix="/auth")
login_manager = LoginManager()
login_manager.login_view = "auth.login"
login_manager.login_message = "Sign in to continue."
login_manager.session_protection = "strong"

P = ParamSpec("P")
R = TypeVar("R")


class User(UserMixin):
    """The signed-in user as Flask-Login sees it."""

    def __init__(self, info: UserInfo) -> None:
        self.info = info

    def get_id(self) -> str:
        return str(self.info.id)

    @property
    def is_active(self) -> bool:
        return self.info.active

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def role(self) -> str:
        return self.info.role

    def can(self, action: str) -> bool:
        return allowed(self.info.roles, action)


@login_manager.user_loader
def _load_user(user_id: str) -> User | None:
    try:
        info = get_backend().load_user(int(user_id))
    except (ValueError, BackendError):
        return None
    return None if info is None or not info.active else User(info)


def signed_in_user() -> User:
    return cast(User, current_user._get_current_object())  # type: ignore[attr-defined]


def requires(action: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Sign-in required, and the user's role must allow ``action`` (else 403)."""

    def decorate(view: Callable[P, R]) -> Callable[P, R]:
        @wraps(view)
        def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
            if not current_user.is_authenticated:
                return cast(R, current_app.login_manager.unauthorized())  # type: ignore[attr-defined]
            if not signed_in_user().can(action):
                raise ForbiddenError(refusal(signed_in_user().info.roles, action))
            return view(*args, **kwargs)

        wrapped.required_action = action  # type: ignore[attr-defined]
        return wrapped

    return decorate


class LoginForm(FlaskForm):  # type: ignore[misc]
    name = StringField("Name", validators=[DataRequired(), Length(max=80)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=256)])


def _throttle() -> LoginThrottle:
    throttle: LoginThrottle = current_app.extensions["dealer_assist.login_throttle"]
    return throttle


def _safe_next(target: str | None) -> str:
    # Browsers read "\\" as "/" ("/\\evil.example" is "//evil.example", another site) and
    # drop tabs and newlines: refuse both, so only a path on this site is followed.
    if target and "\\" not in target and target.isprintable():
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc and target.startswith("/") \
                and not target.startswith("//"):
            return target
    return url_for("dealer.tables")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    form = LoginForm()
    error: str | None = None
    status = 200
    if form.validate_on_submit():
        name = form.name.data.strip()
        keys = (f"user:{name.lower()}", f"addr:{request.remote_addr}")
        throttle = _throttle()
        wait = max(throttle.locked_for(k) for k in keys)
        if wait:
            error = (f"Too many failed sign-ins. Try again in {wait} seconds, "
                     "or ask a supervisor.")
            status = 429
        else:
            info = get_backend().authenticate(name, form.password.data)
            if info is None or not info.active:
                for key in keys:
                    throttle.failed(key)
                error = "Wrong name or password."
                status = 401
            else:
                for key in keys:
                    throttle.succeeded(key)
                session.clear()
                login_user(User(info))
                session.permanent = True
                return redirect(_safe_next(request.args.get("next")))
    elif request.method == "POST":
        status = 400
        error = "Enter your name and password."
    return render_template("auth/login.html", form=form, error=error), status


@bp.post("/logout")
def logout() -> Response:
    logout_user()
    session.clear()
    flash("Signed out.")
    return redirect(url_for("auth.login"))


def init_app(app: Flask) -> None:
    login_manager.init_app(app)
    app.register_blueprint(bp)

    @app.context_processor
    def _inject() -> dict[str, Any]:
        return {"current_user": current_user}
