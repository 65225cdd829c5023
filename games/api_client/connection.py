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


class Connection:
    def __init__(self, url: str, token: str, *, timeout: float = 30.0):
        self.http = httpx.Client(
            base_url=url.rstrip("/") + "/api/v1",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
        )

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
        for _ in range(RATE_LIMIT_RETRIES):
            response = self.http.request(method, path, **options)
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
