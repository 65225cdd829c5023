"""The guided first game: a deal where every step can happen early, and a guide whose steps
are ticked by the game's real state, whichever way the player did them."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import rules
from games.first_visit import tutorial
from games.first_visit.models import Guide
from games.first_visit.views import guide_context
from games.history.integrity import check_games
from games.history.replay import rebuild_state
from games.models import Game
from games.play import actions
from games.rules.greedy import choose_draft
from games.rules.tiles import TILES, Kind
from games.state_store import load_state, read_game

# Committed: the computer player's moves run at the commit, as on the site.
pytestmark = pytest.mark.django_db(transaction=True)


def beside(colours) -> set:
    """The pairs of colours side by side (or one above the other) on a board."""
    pairs = set()
    for space in range(25):
        for other in (space + 1, space + 5):
            if other < 25 and (other != space + 1 or space % 5 < 4):
                pairs |= {(colours[space], colours[other]), (colours[other], colours[space])}
    return pairs


def test_the_short_deal_puts_the_newcomer_first_with_ends_to_close_a_chip_whatever_they_take():
    assert rules.seat_order(2, tutorial.TUTORIAL_SEED) == (0, 1)
    state = rules.new_game(2, tutorial.TUTORIAL_SEED, layout=tutorial.TUTORIAL_LAYOUT)
    assert len(state.columns) == 4 and rules.drafts_per_player(2, state.layout) == 8
    ends = [tile for tile in state.draw_tiles() if TILES[tile].kind == Kind.END]
    pairs = beside(state.boards[0].colours)
    for first in ends:
        # Two others fit beside it: whichever one the computer takes, one is left.
        fitting = [
            tile for tile in ends
            if tile != first and (TILES[first].colour, TILES[tile].colour) in pairs
        ]  # fmt: skip
        assert len(fitting) >= 2, first


def start_guided(client):
    response = client.post(reverse("first_visit:learn"))
    assert response.status_code == 302
    return Game.objects.get(pk=int(re.fullmatch(r"/games/(\d+)/", response.url).group(1)))


def step_now(client, game):
    html = client.get(reverse("first_visit:guide", args=[game.pk])).content.decode()
    return re.search(r'class="guide-count">[^<]*step (\d+) of 8', html), html


def play(guest, game, action):
    game.refresh_from_db()
    actions.play(game_id=game.pk, user=guest, action=action, seen_version=game.version)


def state_of(game):
    game, seats = read_game(game.pk)
    return load_state(game, seats)


def test_each_step_waits_for_the_player_to_do_it():
    client = Client()
    game = start_guided(client)
    guest = User.objects.get(is_guest=True)
    assert game.seed == tutorial.TUTORIAL_SEED and game.is_playing
    assert game.layout == rules.SHORT and not game.rated
    started = game.events.get(kind="started").data
    assert started["layout"] == rules.SHORT
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert 'id="guide"' in page and "Take a tile" in page
    assert 'data-point="#pool .draw-column"' in page

    def current():
        found = Guide.objects.get(game=game)
        return guide_context(found)["progress"]

    assert current().step.key == "take"
    state = state_of(game)
    colours = state.boards[0].colours
    first = next(tile for tile in state.draw_tiles() if TILES[tile].kind == Kind.END)
    play(guest, game, {"type": "draft", "tile_id": first})
    assert current().step.key == "confirm"
    play(guest, game, {"type": "confirm_draft"})  # the computer moves at the commit
    # A second end left by the computer, whose colour is beside the first's on the board.
    left = [tile for tile in state_of(game).draw_tiles() if TILES[tile].kind == Kind.END]
    second, here, there = next(
        (b, s, n)
        for b in left
        for s in range(25)
        for n in (s + 1, s + 5)
        if n < 25
        and (n != s + 1 or s % 5 < 4)
        and colours[s] == TILES[first].colour
        and colours[n] == TILES[b].colour
    )
    assert current().step.key == "place"
    wrong = next(s for s in range(25) if colours[s] != TILES[first].colour)
    play(guest, game, {"type": "place", "tile_id": first, "space": wrong, "rotation": 0})
    assert current().step.key == "place"  # on another colour: not yet
    play(guest, game, {"type": "return", "space": wrong})
    play(guest, game, {"type": "place", "tile_id": first, "space": here, "rotation": 0})
    assert current().step.key == "turn"
    # Face the second end's space: east (a quarter turn) or south (two).
    play(
        guest,
        game,
        {"type": "rotate", "space": here, "quarter_turns": 1 if there == here + 1 else 2},
    )
    progress = current()
    assert progress.step.key == "join" and progress.done == ("take", "confirm", "place", "turn")
    play(guest, game, {"type": "draft", "tile_id": second})
    play(guest, game, {"type": "confirm_draft"})
    facing = 3 if there == here + 1 else 0  # west (three quarter turns) or north
    play(guest, game, {"type": "place", "tile_id": second, "space": there, "rotation": facing})
    progress = current()
    assert progress.step.key == "score", progress  # joined and closed at once
    assert state_of(game).score(0).chip_value == 2  # the rules' example: two ends, 2 points
    client.post(reverse("first_visit:guide_step", args=[game.pk]), {"do": "score_seen"})
    assert current().step.key == "finish"
    number, html = step_now(client, game)
    assert number.group(1) == "8" and "Play on and finish" in html


def test_the_guide_can_be_skipped_shown_again_and_started_again():
    client = Client()
    game = start_guided(client)
    client.post(reverse("first_visit:guide_step", args=[game.pk]), {"do": "skip"})
    html = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "Show the guide again" in html and "data-point" not in html
    client.post(reverse("first_visit:guide_step", args=[game.pk]), {"do": "resume"})
    assert "Take a tile" in client.get(reverse("games:game", args=[game.pk])).content.decode()
    again = start_guided(client)
    assert again.pk != game.pk and Guide.objects.filter(game=again).exists()


def test_someone_else_s_guide_is_not_found(make_player):
    client = Client()
    game = start_guided(client)
    other = Client()
    other.force_login(make_player("ada"))
    assert other.get(reverse("first_visit:guide", args=[game.pk])).status_code == 404
    response = other.post(reverse("first_visit:guide_step", args=[game.pk]), {"do": "skip"})
    assert response.status_code == 404


def test_a_guest_is_offered_the_guided_game_until_they_say_no():
    client = Client()
    response = client.post(reverse("first_visit:play_now"))
    page = client.get(response.url).content.decode()
    assert "Start the guided game" in page
    client.post(reverse("first_visit:no_guide"), {"next": "https://elsewhere.example/"})
    page = client.get(response.url).content.decode()
    assert "Start the guided game" not in page


def test_the_help_shows_the_tiles_the_structures_and_the_guided_game():
    client = Client()
    game = start_guided(client)
    html = client.get(reverse("games:game", args=[game.pk])).content.decode()
    help_part = html.split('id="rules-help"')[1]
    assert "Closed: 2 points" in help_part and "Open: no chip" in help_part
    assert "2 - 6 = -4" in help_part
    assert "Learn by playing: a guided game" in help_part


def test_a_new_player_s_dashboard_offers_the_guided_game(make_player):
    client = Client()
    client.force_login(make_player("ada"))
    assert "Start the guided game" in client.get(reverse("dashboard")).content.decode()
    client.post(reverse("first_visit:no_guide"), {"next": reverse("dashboard")})
    assert "Start the guided game" not in client.get(reverse("dashboard")).content.decode()


def test_a_whole_guided_game_ends_on_the_short_deal_and_its_history_rebuilds_it():
    client = Client()
    game = start_guided(client)
    guest = User.objects.get(is_guest=True)
    for _ in range(60):  # 8 drafts each: far fewer turns than this
        game.refresh_from_db()
        if not game.is_playing:
            break
        state = state_of(game)
        if state.phase == rules.DRAFTING and state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)  # the server's forced take
        elif state.phase == rules.DRAFTING:
            assert state.current == 0, "the computer did not move at the commit"
            play(guest, game, {"type": "draft", "tile_id": choose_draft(state, 0).tile_id})
            play(guest, game, {"type": "confirm_draft"})
        else:
            assert not state.finished[0], "the computer did not finish at the commit"
            play(guest, game, {"type": "finish"})  # the tiles stay in the tray: allowed
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED and game.drafts == 16 and not game.rated
    # Every reader of the past deals the same short pool from what the start records.
    assert rebuild_state(game) == state_of(game)
    checked = check_games()
    assert checked.count == 1 and not checked.mismatches
    page = client.get(reverse("games:replay", args=[game.pk]))
    assert page.status_code == 200
    assert "Turn 16 · " in page.content.decode() and "Turn 17 · " not in page.content.decode()
    # A row changed behind the log's back is found: the deal's layout too.
    Game.objects.filter(pk=game.pk).update(layout=rules.STANDARD)
    assert check_games().mismatches
