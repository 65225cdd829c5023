"""The expert computer player on the site: seated from the New game form, playing every turn
through the bot_move task with the engine's search (small budgets: tests/conftest.py), to the
end of the game."""

import pytest
from django.conf import settings
from django.urls import reverse

from games.bots import turns
from games.models import Event, Game
from games.play import actions
from games.play.errors import ActionRefused
from games.play.forms import CreateGameForm
from games.rules.actions import action_from_json
from games.rules.bots import EasyBot, ExpertBot
from tests.bots.conftest import DAY
from tests.games.playing import current_state


def test_the_expert_level_plays_the_engine_s_search_with_the_platform_s_budgets():
    expert = turns.strategy("expert")
    assert isinstance(expert, ExpertBot)
    assert expert.iterations == settings.BOT_EXPERT_OPTIONS["iterations"]
    assert expert.finish_time == settings.BOT_STRONG_OPTIONS["finish_time"]
    # The platform's own budgets (not the tests'): the engine's, capped well inside the task.
    assert turns.EXPERT_OPTIONS["iterations"] == ExpertBot.iterations
    assert turns.EXPERT_OPTIONS["time_cap"] * turns.MAX_PLANS < 50  # bot_move's soft limit


def form(**fields):
    base = {"player_count": 2, "time_per_move": "1d", "access": "open", "rated": "on"}
    return CreateGameForm({**base, **fields})


def test_the_form_seats_every_level_and_counts_them_together():
    made = form(player_count=4, easy_bots=1, strong_bots=1, expert_bots=1)
    assert made.is_valid(), made.errors
    assert made.cleaned_data["bots"] == ("easy", "strong", "expert")
    crowded = form(player_count=3, strong_bots=1, expert_bots=2)
    assert not crowded.is_valid()
    assert crowded.errors.as_data()["__all__"][0].code == "bots"
    unknown = form(expert_bots=9)
    assert not unknown.is_valid() and "expert_bots" in unknown.errors


def test_a_level_there_is_not_is_refused_by_the_table(players):
    with pytest.raises(ActionRefused) as refused:
        actions.create_game(
            creator=players[0], player_count=2, time_per_move=DAY, bots=("grandmaster",)
        )
    assert refused.value.code == "bots"
    assert "no such computer player" in refused.value.message
    assert not Game.objects.exists()


def test_the_expert_drafts_what_the_engine_chooses(players, bot, lost_tasks):
    """Through the task's code path, the draft made is the engine's choice for that state
    (the search is deterministic for its budget and seed)."""
    lost_tasks("games.bot_move")  # we run the expert's turn ourselves, once
    game = actions.create_game(
        creator=players[0], player_count=2, time_per_move=DAY, bots=("expert",)
    )
    game.refresh_from_db()
    expert = bot("expert")
    assert expert.username == "ExpertBot"
    seat = game.seats.get(user=expert).number
    while game.current_seat != seat:
        for action in EasyBot().next_actions(current_state(game), 1 - seat):
            actions.play(game_id=game.pk, user=players[0], action=action, seen_version=None)
        game.refresh_from_db()
    before = current_state(game)
    chosen = turns.strategy("expert").choose_draft(before, seat)
    assert turns.play_bot_turn(game_id=game.pk, bot_id=expert.pk) >= 2
    draft = Event.objects.filter(game=game, actor=expert, kind="draft").get()
    assert action_from_json(draft.action) == chosen
    game.refresh_from_db()
    assert game.current_seat != seat  # it confirmed: the turn passed


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_game_against_an_expert_from_the_form_plays_to_the_end(client, players, bot, settings):
    """The human plays through the site's actions; the expert answers every turn through its
    eager bot_move tasks, and finishes with the solver's best board."""
    # The final arrangement's search stops as soon as it proves its board the best; its limit is
    # wall-clock, so the suite's 0.2 s (tests/bots/conftest.py) can run out on a loaded machine
    # (a CI run finished 40 where 44 was possible). Here the limit only bounds a slow proof.
    settings.BOT_STRONG_OPTIONS = {**settings.BOT_STRONG_OPTIONS, "finish_time": 10.0}
    client.force_login(players[0])
    response = client.post(
        reverse("games:create"),
        {"name": "Against the expert", "player_count": 2, "time_per_move": "1d",
         "rated": "on", "access": "open", "expert_bots": 1},
    )  # fmt: skip
    assert response.status_code == 302
    game = Game.objects.get(name="Against the expert")
    assert game.status == Game.Status.PLAYING  # the expert sat down at once
    mine = game.seats.get(user=players[0]).number
    moves = 0
    while game.status != Game.Status.ENDED:
        plan = EasyBot().next_actions(current_state(game), mine)
        assert plan, "the game waits, but not for the human"
        actions.play(game_id=game.pk, user=players[0], action=plan[0], seen_version=None)
        game.refresh_from_db()
        moves += 1
        assert moves < 500
    expert = bot("expert")
    seat = game.seats.get(user=expert)
    assert seat.best_score is not None and seat.score == seat.best_score
    made = Event.objects.filter(game=game, actor=expert, cause=Event.Cause.PLAYER)
    assert made.filter(kind="draft").count() >= 10
    assert made.filter(kind="finish").count() == 1
    page = client.get(reverse("games:game", args=[game.pk])).content.decode()
    assert "ExpertBot" in page and "computer player (expert)" in page
