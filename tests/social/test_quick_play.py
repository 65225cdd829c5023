"""Quick play: players asking for the same kind of game, of a similar rating, are paired into a
game that starts at once; windows widen with waiting; blocked players are never paired; a
player may stop looking at any time."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Block
from games import tasks
from games.models import Game, QuickPlaySeek
from games.play import quickplay
from games.play.errors import ActionRefused
from tests.live.conftest import login as client_of

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def ask(user, *, players=2, time=DAY, rated=True, rating=None, waited=timedelta(0)):
    """A seek as if made `waited` ago, at `rating` (the player's own when None)."""
    seek = QuickPlaySeek.objects.create(
        user=user,
        player_count=players,
        time_per_move=time,
        rated=rated,
        rating=rating if rating is not None else 1000,
        created_at=timezone.now() - waited,
    )
    return seek


def test_two_players_asking_for_the_same_game_start_one_at_once(players, committed):
    ada, brian = players[0], players[1]
    assert (
        committed(quickplay.seek, user=ada, player_count=2, time_per_move=DAY, rated=True) is None
    )
    game = committed(quickplay.seek, user=brian, player_count=2, time_per_move=DAY, rated=True)

    assert game is not None and game.is_playing
    assert {seat.user_id for seat in game.seats.all()} == {ada.pk, brian.pk}
    assert (game.time_per_move, game.rated, game.player_count) == (DAY, True, 2)
    assert not QuickPlaySeek.objects.exists()
    # Both are told the game started, as for any game.
    assert set(game.events.filter(kind="joined").values_list("actor", flat=True)) == {brian.pk}


def test_only_seeks_of_the_same_kind_are_paired(players):
    ask(players[0], time=DAY)
    ask(players[1], time=timedelta(hours=12))
    ask(players[2], rated=False)
    ask(players[3], players=3)
    assert quickplay.pair_waiting() == []
    assert QuickPlaySeek.objects.count() == 4


def test_a_far_rating_waits_until_the_window_has_widened(players):
    now = timezone.now()
    near = ask(players[0], rating=1000)
    far = ask(players[1], rating=1300)
    assert list(quickplay.groups([near, far], now, set())) == []
    # Both waited 5 minutes: 100 + 5 x 50 = 350 points either way.
    later = now + timedelta(minutes=5)
    assert [[s.pk for s in group] for group in quickplay.groups([near, far], later, set())] == [
        [near.pk, far.pk]
    ]
    # After ANYONE_AFTER anyone at all.
    very_far = ask(players[2], rating=3000)
    anyone = very_far.created_at + quickplay.ANYONE_AFTER
    assert len(list(quickplay.groups([near, very_far], anyone, set()))) == 1


def test_the_oldest_seek_goes_first_with_the_closest_ratings(players):
    now = timezone.now()
    oldest = ask(players[0], rating=1000, waited=timedelta(minutes=1))
    close = ask(players[1], rating=1040)
    closer = ask(players[2], rating=1010)
    [group] = list(quickplay.groups([oldest, close, closer], now, set()))
    assert [seek.pk for seek in group] == [oldest.pk, closer.pk]


def test_a_table_of_three_needs_three_within_each_other_s_windows(players):
    seeks = [ask(players[n], players=3, rating=1000 + 40 * n) for n in range(3)]
    made = quickplay.pair_waiting()
    assert len(made) == 1 and made[0].seats.count() == 3 and made[0].is_playing
    assert {seek.user_id for seek in seeks} == {seat.user_id for seat in made[0].seats.all()}


def test_players_who_block_one_another_are_never_paired(players):
    ada, brian, chloe = players[0], players[1], players[2]
    Block.objects.create(blocker=brian, blocked=ada)
    ask(ada, waited=timedelta(hours=1))
    ask(brian, waited=timedelta(hours=1))
    assert quickplay.pair_waiting() == []
    ask(chloe)
    [game] = quickplay.pair_waiting()
    assert {seat.user_id for seat in game.seats.all()} == {ada.pk, chloe.pk}


def test_a_player_stops_looking_at_any_time_and_asks_again_in_one_seek(players):
    ada = players[0]
    lobby = client_of(ada)
    lobby.post(
        reverse("games:quick_play"),
        {"quick-player_count": 3, "quick-time_per_move": "1d", "quick-rated": "on"},
    )
    page = lobby.get(reverse("games:lobby")).content.decode()
    assert "Looking for a game: 3 players" in page and "Stop looking" in page
    lobby.post(reverse("games:quick_play"), {"quick-player_count": 2, "quick-time_per_move": "12h"})
    assert QuickPlaySeek.objects.get(user=ada).time_per_move == timedelta(hours=12)

    lobby.post(reverse("games:quick_play"), {"cancel": "1"})

    assert not QuickPlaySeek.objects.exists()
    assert "Find a game" in lobby.get(reverse("games:lobby")).content.decode()


def test_the_second_player_goes_straight_to_the_game(players):
    ask(players[0])
    response = client_of(players[1]).post(
        reverse("games:quick_play"),
        {"quick-player_count": 2, "quick-time_per_move": "1d", "quick-rated": "on"},
    )
    game = Game.objects.get(name="Quick play")
    assert response["Location"] == reverse("games:game", args=[game.pk])


def test_the_beat_task_pairs_what_fits_by_now_and_junk_is_refused(players):
    ask(players[0], rating=1000, waited=timedelta(minutes=30))
    ask(players[1], rating=2000, waited=timedelta(minutes=30))
    assert tasks.pair_quick_play() == 1
    with pytest.raises(ActionRefused):
        quickplay.seek(user=players[2], player_count=7, time_per_move=DAY, rated=True)
    with pytest.raises(ActionRefused):
        quickplay.seek(user=players[2], player_count=2, time_per_move=timedelta(0), rated=True)
    response = client_of(players[2]).post(reverse("games:quick_play"), {"quick-player_count": "x"})
    assert response.status_code == 302 and not QuickPlaySeek.objects.exists()
