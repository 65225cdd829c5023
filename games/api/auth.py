"""Who calls the API: a personal access token in `Authorization: Bearer <secret>`.

Only tokens are accepted, never the site's session cookie: an API call can therefore not be made
by a page the player happens to have open elsewhere (no cross-site request can carry a bearer
token), which is why the API needs no CSRF token. The other way round, a token never signs
anyone in to the site's pages: it is read here and nowhere else.
"""

from ninja.security import HttpBearer

from accounts import tokens
from accounts.models import AccessToken
from games.play.rate_limits import API_READS, seconds_to_wait


class ScopeMissing(Exception):
    """A valid token without the scope the endpoint needs."""

    def __init__(self, scope: str):
        super().__init__(scope)
        self.scope = scope


class ReadsLimited(Exception):
    """Too many reads in the window: wait `wait` seconds."""

    def __init__(self, wait: int):
        super().__init__(wait)
        self.wait = wait


class BearerToken(HttpBearer):
    """A token with at least `scope`; the request's user becomes the token's, so that the
    site's rate limits (games/play/rate_limits.py) count the same player whichever way they
    play."""

    def __init__(self, scope: str = AccessToken.Scope.READ):
        super().__init__()
        self.scope = scope

    def authenticate(self, request, token: str) -> AccessToken | None:
        found = tokens.authenticate(token)
        if found is None:
            return None
        if not found.allows(self.scope):
            raise ScopeMissing(self.scope)
        request.user = found.user
        if request.method == "GET":  # moves count against the site's own limits (playing.py)
            wait = seconds_to_wait(request, API_READS)
            if wait is not None:
                raise ReadsLimited(wait)
        return found


READ = BearerToken(AccessToken.Scope.READ)
PLAY = BearerToken(AccessToken.Scope.PLAY)
