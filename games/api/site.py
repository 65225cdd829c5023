"""The API object: its routers, its refusals, its docs. microchip_site/urls.py mounts it at
`/api/v1/`."""

import json

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from ninja import NinjaAPI
from ninja.parser import Parser

from . import errors, playing, reading, stream, talk

DESCRIPTION = """
Play Microchip Online from your own programs: read games, profiles and the leaderboard, make
every move the site offers, and follow your games live on a stream.

**Tokens.** Make one in your settings (Settings → API tokens) and send it as
`Authorization: Bearer <token>`. A *read* token reads; a *play* token also moves, seeks, joins
and invites. The site's pages never accept a token, and the API never accepts the site's cookie.

**Versions.** Every accepted change bumps a game's version. Send the version your program last
saw with each move: a move made against a state that has since changed in a way that matters is
refused with `409 stale` and the version now, never applied.

**Refusals** are JSON, `{"code": ..., "message": ...}`, with the site's own codes and words.
The rate limits are the site's, shared with the player's pages (`429 rate_limited`, with
`Retry-After`); each answer counted against one says what is left of it in the IETF RateLimit
fields (`RateLimit-Policy: "games.act";q=240;w=60`, `RateLimit: "games.act";r=17;t=42`).

**The stream**, `GET /api/v1/stream`, is newline-delimited JSON: game starts, each change with
its version, "your move", game ends. Resume after a disconnect with `?since=<game>:<version>,...`.
"""


class JsonObjects(Parser):
    """Every body the API takes is a JSON object: anything else is refused (400), not read as
    an object with every field left to its default."""

    def parse_body(self, request):
        body = json.loads(request.body)
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object")
        return body


api = NinjaAPI(
    title="Microchip Online API",
    version="1",
    description=DESCRIPTION,
    urls_namespace="api",
    parser=JsonObjects(),
    # The docs page's script (bundled with django-ninja, served from this site) sets inline
    # styles; that page alone may have them.
    docs_decorator=csp_update({"style-src": [UNSAFE_INLINE]}),
)
errors.install(api)
api.add_router("", reading.router)
api.add_router("", playing.router)
api.add_router("", stream.router)
api.add_router("", talk.router)
