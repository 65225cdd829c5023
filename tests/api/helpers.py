"""Calling the API as a third-party client does: JSON bodies, a bearer token."""

import json

from accounts import tokens


def token_for(user, scope="play") -> str:
    return tokens.create_token(user, name=f"{scope} token", scope=scope)[1]


class Client:
    """The Django test client, speaking to /api/v1/ with a token."""

    def __init__(self, django_client, secret: str | None):
        self.client = django_client
        self.headers = {"Authorization": f"Bearer {secret}"} if secret else {}

    def get(self, path, **params):
        return self.client.get(f"/api/v1{path}", params, headers=self.headers)

    def post(self, path, body=None):
        return self.client.post(
            f"/api/v1{path}",
            json.dumps(body or {}),
            content_type="application/json",
            headers=self.headers,
        )

    def delete(self, path):
        return self.client.delete(f"/api/v1{path}", headers=self.headers)
