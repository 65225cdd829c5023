"""Every refusal as JSON: `{"code": ..., "message": ...}`, with the HTTP status that fits.

The codes are the site's own (games/play/errors.py, the rules package's errors): `stale` when the
game moved on since the version the client sent, `not_your_turn`, `not_a_player`, the rules'
codes for an illegal action, and a few of the API's (`unauthorized`, `scope`, `not_found`,
`bad_request`, `rate_limited`).
"""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from django.utils.translation import gettext as _
from ninja import Schema
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as RequestInvalid

from games.play.errors import ActionRefused, StaleVersion
from games.play.rate_limits import API_READS, refusal_words

from .auth import ReadsLimited, ScopeMissing


class Refusal(Schema):
    code: str
    message: str
    version: int | None = None  # with `stale`: the game's version now
    space: int | None = None  # the space or tile that caused it, when known
    tile: int | None = None
    retry_after: int | None = None  # with `rate_limited`: seconds until the window ends


class ApiRefusal(Exception):
    """A refusal the API itself makes (not found, bad request...)."""

    def __init__(self, status: int, code: str, message: str, **extra):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


# A refusal of the rules or the platform, by its code: the status a client can branch on.
STATUS_OF_CODE = {
    "stale": 409,
    "not_your_turn": 409,
    "not_a_player": 403,
    "muted": 403,
    "not_started": 409,
    "forbidden": 403,
    "not_found": 404,
}


def install(api) -> None:
    def answer(request, status: int, body: dict, headers=None):
        response = api.create_response(request, body, status=status)
        for name, value in (headers or {}).items():
            response[name] = value
        return response

    @api.exception_handler(ActionRefused)
    def refused(request, error: ActionRefused):
        body = {"code": error.code, "message": error.message}
        if error.space is not None:
            body["space"] = error.space
        if error.tile is not None:
            body["tile"] = error.tile
        if isinstance(error, StaleVersion):
            body["version"] = getattr(error, "version", None)
        return answer(request, STATUS_OF_CODE.get(error.code, 400), body)

    @api.exception_handler(ApiRefusal)
    def api_refusal(request, error: ApiRefusal):
        headers = {}
        if "retry_after" in error.extra:
            headers["Retry-After"] = str(error.extra["retry_after"])
        body = {"code": error.code, "message": error.message, **error.extra}
        return answer(request, error.status, body, headers)

    @api.exception_handler(AuthenticationError)
    def unauthorized(request, error):
        body = {
            "code": "unauthorized",
            "message": _("Send a valid, unrevoked token: Authorization: Bearer <token>."),
        }
        return answer(request, 401, body, {"WWW-Authenticate": 'Bearer realm="api"'})

    @api.exception_handler(ScopeMissing)
    def scope_missing(request, error: ScopeMissing):
        body = {
            "code": "scope",
            "message": _("This token may not do that: it needs the %(scope)s scope.")
            % {"scope": error.scope},
        }
        return answer(request, 403, body)

    @api.exception_handler(ReadsLimited)
    def reads_limited(request, error: ReadsLimited):
        body = {
            "code": "rate_limited",
            "message": refusal_words(API_READS, error.wait),
            "retry_after": error.wait,
        }
        return answer(request, 429, body, {"Retry-After": str(error.wait)})

    @api.exception_handler(RequestInvalid)
    def invalid(request, error: RequestInvalid):
        problems = "; ".join(_problem(each) for each in error.errors) or _(
            "The request is invalid."
        )
        return answer(request, 422, {"code": "bad_request", "message": problems})

    @api.exception_handler(RequestDataTooBig)
    def too_large(request, error):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = {
            "code": "too_large",
            "message": _("The body is too large: at most %(bytes)d bytes.") % {"bytes": limit},
        }
        return answer(request, 413, body)

    @api.exception_handler(Http404)
    def not_found(request, error):
        return answer(request, 404, {"code": "not_found", "message": str(error) or _("Not found.")})

    @api.exception_handler(HttpError)
    def http_error(request, error: HttpError):
        code = "bad_request" if error.status_code == 400 else "error"
        message = str(error)
        if message == "Cannot parse request body":
            message = _("The body must be a JSON object (Content-Type: application/json).")
        return answer(request, error.status_code, {"code": code, "message": message})


def _problem(error: dict) -> str:
    """One problem of a request that does not match the schema, the field named as the schema
    names it: `version`, not django-ninja's (`body`, `move`, `version`), whose second part is
    the endpoint's own name for its body."""
    loc = list(error.get("loc", ()))
    if loc[:1] == ["body"]:
        loc = loc[2:]
    elif loc[:1] in (["query"], ["path"]):
        loc = loc[1:]
    where = ".".join(str(part) for part in loc)
    message = error.get("msg", "invalid")
    return f"{where}: {message}" if where else message


def not_found(what: str | None = None) -> ApiRefusal:
    return ApiRefusal(404, "not_found", what or _("No such game."))
