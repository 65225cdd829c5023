"""Personal access tokens (issue 23): only a digest of the secret is kept, a secret
authenticates while its token, its account (and a bot's owner) are active, using one is
recorded at most once a minute, an account has a cap, a scope allows what it says; the settings
page makes a token and shows its secret once, revokes one's own and nobody else's; and a token
never signs anyone in to the site's pages."""

import hashlib
import logging
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import token_views, tokens
from accounts.models import AccessToken
from games.models import Event, Game
from infra.rates import parse_rates
from tests.api.conftest import make_token_on_the_page, secret_in, signed_in

pytestmark = pytest.mark.django_db


def test_only_the_digest_of_the_secret_is_kept(ada):
    token, secret = tokens.create_token(ada, name="  my   bot ", scope="play")

    assert secret.startswith("mco_") and len(secret) >= 4 + 43  # 32 random bytes in base64
    row = AccessToken.objects.filter(pk=token.pk).values().get()
    assert row["digest"] == hashlib.sha256(secret.encode()).hexdigest()
    assert not any(secret in str(value) for value in row.values())
    assert secret.startswith(row["prefix"]) and len(row["prefix"]) == 4 + tokens.SHOWN_PREFIX
    assert row["name"] == "my bot"  # its spaces tidied


def test_two_tokens_have_different_secrets(ada):
    (_, first), (_, second) = (tokens.create_token(ada, name=n, scope="read") for n in "ab")

    assert first != second


def test_a_secret_finds_its_token_and_its_player(ada):
    token, secret = tokens.create_token(ada, name="watcher", scope="read")

    found = tokens.authenticate(secret)

    assert found == token
    assert found.user == ada
    assert found.last_used_at is not None


@pytest.mark.parametrize(
    "secret",
    [
        "",
        "mco_",
        "mco_" + "A" * 43,  # well formed, but nobody's
        "Bearer mco_whatever",
        "mco_" + "A" * 200,  # too long to be one
        "not a token at all",
        "mco_\x00",
        None,
    ],
)
def test_a_wrong_or_malformed_secret_finds_nothing(ada, secret):
    tokens.create_token(ada, name="real", scope="play")

    assert tokens.authenticate(secret) is None


def test_a_secret_with_one_character_changed_finds_nothing(ada):
    _, secret = tokens.create_token(ada, name="real", scope="play")
    changed = secret[:-1] + ("A" if secret[-1] != "A" else "B")

    assert tokens.authenticate(changed) is None


def test_a_revoked_token_no_longer_authenticates(ada):
    token, secret = tokens.create_token(ada, name="old", scope="play")

    assert tokens.revoke(ada, token.pk) is True

    assert tokens.authenticate(secret) is None
    assert tokens.revoke(ada, token.pk) is False  # once is enough


def test_a_closed_account_s_tokens_no_longer_authenticate(ada):
    _, secret = tokens.create_token(ada, name="mine", scope="play")

    ada.is_active = False
    ada.save()

    assert tokens.authenticate(secret) is None
    with pytest.raises(tokens.TokenRefused, match="closed"):
        tokens.create_token(ada, name="another", scope="read")


def test_using_a_token_is_recorded_at_most_once_a_minute(ada):
    token, secret = tokens.create_token(ada, name="poller", scope="read")
    tokens.authenticate(secret)
    first_use = AccessToken.objects.get(pk=token.pk).last_used_at

    with CaptureQueriesContext(connection) as queries:
        tokens.authenticate(secret)
    assert not [q for q in queries if q["sql"].lstrip().upper().startswith("UPDATE")]
    assert AccessToken.objects.get(pk=token.pk).last_used_at == first_use

    a_while_ago = timezone.now() - tokens.LAST_USED_EVERY - timedelta(seconds=1)
    AccessToken.objects.filter(pk=token.pk).update(last_used_at=a_while_ago)
    tokens.authenticate(secret)
    assert AccessToken.objects.get(pk=token.pk).last_used_at > a_while_ago


def test_an_account_has_at_most_max_tokens_and_a_revoked_one_frees_a_place(ada):
    made = [
        tokens.create_token(ada, name=f"t{n}", scope="read")[0] for n in range(tokens.MAX_TOKENS)
    ]

    with pytest.raises(tokens.TokenRefused, match=f"at most {tokens.MAX_TOKENS} tokens"):
        tokens.create_token(ada, name="one too many", scope="read")

    tokens.revoke(ada, made[0].pk)
    tokens.create_token(ada, name="in its place", scope="read")
    assert (
        AccessToken.objects.filter(user=ada, revoked_at__isnull=True).count() == tokens.MAX_TOKENS
    )


@pytest.mark.parametrize(
    ("name", "scope", "words"),
    [("   ", "read", "Give the token a name"), ("ok", "admin", "read or play")],
)
def test_a_token_without_a_name_or_with_an_unknown_scope_is_refused(ada, name, scope, words):
    with pytest.raises(tokens.TokenRefused, match=words):
        tokens.create_token(ada, name=name, scope=scope)

    assert not AccessToken.objects.exists()


def test_a_read_token_reads_and_a_play_token_also_plays(ada):
    reader, _ = tokens.create_token(ada, name="r", scope="read")
    player, _ = tokens.create_token(ada, name="p", scope="play")

    assert reader.allows("read") and not reader.allows("play")
    assert player.allows("read") and player.allows("play")
    assert not player.allows("admin") and not reader.allows("admin")


# --- the settings page --------------------------------------------------------------------------


def test_the_tokens_page_needs_a_log_in_and_is_linked_from_the_settings(client, ada):
    response = client.get(reverse("accounts:api_tokens"))
    assert response.status_code == 302
    assert reverse("account_login") in response.url

    settings_page = signed_in(ada).get(reverse("accounts:settings")).content.decode()
    assert reverse("accounts:api_tokens") in settings_page


def test_a_new_token_s_secret_is_shown_once_and_never_kept(ada, caplog):
    client = signed_in(ada)
    caplog.set_level(logging.DEBUG)

    response = make_token_on_the_page(client, ada, name="my program", scope="play")

    assert response.status_code == 200
    token = AccessToken.objects.get(user=ada)
    assert token.name == "my program" and token.scope == "play"
    page = response.content.decode()
    secret = secret_in(page)
    assert tokens.authenticate(secret) == token
    assert "it will not be shown again" in page
    assert "no-store" in response["Cache-Control"]
    # Nowhere else: not in the session (nor its messages), not in a log.
    assert secret not in str(dict(client.session.items()))
    assert secret not in caplog.text
    reloaded = client.get(reverse("accounts:api_tokens"))
    assert secret not in reloaded.content.decode()
    assert token.prefix in reloaded.content.decode()  # listed by its first characters
    assert "no-store" in reloaded["Cache-Control"]


def test_the_page_lists_the_active_tokens_with_their_use(ada):
    used, secret = tokens.create_token(ada, name="used one", scope="read")
    tokens.authenticate(secret)
    revoked, _ = tokens.create_token(ada, name="revoked one", scope="read")
    tokens.revoke(ada, revoked.pk)

    page = signed_in(ada).get(reverse("accounts:api_tokens")).content.decode()

    assert "used one" in page and used.prefix in page
    assert "revoked one" not in page
    assert "/api/v1/docs" in page and "docs/api.md" in page
    assert "never" not in page.split("used one")[1].split("</tr>")[0]  # it has a last use


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"name": "", "scope": "read"}, "This field is required"),
        ({"name": "x", "scope": "everything"}, "Select a valid choice"),
        ({"name": "x" * 61, "scope": "read"}, "at most 60 characters"),
    ],
)
def test_a_bad_token_form_says_why_and_makes_nothing(ada, data, words):
    response = signed_in(ada).post(reverse("accounts:api_tokens"), {**data, "account": ada.pk})

    assert response.status_code == 400
    assert words in response.content.decode()
    assert not AccessToken.objects.exists()


def test_the_cap_is_said_on_the_page(ada, monkeypatch):
    monkeypatch.setattr(tokens, "MAX_TOKENS", 1)
    client = signed_in(ada)
    make_token_on_the_page(client, ada)

    response = make_token_on_the_page(client, ada, name="second")

    assert response.status_code == 400
    assert "at most 1 tokens; revoke one first" in response.content.decode()
    assert AccessToken.objects.filter(user=ada).count() == 1


def test_making_tokens_is_rate_limited(ada, monkeypatch):
    monkeypatch.setattr(token_views, "MADE_RATES", parse_rates("2/h/key"))
    client = signed_in(ada)
    for n in range(2):
        assert make_token_on_the_page(client, ada, name=f"t{n}").status_code == 200

    response = make_token_on_the_page(client, ada, name="third")

    assert response.status_code == 429
    assert "Try again in" in response.content.decode()
    assert AccessToken.objects.filter(user=ada).count() == 2


def test_a_player_revokes_a_token_from_the_page(ada):
    token, secret = tokens.create_token(ada, name="old laptop", scope="play")
    client = signed_in(ada)

    response = client.post(reverse("accounts:revoke_token", args=[token.pk]))

    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert tokens.authenticate(secret) is None
    page = client.get(response.url).content.decode()
    assert "The token “old laptop” is revoked" in page


def test_revoking_is_a_post_only(ada):
    token, _ = tokens.create_token(ada, name="kept", scope="read")

    response = signed_in(ada).get(reverse("accounts:revoke_token", args=[token.pk]))

    assert response.status_code == 405
    token.refresh_from_db()
    assert token.revoked_at is None


def test_the_revoke_form_asks_in_words_and_carries_its_csrf_token(ada):
    token, _ = tokens.create_token(ada, name="kept", scope="read")
    client = Client(enforce_csrf_checks=True)
    client.force_login(ada)

    page = client.get(reverse("accounts:api_tokens")).content.decode()
    assert "This cannot be undone" in page and "Revoke “kept”" in page
    assert client.post(reverse("accounts:revoke_token", args=[token.pk])).status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is None


def test_another_player_s_token_cannot_be_revoked(ada, brian):
    token, secret = tokens.create_token(ada, name="ada's", scope="play")

    response = signed_in(brian).post(reverse("accounts:revoke_token", args=[token.pk]))

    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None
    assert tokens.authenticate(secret) == token
    assert "ada&#x27;s" not in signed_in(brian).get(reverse("accounts:api_tokens")).content.decode()


def test_a_token_cannot_be_made_for_another_player(ada, brian):
    response = make_token_on_the_page(signed_in(brian), ada)

    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not AccessToken.objects.exists()


# --- a token is for the API only ----------------------------------------------------------------


def test_a_token_does_not_sign_anyone_in_to_the_pages(ada):
    _, secret = tokens.create_token(ada, name="full", scope="play")
    browser = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")

    response = browser.get(reverse("dashboard"))

    assert response.status_code == 302
    assert reverse("account_login") in response.url
    assert "_auth_user_id" not in browser.session


def test_a_token_cannot_move_through_the_site_s_forms(start_game):
    game = start_game(2)
    player = game.seats.get(number=game.current_seat).user
    _, secret = tokens.create_token(player, name="full", scope="play")
    before = (game.version, Event.objects.filter(game=game).count())
    browser = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {secret}")

    response = browser.post(
        reverse("games:act", args=[game.pk]),
        {"action": "draft", "index": 0, "version": game.version},
    )

    assert response.status_code == 403 or (
        response.status_code == 302 and reverse("account_login") in response.url
    )
    game = Game.objects.get(pk=game.pk)
    assert (game.version, Event.objects.filter(game=game).count()) == before
