"""The accounts' side in the four languages (issue 24): the pages answer in the visitor's or the
player's language, the settings and the switcher keep the player's choice, the words of places
and lists are each language's own, and every email speaks its recipient's language, never the
sender's. (The texts stay English until the translation files are filled: only what the code
itself says in each language is checked word for word here.)"""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.urls import reverse
from django.utils import formats, timezone, translation

from accounts.models import User
from games.notices import emails, webpush
from games.play import actions
from infra.models import OutboxEmail
from infra.words import and_list, duration_words, ordinal, place_words, wait_words
from tests.email.digests import digest_for


def html_lang(page) -> str:
    return re.search(rb'<html lang="([^"]+)"', page.content)[1].decode()


# --- the pages -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/accounts/login/", "/accounts/signup/", "/"])
@pytest.mark.parametrize("language", ["es", "fr", "de", "en-gb"])
def test_a_visitors_pages_answer_in_the_language_of_their_cookie(client, db, path, language):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language

    page = client.get(path)

    assert page.status_code == 200
    assert html_lang(page) == language


def test_a_visitors_pages_answer_in_the_language_of_their_browser(client, players):
    page = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9,en;q=0.5")
    assert page.status_code == 200 and html_lang(page) == "fr"
    profile = client.get("/players/ada/", HTTP_ACCEPT_LANGUAGE="de")
    assert profile.status_code == 200 and html_lang(profile) == "de"


@pytest.mark.parametrize("path", ["/settings/", "/settings/tokens/", "/players/brian/"])
def test_a_players_pages_answer_in_their_own_language_whatever_the_browser_says(
    client, players, path
):
    ada = players[0]
    ada.language = "de"
    ada.save()
    client.force_login(ada)

    page = client.get(path, HTTP_ACCEPT_LANGUAGE="es")

    assert page.status_code == 200
    assert html_lang(page) == "de"


def test_the_pages_of_a_player_without_a_language_follow_the_browser(client, players):
    client.force_login(players[0])
    for path in ("/settings/", "/settings/tokens/", "/players/ada/"):
        page = client.get(path, HTTP_ACCEPT_LANGUAGE="es")
        assert page.status_code == 200 and html_lang(page) == "es", path


def test_the_token_and_bot_pages_work_in_another_language(client, players):
    """The forms' labels, the refusals and the messages after each change are lazy or built
    in the request's language: making a token and a bot, and refusing a bad name, all work."""
    client.force_login(players[0])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"

    made = client.post(
        "/settings/tokens/", {"name": "my bot", "scope": "play", "account": players[0].pk}
    )
    assert made.status_code == 200 and html_lang(made) == "fr"
    assert b"mco_" in made.content
    bot = client.post(reverse("accounts:make_bot"), {"username": "adabot"}, follow=True)
    assert bot.status_code == 200 and html_lang(bot) == "fr"
    refused = client.post(reverse("accounts:make_bot"), {"username": "ada"})
    assert refused.status_code == 400


def test_the_error_page_answers_in_the_visitors_language(client, db, rf):
    from microchip_site.errors import server_error

    request = rf.get("/")
    with translation.override("es"):
        page = server_error(request)
    assert page.status_code == 500
    assert b'<html lang="es">' in page.content


# --- the player's choice -------------------------------------------------------------------------


SETTINGS = {"time_zone": "UTC", "theme": "system", "invitations_from": "anyone"}


def test_the_settings_page_shows_and_saves_the_players_language(client, players):
    ada = players[0]
    client.force_login(ada)
    page = client.get("/settings/")
    assert b'name="language"' in page.content

    saved = client.post("/settings/", {**SETTINGS, "language": "fr"}, follow=True)

    ada.refresh_from_db()
    assert ada.language == "fr"
    assert html_lang(saved) == "fr"
    # "As my browser says" is a choice of its own.
    client.post("/settings/", {**SETTINGS, "language": ""})
    ada.refresh_from_db()
    assert ada.language == ""
    # A language the site does not have is refused.
    client.post("/settings/", {**SETTINGS, "language": "xx"})
    ada.refresh_from_db()
    assert ada.language == ""


def test_saving_the_settings_from_a_form_without_the_language_keeps_it(client, players):
    ada = players[0]
    ada.language = "es"
    ada.save()
    client.force_login(ada)

    client.post("/settings/", SETTINGS)

    ada.refresh_from_db()
    assert ada.language == "es"


def test_the_switcher_sets_the_cookie_and_a_signed_in_players_language(client, players):
    ada = players[0]
    client.force_login(ada)

    answer = client.post("/language/", {"language": "de", "next": "/leaderboard/"})

    assert answer.status_code == 302 and answer["Location"] == "/leaderboard/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    ada.refresh_from_db()
    assert ada.language == "de"
    assert html_lang(client.get("/settings/")) == "de"


def test_the_switcher_sets_only_the_cookie_for_a_visitor(client, players):
    answer = client.post("/language/", {"language": "es", "next": "/accounts/login/"})

    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    assert html_lang(client.get("/accounts/login/")) == "es"
    assert not User.objects.exclude(language="").exists()


def test_the_switcher_refuses_a_language_the_site_does_not_have(client, players):
    client.force_login(players[0])

    client.post("/language/", {"language": "xx", "next": "/"})

    players[0].refresh_from_db()
    assert players[0].language == ""


def test_the_switcher_comes_back_to_this_page_but_not_to_a_next_off_the_site(client, db):
    page = client.get("/leaderboard/?page=2")
    assert b'name="next" value="/leaderboard/?page=2"' in page.content
    login = client.get("/accounts/login/?next=/games/7/")
    assert b'name="next" value="/accounts/login/?next=/games/7/"' in login.content
    evil = client.get("/accounts/login/?next=https://evil.example/&x=1")
    assert b'name="next" value="/accounts/login/?x=1"' in evil.content
    assert b"next=https" not in evil.content


# --- the words the code says in each language ------------------------------------------------


@pytest.mark.parametrize(
    ("language", "places"),
    [
        ("en-gb", ["1st", "2nd", "3rd", "4th", "11th", "12th", "21st", "22nd", "101st", "111th"]),
        ("es", ["1.º", "2.º", "3.º", "4.º", "11.º", "12.º", "21.º", "22.º", "101.º", "111.º"]),
        ("fr", ["1er", "2e", "3e", "4e", "11e", "12e", "21e", "22e", "101e", "111e"]),
        ("de", ["1.", "2.", "3.", "4.", "11.", "12.", "21.", "22.", "101.", "111."]),
    ],
)
def test_ordinals_as_each_language_writes_them(language, places):
    with translation.override(language):
        assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 21, 22, 101, 111)] == places


@pytest.mark.parametrize(
    ("language", "first", "second"),
    [("en-gb", "1st", "2nd"), ("es", "1.º", "2.º"), ("fr", "1er", "2e"), ("de", "1.", "2.")],
)
def test_places_in_each_language(language, first, second):
    with translation.override(language):
        assert place_words(1, [1, 2, 3]) == first
        assert place_words(2, [1, 2, 3]) == second
        shared = place_words(1, [1, 1, 3])
    assert shared.startswith(first) and shared != first  # the shared words: the .po files'


def test_a_shared_place_in_english():
    assert place_words(1, [1, 1, 3]) == "1st (shared)"
    assert place_words(3, [1, 1, 3]) == "3rd"


@pytest.mark.parametrize(
    ("language", "two", "three"),
    [
        ("en-gb", "ada and brian", "ada, brian and chloe"),
        ("es", "ada y brian", "ada, brian y chloe"),
        ("fr", "ada et brian", "ada, brian et chloe"),
        ("de", "ada und brian", "ada, brian und chloe"),
    ],
)
def test_lists_with_each_languages_and(language, two, three):
    with translation.override(language):
        assert and_list(["ada"]) == "ada"
        assert and_list(["ada", "brian"]) == two
        assert and_list(["ada", "brian", "chloe"]) == three


def test_a_spanish_list_says_e_before_an_i_sound():
    with translation.override("es"):
        assert and_list(["ana", "ines"]) == "ana e ines"
        assert and_list(["ana", "Hilda"]) == "ana e Hilda"
        assert and_list(["ana", "hielo"]) == "ana y hielo"
        assert and_list(["ana", "brian"]) == "ana y brian"


def test_durations_keep_their_english_and_their_numbers_in_every_language():
    length = timedelta(days=2, hours=6)
    assert duration_words(length) == "2 days 6 hours"
    assert duration_words(timedelta(days=1)) == "1 day"
    assert wait_words(88.5) == "89 seconds"
    for language in ("es", "fr", "de"):
        with translation.override(language):
            words = duration_words(length)
            wait = wait_words(5400)
        assert re.fullmatch(r"2 \S+ 6 \S+", words), (language, words)
        assert re.fullmatch(r"2 \S+", wait), (language, wait)


# --- the emails ----------------------------------------------------------------------------------


@pytest.fixture
def languages_rendered(monkeypatch):
    """The active language at each render of an email's template (games/notices/emails.py)."""
    seen = []
    real = emails.render_to_string

    def render(name, context=None, *args, **kwargs):
        seen.append((name, translation.get_language()))
        return real(name, context, *args, **kwargs)

    monkeypatch.setattr(emails, "render_to_string", render)
    return seen


def test_the_digest_of_a_german_reader_is_rendered_in_german(players, languages_rendered):
    reader = players[0]
    reader.language = "de"
    reader.time_zone = "Europe/Berlin"

    with translation.override("es"):  # whatever the language of whoever caused it
        digest, seat = digest_for(players, reader)

    assert {name for name, _ in languages_rendered} == {
        "emails/digest_subject.txt",
        "emails/digest.txt",
        "emails/digest.html",
    }
    assert {language for _, language in languages_rendered} == {"de"}
    # The German way to write a date ("Sonntag, 6. Dezember"), with Django's German names of
    # the day and the month, in the reader's time zone.
    with translation.override("de"), timezone.override(reader.zone):
        deadline = formats.date_format(timezone.localtime(seat.clock_deadline), "l, j. F, H:i T")
    with translation.override("en-gb"), timezone.override(reader.zone):
        english = formats.date_format(timezone.localtime(seat.clock_deadline), "l j F, H:i T")
    assert deadline != english
    assert deadline in digest.body
    assert "Spiel" in digest.subject or "Spiel" in digest.body  # the words are German too
    html = digest.alternatives[0][0]
    assert deadline in html and '<html lang="de">' in html


def test_the_email_of_a_reader_without_a_language_is_in_the_sites(players, languages_rendered):
    with translation.override("fr"):  # e.g. a French player's request caused it
        digest, _ = digest_for(players, players[0])

    assert {language for _, language in languages_rendered} == {settings.LANGUAGE_CODE}
    assert "game is waiting for you today" in digest.body
    assert '<html lang="en-gb">' in digest.alternatives[0][0]


def test_a_your_move_email_is_in_its_readers_language(players, committed, languages_rendered):
    ada, brian = players[0], players[1]
    ada.language, brian.language = "fr", "es"
    ada.save()
    brian.save()
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    with translation.override("de"):
        committed(actions.join_game, game_id=game.pk, user=brian)

    assert {message.to[0] for message in mail.outbox} == {ada.email, brian.email}
    assert {language for _, language in languages_rendered} == {"fr", "es"}


def test_a_push_is_in_its_readers_language(players, monkeypatch):
    ada = players[0]
    ada.language = "de"
    ada.save()
    game = actions.create_game(creator=players[1], player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=ada)
    game.refresh_from_db()
    row = OutboxEmail(kind="your_turn", user=ada, game_id=game.pk, version=game.pool_version)
    seen = []
    monkeypatch.setattr(
        webpush, "notice_subject", lambda *args: seen.append(translation.get_language()) or "t"
    )
    context = {"opponents": ["brian"], "deadline": game.deadline}

    message = webpush.payload(row, context)

    assert seen == ["de"]
    assert message["body"].startswith("Gegen brian.")  # the German catalogue's words
    with translation.override("de"), timezone.override(ada.zone):
        when = formats.date_format(timezone.localtime(game.deadline), "D j M, H:i")
    assert when in message["body"]


def test_an_account_email_speaks_the_players_chosen_language(
    client, players, django_capture_on_commit_callbacks
):
    ada = players[0]
    ada.language = "de"
    ada.save()

    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("account_reset_password"), {"email": "ada@example.com"})

    [message] = mail.outbox
    assert message.body.startswith("Hallo von Microchip Online!")  # allauth's own German
