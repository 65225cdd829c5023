"""The API over HTTP: its calls, its refusals, and its stream of newline-delimited JSON."""

import json
import logging
import time
from collections.abc import Iterator

import httpx

log = logging.getLogger("games.api_client")

# A call answered 429 is made again after the Retry-After the site sends, this many times.
RATE_LIMIT_RETRIES = 3
MOST_WAIT = 120

# The stream sends an empty line every 20 seconds or so: a longer silence means it is gone.
STREAM_SILENCE = 60.0


class Refused(Exception):
    """The API refused a call: its `status`, its `code` (stale, not_your_turn...) and words."""

    def __init__(self, status: int, body: dict):
        self.status = status
        self.code = body.get("code", "error")
        self.message = body.get("message", "")
        self.body = body
        super().__init__(f"{status} {self.code}: {self.message}")


# Past this share of a limit used, the client spreads what is left of it over its window.
SPREAD_AFTER = 0.75


class Pacer:
    """What the site's answers said of its rate limits (the IETF RateLimit fields: `RateLimit-
    Policy: "games.act";q=240;w=60`, `RateLimit: "games.act";r=17;t=42`), and the wait before
    the next call of a kind that one of them counts: none while plenty is left; once most of the
    quota is spent, what is left spread over what is left of the window; nothing left, the
    window's end. The client is never refused for its pace, and a strong player arranging its
    tiles for every game never stalls them all behind a 429 (issue 34)."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.quota: dict[str, int] = {}  # policy -> q
        self.left: dict[str, tuple[int, float]] = {}  # policy -> (r, when its window ends)
        self.policies: dict[str, set[str]] = {}  # a kind of call -> the policies counting it

    def heard(self, kind: str, headers) -> None:
        policy, now = headers.get("RateLimit-Policy"), self.clock()
        if policy:
            for name, fields in _items(policy):
                if "q" in fields:
                    self.quota[name] = fields["q"]
        answer = headers.get("RateLimit")
        if answer:
            counted = set()
            for name, fields in _items(answer):
                if "r" in fields and "t" in fields:
                    self.left[name] = (fields["r"], now + fields["t"])
                    counted.add(name)
            self.policies[kind] = counted

    def wait(self, kind: str) -> float:
        """Seconds to wait before the next call of this kind."""
        now, longest = self.clock(), 0.0
        for name in self.policies.get(kind, ()):
            left, ends = self.left.get(name, (1, now))
            quota = self.quota.get(name)
            if ends <= now or quota is None:
                continue
            if left <= 0:
                wait = ends - now
            elif left < quota * (1 - SPREAD_AFTER):
                wait = (ends - now) / (left + 1)
            else:
                wait = 0.0
            longest = max(longest, wait)
        return min(longest, MOST_WAIT)


def _items(value: str):
    """The items of a structured-field list: ('"name";a=1;b=2, ...') -> (name, {a: 1, b: 2})."""
    for item in value.split(","):
        name, *parameters = item.strip().split(";")
        fields = {}
        for parameter in parameters:
            key, _, number = parameter.partition("=")
            if number.strip().lstrip("-").isdigit():
                fields[key.strip()] = int(number)
        yield name.strip().strip('"'), fields


def _kind(method: str, path: str) -> str:
    """A kind of call, the ids left out: POST /games/{id}/actions."""
    return method + " " + "/".join("{id}" if part.isdigit() else part for part in path.split("/"))


class Connection:
    def __init__(self, url: str, token: str, *, timeout: float = 30.0):
        self.http = httpx.Client(
            base_url=url.rstrip("/") + "/api/v1",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
        )
        self.pacer = Pacer()

    def close(self) -> None:
        self.http.close()

    def get(self, path: str, **params) -> dict | list:
        return self._call("GET", path, params=params)

    def post(self, path: str, body: dict | None = None) -> dict | list | None:
        return self._call("POST", path, json=body or {})

    def delete(self, path: str) -> None:
        self._call("DELETE", path)

    def _call(self, method: str, path: str, **options):
        """One call; over the site's rate limit, the same call again once the window allows
        (a 429 changed nothing)."""
        kind = _kind(method, path)
        for _ in range(RATE_LIMIT_RETRIES):
            pause = self.pacer.wait(kind)
            if pause > 0:
                log.debug("pacing %s: %.2f s", kind, pause)
                time.sleep(pause)
            response = self.http.request(method, path, **options)
            self.pacer.heard(kind, response.headers)
            if response.status_code != 429:
                break
            wait = min(int(response.headers.get("Retry-After", "1")), MOST_WAIT)
            log.info("over the rate limit: %s %s again in %s s", method, path, wait)
            time.sleep(wait)
        return self._answer(response)

    def stream(self, since: dict[int, int]) -> Iterator[dict]:
        """The stream's lines as they come, resumed after `since` ({game id: version}); ends
        when the server ends it, raises httpx errors when the connection drops."""
        params = {}
        if since:
            params["since"] = ",".join(f"{game}:{version}" for game, version in since.items())
        timeout = httpx.Timeout(self.http.timeout.connect, read=STREAM_SILENCE)
        with self.http.stream("GET", "/stream", params=params, timeout=timeout) as response:
            if response.status_code != 200:
                response.read()
                raise Refused(response.status_code, _json_or_words(response))
            for line in response.iter_lines():
                if line.strip():
                    yield json.loads(line)

    @staticmethod
    def _answer(response: httpx.Response):
        if response.status_code == 204:
            return None
        if response.status_code >= 400:
            raise Refused(response.status_code, _json_or_words(response))
        return response.json()


def _json_or_words(response: httpx.Response) -> dict:
    try:
        return response.json()
    except ValueError:
        return {"code": "error", "message": response.text[:200]}
