"""The game's pages in the reader's language (issue 24), and the rules' refusals said in it at
the edge (games/rules/i18n.py, games/play/errors.py): the pages draw in every language, and the
refusals go through gettext, in the reader's language, with English unchanged."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import rules
from games.models import Game
from games.play import errors
from games.play.errors import ActionRefused
from games.rules import ahead
from games.rules import errors as rule_errors

from ..history.playing import play_recorded
from ..rules.test_state import to_finishing

pytestmark = pytest.mark.django_db


def _client(user=None, language=None):
    client = Client(HTTP_ACCEPT_LANGUAGE=language) if language else Client()
    if user is not None:
        client.force_login(user)
    return client


def _pages(game, finished):
    return [
        reverse("games:lobby"),
        reverse("games:create"),
        reverse("dashboard"),
        reverse("games:game", args=[game.pk]),
        reverse("games:replay", args=[finished.pk]),
    ]


@pytest.fixture
def two_games(start_game):
    """A game in play and a finished one (for its replay)."""
    finished = start_game(2)
    play_recorded(finished)
    finished.refresh_from_db()
    assert finished.status == Game.Status.ENDED
    playing = start_game(2)
    assert playing.status == Game.Status.PLAYING
    return playing, finished


def test_the_game_pages_draw_in_the_browser_language(two_games, players):
    playing, finished = two_games
    client = _client(players[0], language="de")
    for url in _pages(playing, finished):
        response = client.get(url)
        assert response.status_code == 200, url
        assert 'lang="de"' in response.content.decode(), url


def test_the_game_pages_draw_in_the_player_own_language(two_games, players):
    playing, finished = two_games
    player = players[0]
    player.language = "es"
    player.save(update_fields=["language"])
    client = _client(player, language="de")  # their own choice wins over the browser's
    for url in _pages(playing, finished):
        response = client.get(url)
        assert response.status_code == 200, url
        assert 'lang="es"' in response.content.decode(), url


def test_the_replay_draws_for_a_visitor_in_french(two_games):
    _, finished = two_games
    response = _client(language="fr").get(reverse("games:replay", args=[finished.pk]))
    assert response.status_code == 200
    assert 'lang="fr"' in response.content.decode()


# --- the rules' refusals, said at the edge -------------------------------------------------------


def _queue_twice():
    state = rules.new_game(2, 7)
    tile = state.columns[0][0]
    try:
        ahead.check_queue(state, 1, [tile, tile])
    except rules.RuleError as error:
        return error, tile
    raise AssertionError("a tile queued twice was accepted")


def test_a_rule_error_keeps_its_english_message_and_its_template():
    error, tile = _queue_twice()
    name = ahead.tile_words(tile)
    assert error.message == f"The {name} is in your queue twice."
    assert error.template == "The %(tile)s is in your queue twice."
    assert error.params["tile"] == rules.tile_name(tile)
    assert error.to_json()["message"] == error.message
    assert str(error) == error.message


def test_from_rule_error_says_the_template_and_the_words_inside_through_gettext(monkeypatch):
    error, tile = _queue_twice()
    asked = []

    def gettext(message):
        """A stand-in catalogue: a template's words upper-cased, a tile's name joined by _."""
        asked.append(message)
        if "%" in message:
            return message.replace("queue", "QUEUE")
        return message.replace(" ", "_")

    monkeypatch.setattr(errors, "gettext", gettext)
    refused = ActionRefused.from_rule_error(error)
    colour, kind = rules.TILES[tile].colour.value, rules.TILES[tile].kind.value
    assert "The %(tile)s is in your queue twice." in asked  # the template
    assert f"{colour} {kind}" in asked  # and the tile's name, a word inside it
    assert refused.message == f"The {colour}_{kind} is in your QUEUE twice."
    assert (refused.code, refused.tile) == ("bad_queue", tile)


def test_from_rule_error_says_plurals_through_ngettext(monkeypatch):
    asked = []

    def ngettext(singular, plural, number):
        asked.append(number)
        return (singular if number == 1 else plural).replace("At this table", "AT THIS TABLE")

    monkeypatch.setattr(errors, "ngettext", ngettext)
    refused = ActionRefused.from_rule_error(_open_paths_error())
    assert asked == [2]
    assert refused.message == (
        "AT THIS TABLE you can finish only when every placed path is closed: paths are open at "
        "row 1, column 1 and row 1, column 2."
    )


def test_the_rules_own_open_paths_refusal_is_a_plural_said_at_the_edge(monkeypatch):
    """games/rules/state.py `_finish` at a strict table: the plural and the spaces' names."""
    state = to_finishing(rules.new_game(2, 11, strict_finish=True))
    found = None
    for tile in state.trays[0]:
        for space, rotation in rules.legal_spots(state.boards[0], tile):
            placed = state.apply(rules.Place(tile, space, rotation), 0)
            if rules.markers(placed.boards[0]).open_path:
                found = placed
                break
        if found:
            break
    assert found is not None
    with pytest.raises(rules.RuleError) as refusal:
        found.apply(rules.Finish(), 0)
    error = refusal.value
    assert error.code == "open_paths_on_board"
    assert error.words.plural is not None and error.words.number >= 1
    monkeypatch.setattr(errors, "gettext", lambda message: message.replace("row %(", "ROW %("))
    said = ActionRefused.from_rule_error(error).message
    assert said == error.message.replace("row", "ROW")  # the spaces' names said too


def _open_paths_error():
    from games.rules.i18n import and_words, ngettext_lazy

    where = and_words([rules.space_name(0), rules.space_name(1)])
    return rule_errors.OpenPathsOnBoard(
        ngettext_lazy(
            "At this table you can finish only when every placed path is closed: a path "
            "is open at %(where)s.",
            "At this table you can finish only when every placed path is closed: paths "
            "are open at %(where)s.",
            2,
            where=where,
        ),
        space=0,
    )


def test_a_refusal_is_said_in_the_readers_language_and_unchanged_in_english():
    error, _ = _queue_twice()
    with translation.override("es"):  # the template and the tile's name, both in Spanish
        spanish = ActionRefused.from_rule_error(error).message
    assert spanish != error.message and "loseta" in spanish and "cola" in spanish
    with translation.override("en-gb"):
        assert ActionRefused.from_rule_error(error).message == error.message
    open_paths = _open_paths_error()
    assert open_paths.message == (
        "At this table you can finish only when every placed path is closed: paths are open at "
        "row 1, column 1 and row 1, column 2."
    )
    assert ActionRefused.from_rule_error(open_paths).message == open_paths.message


def test_every_rule_error_default_message_is_its_template():
    for cls in rule_errors.ERRORS.values():
        error = cls()
        assert error.template == cls.default_message == error.message
