"""Bots play through the same actions and tasks as people: whole games, eager tasks."""

import pytest
from django.urls import reverse

from games import tasks
from games.models import Event, Game
from games.play import actions
from games.rules.bots import EasyBot
from infra.models import OutboxEmail
from tests.bots.conftest import DAY
from tests.games.playing import current_state, next_move


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_game_of_bots_alone_plays_to_the_end_through_the_tasks(bot):
    """The creator is a bot too: every seat is a bot, every move a bot_move task."""
    creator = bot("easy", 1)
    game = actions.create_game(
        creator=creator, player_count=3, time_per_move=DAY, bots=("strong", "easy")
    )
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    seats = list(game.seats.select_related("user").order_by("number"))
    assert all(seat.user.bot_level for seat in seats)
    assert sorted(seat.place for seat in seats)[0] == 1
    # Every rules event was made by a bot (or the server's forced take), none by a shortcut.
    moves = Event.objects.filter(game=game, action__isnull=False)
    assert moves.filter(kind="finish").count() == 3
    assert not moves.filter(cause__in=[Event.Cause.TIMEOUT, Event.Cause.DEADLINE]).exists()
    player_moves = moves.filter(cause=Event.Cause.PLAYER)
    assert set(player_moves.values_list("actor__bot_level", flat=True)) == {"easy", "strong"}
    # The post-game analysis was stored when it ended, and it is never worse than the result.
    for seat in seats:
        assert seat.best_score is not None and seat.best_score >= seat.score
        assert len(seat.best_board) == 25
    assert Event.objects.filter(game=game, kind="analysed").count() == 1


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_solo_game_against_two_bots_plays_through_the_http_endpoints(client, players, bot):
    human = players[0]
    client.force_login(human)
    response = client.post(
        reverse("games:create"),
        {
            "name": "Me against the machines",
            "player_count": 3,
            "time_per_move": "1d",
            "rated": "on",
            "access": "open",
            "easy_bots": 1,
            "strong_bots": 1,
        },
    )
    game = Game.objects.get(name="Me against the machines")
    assert response.status_code == 302
    assert game.status == Game.Status.PLAYING  # every seat was filled at creation
    my_seat = game.seats.get(user=human)
    posts = 0
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.ENDED:
            break
        state = current_state(game)
        plan = EasyBot().next_actions(state, my_seat.number)
        # Whenever the game waits, it waits for the human: the bots answered through their tasks.
        assert plan, f"the game waits, but not for the human: {state.to_json()}"
        action = plan[0]
        data = {**action.to_json(), "version": game.version}
        response = client.post(reverse("games:act", args=[game.pk]), data, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.content[:300]
        posts += 1
        assert posts < 500
    page = client.get(reverse("games:game", args=[game.pk]))
    html = page.content.decode()
    assert "Results" in html and "Best possible chips" in html
    assert html.count('class="bot-badge"') >= 2
    for seat in game.seats.all():
        assert seat.best_score is not None
        assert f"best possible <strong>{seat.best_score}</strong>" in html
    # The game was rated for the bots as for the human.
    assert game.rating_changes.count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_lost_bot_task_is_made_up_by_the_sweep(players, bot, settings, lost_tasks):
    """With no task queued after the start, the sweep notices the bot's turn and plays it."""
    from datetime import timedelta

    from django.utils import timezone

    from games.play import clock

    lost_tasks("games.bot_move")  # the changes' tasks are lost; the sweep's are not
    game = actions.create_game(
        creator=players[0], player_count=2, time_per_move=DAY, bots=("easy",)
    )
    game.refresh_from_db()
    seats = {seat.user_id: seat.number for seat in game.seats.all()}
    bot_seat = seats[bot("easy").pk]
    if game.current_seat != bot_seat:  # let the human draft first
        seat, action = next_move(game)
        while seat != bot_seat and game.current_seat != bot_seat:
            actions.play(game_id=game.pk, user=players[0], action=action, seen_version=None)
            game.refresh_from_db()
            seat, action = next_move(game)
    game.refresh_from_db()
    assert game.current_seat == bot_seat
    version = game.version
    assert tasks.sweep()["bots"] == 0  # not yet: a bot gets a grace period
    settings.BOT_SWEEP_GRACE = timedelta(seconds=0)
    game.turn_started_at = timezone.now() - timedelta(seconds=1)
    game.save(update_fields=["turn_started_at"])
    assert clock.stalled_bots(timezone.now(), 10) == [(game.pk, bot("easy").pk, version, bot_seat)]
    assert tasks.sweep()["bots"] == 1
    game.refresh_from_db()
    assert game.current_seat != bot_seat and game.version > version


@pytest.mark.django_db(transaction=True)
def test_a_bot_task_that_runs_twice_or_late_does_only_what_is_still_due(players, bot, lost_tasks):
    from games.bots import turns as bots

    lost_tasks("games.bot_move")  # we run the bot's turns ourselves
    game = actions.create_game(
        creator=players[0], player_count=2, time_per_move=DAY, bots=("strong",)
    )
    game.refresh_from_db()
    strong = bot("strong")
    bot_seat = game.seats.get(user=strong).number
    while game.current_seat != bot_seat:
        state = current_state(game)
        for action in EasyBot().next_actions(state, 1 - bot_seat):
            actions.play(game_id=game.pk, user=players[0], action=action, seen_version=None)
        game.refresh_from_db()
    stale = game.version - 1
    assert bots.play_bot_turn(game_id=game.pk, bot_id=strong.pk, version=stale) >= 2
    game.refresh_from_db()
    assert game.current_seat != bot_seat
    moved = game.version
    assert bots.play_bot_turn(game_id=game.pk, bot_id=strong.pk, version=stale) == 0
    tasks.bot_move.delay(game.pk, strong.pk, stale)
    game.refresh_from_db()
    assert game.version == moved  # nothing was due: nothing happened


def test_bots_cannot_be_invited_by_name(players, bot):
    from games.play.errors import ActionRefused

    name = bot("strong").username.lower()
    game = actions.create_game(creator=players[0], player_count=3, time_per_move=DAY)
    with pytest.raises(ActionRefused) as refused:
        actions.invite_player(game_id=game.pk, inviter=players[0], username=name)
    assert refused.value.code == "bot"


@pytest.mark.django_db(transaction=True)
def test_no_email_is_written_for_a_bot_and_the_bots_still_move(players, lost_tasks):
    """A bot has no email address: the notices of its turns write no email (it would certainly
    be dropped), while the bot is woken from what the move itself knows."""
    lost_tasks("infra.send_email")
    human = players[0]
    game = actions.create_game(creator=human, player_count=3, time_per_move=DAY, bots=("easy",) * 2)
    game.refresh_from_db()
    mine = game.seats.get(user=human).number
    for _ in range(3):  # the human's turns: each time the bots play theirs in between
        assert current_state(game).current == mine, "the game waits for a bot"
        for action in EasyBot().next_actions(current_state(game), game.current_seat):
            actions.play(game_id=game.pk, user=human, action=action, seen_version=None)
        game.refresh_from_db()

    bots = set(game.seats.exclude(user=human).values_list("user_id", flat=True))
    assert game.events.filter(kind="confirm_draft", actor__in=bots).count() >= 4
    recipients = OutboxEmail.objects.filter(game_id=game.pk).values_list("user_id", flat=True)
    assert recipients and set(recipients) == {human.pk}
