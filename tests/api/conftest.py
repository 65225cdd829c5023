"""The accounts side of the public API: tokens, bot accounts and their settings page."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts import api_bots


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def ada(make_player):
    return make_player("ada")


@pytest.fixture
def brian(make_player):
    return make_player("brian")


@pytest.fixture
def make_bot():
    def make(owner, username="adabot"):
        return api_bots.create_bot(owner, username=username)

    return make


def make_token_on_the_page(client, account, *, name="my program", scope="read"):
    """POST the page's form for a token of `account` (the signed-in player or their bot)."""
    data = {"name": name, "scope": scope, "account": account.pk}
    return client.post(reverse("accounts:api_tokens"), data)


def secret_in(page: str) -> str:
    """The new token's secret on the page that answers its making."""
    start = page.index('value="mco_') + len('value="')
    return page[start : page.index('"', start)]
