"""Bots marked in every list, the create form, the timeout pick, and the post-game analysis."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import tasks
from games.history import analysis
from games.history import archive as history
from games.models import Event, Game
from games.play import actions
from games.rules.bots import EasyBot
from tests.bots.conftest import DAY
from tests.games.playing import current_state

BADGE = 'class="bot-badge"'


def _bot_game(bot, levels=("easy",), creator_level="easy", rated=True):
    """A game of bots alone, played to the end by their tasks (eager)."""
    game = actions.create_game(
        creator=bot(creator_level), player_count=1 + len(levels), time_per_move=DAY,
        bots=levels, rated=rated,
    )  # fmt: skip
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    return game


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bots_are_marked_in_every_list(client, players, bot, settings, monkeypatch):
    monkeypatch.setattr(history, "LEADERBOARD_MIN_GAMES", 1)
    finished = _bot_game(bot, ("strong",))
    human = players[0]
    client.force_login(human)
    waiting = actions.create_game(
        creator=human, player_count=3, time_per_move=DAY, bots=("strong",)
    )
    assert waiting.status == Game.Status.WAITING  # one seat is still free for a person
    pages = {
        "lobby": reverse("games:lobby"),
        "waiting room": reverse("games:game", args=[waiting.pk]),
        "dashboard": reverse("dashboard"),
        "finished game and results": reverse("games:game", args=[finished.pk]),
        "replay": reverse("games:replay", args=[finished.pk]),
        "leaderboard": reverse("leaderboard"),
        "profile": reverse("players:profile", args=["StrongBot"]),
        "archive": reverse("archive", args=["StrongBot"]),
    }
    for name, url in pages.items():
        html = client.get(url).content.decode()
        assert BADGE in html, f"no bot badge on the {name}"
    # A person's name gets no badge.
    profile = client.get(reverse("players:profile", args=[human.username])).content.decode()
    assert BADGE not in profile


@pytest.mark.django_db(transaction=True)
def test_a_solo_game_starts_at_once_from_the_form(client, players):
    client.force_login(players[0])
    response = client.post(
        reverse("games:create"),
        {"player_count": 2, "time_per_move": "1d", "access": "open", "strong_bots": 1,
         "easy_bots": 0},
    )  # fmt: skip
    game = Game.objects.get(created_by=players[0])
    assert response.status_code == 302
    assert game.status == Game.Status.PLAYING
    levels = sorted(str(seat.user.bot_level) for seat in game.seats.select_related("user"))
    assert levels == ["None", "strong"]
    # Whoever was drawn to start, the game now waits for the human.
    assert EasyBot().next_actions(current_state(game), game.seats.get(user=players[0]).number)


def test_the_form_leaves_a_seat_for_its_creator(client, players):
    client.force_login(players[0])
    response = client.post(
        reverse("games:create"),
        {"player_count": 3, "time_per_move": "1d", "access": "open", "strong_bots": 2,
         "easy_bots": 1},
    )  # fmt: skip
    assert response.status_code == 200
    assert "room for at most 2 computer players" in response.content.decode()
    assert not Game.objects.exists()


def test_an_invitation_only_table_seats_its_bots_too(
    players, bot, django_capture_on_commit_callbacks
):
    game = actions.create_game(
        creator=players[0], player_count=3, time_per_move=DAY, bots=("easy", "easy"),
        access=Game.Access.INVITATION,
    )  # fmt: skip
    names = set(game.seats.values_list("user__username", flat=True))
    assert names == {players[0].username, "EasyBot", "EasyBot2"}  # one account per seat


def test_the_timeout_pick_is_the_easy_bots_draft(start_game, players):
    game = start_game(3)
    state = current_state(game)
    expected = EasyBot().choose_draft(state, state.current)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    actions.time_out_turn(game_id=game.pk, expected_version=None)
    draft = Event.objects.get(game=game, kind="draft", cause=Event.Cause.TIMEOUT)
    assert draft.action == expected.to_json()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_analysis_is_stored_once_and_shown_on_the_results_and_replay(client, bot):
    game = _bot_game(bot, ("strong", "easy"))
    seats = list(game.seats.order_by("number"))
    for seat in seats:
        assert seat.best_score >= seat.score
        assert isinstance(seat.best_optimal, bool)
        owned = {*seat.tray, *(cell[0] for cell in seat.board if cell)}
        assert {cell[0] for cell in seat.best_board if cell} <= owned
    version = game.version
    # Running it again (the sweep, a retried task) changes nothing.
    assert analysis.best_arrangements(game_id=game.pk) is None
    tasks.analyse_game.delay(game.pk)
    game.refresh_from_db()
    assert game.version == version
    for url in (reverse("games:game", args=[game.pk]), reverse("games:replay", args=[game.pk])):
        html = client.get(url).content.decode()
        assert "Best possible chips" in html
        for seat in seats:
            assert f"best possible <strong>{seat.best_score}</strong>" in html
            assert f"built <strong>{seat.score}</strong>" in html


@pytest.mark.django_db(transaction=True)
def test_the_sweep_analyses_a_game_whose_task_was_lost(bot, lost_tasks, client):
    lost_tasks("games.analyse_game")
    game = _bot_game(bot)
    assert not game.seats.filter(best_score__isnull=False).exists()
    html = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "being worked out" in html
    assert tasks.sweep()["analyses"] == 0  # it has just ended: the task may still come
    Game.objects.filter(pk=game.pk).update(ended_at=timezone.now() - timedelta(minutes=10))
    assert tasks.sweep()["analyses"] == 1
    assert not game.seats.filter(best_score__isnull=True).exists()
