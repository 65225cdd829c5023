"""Bot accounts (issue 23): a player makes them in their settings, up to a cap, under names
checked as sign-up checks them; they have no email and cannot log in; their owner makes and
revokes their tokens and closes them, which stops their tokens; nobody else manages them; they
are marked as bots but are not the server's computer players."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts import api_bots, tokens
from accounts.admin import AccessTokenAdmin
from accounts.bots import new_bot
from accounts.models import AccessToken, User
from games.templatetags.player_tags import bot_badge
from tests.api.conftest import make_token_on_the_page, secret_in, signed_in

pytestmark = pytest.mark.django_db


def test_a_player_makes_a_bot_account_from_the_page(ada):
    client = signed_in(ada)

    response = client.post(reverse("accounts:make_bot"), {"username": "AdaBot"})

    assert response.status_code == 302
    bot = User.objects.get(username="AdaBot")
    assert bot.bot_owner == ada and bot.is_api_bot and bot.is_active
    assert bot.bot_level is None and not bot.is_bot  # not a computer player the server plays
    assert bot.email == "" and not bot.has_usable_password()
    assert not bot.email_your_turn and not bot.email_daily_digest
    page = client.get(response.url).content.decode()
    assert "The bot account AdaBot is made" in page
    assert reverse("players:profile", args=["AdaBot"]) in page


def test_a_bot_account_cannot_log_in(ada, make_bot):
    bot = make_bot(ada)
    browser = Client()

    assert not browser.login(username=bot.username, password="")
    response = browser.post(reverse("account_login"), {"login": bot.username, "password": "x"})

    assert "_auth_user_id" not in browser.session
    assert response.status_code == 200  # the form again, with its error
    assert browser.get(reverse("dashboard")).status_code == 302


def test_an_owner_runs_at_most_five_bots_and_a_closed_one_frees_a_place(ada, make_bot):
    bots = [make_bot(ada, f"adabot{n}") for n in range(api_bots.MAX_BOTS)]
    client = signed_in(ada)

    response = client.post(reverse("accounts:make_bot"), {"username": "adabot9"})

    assert response.status_code == 400
    assert "at most 5 bot accounts" in response.content.decode()
    assert not User.objects.filter(username="adabot9").exists()
    assert "Make a bot account" not in client.get(reverse("accounts:api_tokens")).content.decode()

    api_bots.close_bot(ada, bots[0].pk)
    make_bot(ada, "adabot9")
    assert api_bots.bots_of(ada).count() == api_bots.MAX_BOTS


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("brian", "already"),  # taken
        ("BRIAN", "already"),  # taken whatever its case
        ("br\u0456an", "looks like an existing player"),  # a Cyrillic i (U+0456)
        ("\uff42rian", "looks like an existing player"),  # a full-width b
        ("bad name!", "Enter a valid username"),
        ("ab", "at least 3 characters"),
        ("x" * 151, "at most 150 characters"),
    ],
)
def test_a_bot_s_name_is_checked_as_a_sign_up_s_is(ada, brian, name, words):
    response = signed_in(ada).post(reverse("accounts:make_bot"), {"username": name})

    assert response.status_code == 400
    assert words in response.content.decode()
    assert not User.objects.filter(bot_owner=ada).exists()


def test_a_bot_account_cannot_run_bots_nor_a_computer_player(ada, make_bot):
    bot = make_bot(ada)
    computer = new_bot("easy")

    for owner in (bot, computer):
        with pytest.raises(api_bots.BotRefused, match="cannot run bot accounts"):
            api_bots.create_bot(owner, username=f"{owner.username}jr")


def test_the_owner_makes_its_bot_a_token_that_belongs_to_the_bot(ada, make_bot):
    bot = make_bot(ada)
    client = signed_in(ada)

    response = make_token_on_the_page(client, bot, name="engine", scope="play")

    assert response.status_code == 200
    token = AccessToken.objects.get()
    assert token.user == bot
    assert "your bot account adabot" in response.content.decode()
    secret = secret_in(response.content.decode())
    assert tokens.authenticate(secret).user == bot
    listed = client.get(reverse("accounts:api_tokens")).content.decode()
    assert "engine" in listed.split('id="bot-accounts"')[1]  # under the bot, not the owner


def test_the_owner_revokes_its_bot_s_token(ada, make_bot):
    bot = make_bot(ada)
    token, secret = tokens.create_token(bot, name="engine", scope="play")

    response = signed_in(ada).post(reverse("accounts:revoke_token", args=[token.pk]))

    assert response.status_code == 302
    assert tokens.authenticate(secret) is None


def test_closing_a_bot_stops_its_tokens_and_its_profile(ada, make_bot):
    bot = make_bot(ada)
    _, secret = tokens.create_token(bot, name="engine", scope="play")
    client = signed_in(ada)

    response = client.post(reverse("accounts:close_bot", args=[bot.pk]))

    assert response.status_code == 302
    bot.refresh_from_db()
    assert not bot.is_active
    assert tokens.authenticate(secret) is None
    assert not AccessToken.objects.filter(user=bot, revoked_at__isnull=True).exists()
    assert client.get(reverse("players:profile", args=[bot.username])).status_code == 404
    with pytest.raises(tokens.TokenRefused):
        tokens.create_token(bot, name="again", scope="read")


def test_closing_the_owner_stops_its_bots_tokens(ada, make_bot):
    bot = make_bot(ada)
    _, secret = tokens.create_token(bot, name="engine", scope="play")

    User.objects.filter(pk=ada.pk).update(is_active=False)

    assert tokens.authenticate(secret) is None


def test_nobody_else_manages_a_bot(ada, brian, make_bot):
    bot = make_bot(ada)
    token, secret = tokens.create_token(bot, name="engine", scope="play")
    other = signed_in(brian)

    assert other.post(reverse("accounts:close_bot", args=[bot.pk])).status_code == 404
    assert other.post(reverse("accounts:revoke_token", args=[token.pk])).status_code == 404
    assert make_token_on_the_page(other, bot).status_code == 400
    assert "adabot" not in other.get(reverse("accounts:api_tokens")).content.decode()

    bot.refresh_from_db()
    assert bot.is_active
    assert tokens.authenticate(secret) == token
    assert AccessToken.objects.filter(user=bot).count() == 1


def test_the_bot_s_profile_names_its_owner_and_the_owner_s_lists_its_bots(client, ada, make_bot):
    bot = make_bot(ada)

    bot_page = client.get(reverse("players:profile", args=[bot.username])).content.decode()
    owner_page = client.get(reverse("players:profile", args=[ada.username])).content.decode()

    owner_link = f'<a href="{reverse("players:profile", args=["ada"])}">ada</a>'
    assert f"Bot account, run by {owner_link}" in bot_page
    assert 'class="bot-badge"' in bot_page
    assert reverse("players:profile", args=[bot.username]) in owner_page
    assert "Runs the bot account" in owner_page


def test_bot_accounts_are_marked_as_bots_but_people_are_not(ada, make_bot):
    bot = make_bot(ada)

    assert "bot account" in bot_badge(bot)
    assert "computer player (easy)" in bot_badge(new_bot("easy"))
    assert bot_badge(ada) == ""


# --- the admin ----------------------------------------------------------------------------------


@pytest.fixture
def admin_client(make_player, settings):
    settings.ADMIN_REQUIRE_MFA = False  # the second factor is tested in tests/accounts
    staff = make_player("moderator")
    User.objects.filter(pk=staff.pk).update(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(User.objects.get(pk=staff.pk))
    return client


def test_the_admin_lists_tokens_without_their_digest_and_revokes_them(admin_client, ada, make_bot):
    token, secret = tokens.create_token(ada, name="ada's laptop", scope="play")
    changelist = reverse("admin:accounts_accesstoken_changelist")

    listing = admin_client.get(changelist, {"q": "ada"}).content.decode()
    detail = admin_client.get(
        reverse("admin:accounts_accesstoken_change", args=[token.pk])
    ).content.decode()

    assert token.prefix in listing
    assert token.digest not in listing and token.digest not in detail
    assert "digest" not in AccessTokenAdmin.fields
    response = admin_client.post(changelist, {"action": "revoke", "_selected_action": [token.pk]})
    assert response.status_code == 302
    assert tokens.authenticate(secret) is None


def test_the_admin_filters_the_bot_accounts_and_shows_their_owner(admin_client, ada, make_bot):
    bot = make_bot(ada)
    new_bot("easy")
    change_page = admin_client.get(reverse("admin:accounts_user_change", args=[bot.pk]))
    assert change_page.status_code == 200
    assert "field-bot_owner" in change_page.content.decode()  # shown, read-only

    listing = admin_client.get(
        reverse("admin:accounts_user_changelist"), {"kind": "bot_account"}
    ).content.decode()

    assert "adabot" in listing
    assert "EasyBot" not in listing
    assert "1 user" in listing or "1 result" in listing
