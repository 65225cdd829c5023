"""Reading a game: the prepared selects of games/state_store.py make what the ORM would."""

import pytest

from games import rules
from games.models import Event, Game, Seat
from games.move_log import events_after
from games.play import actions
from games.play.errors import ActionRefused
from games.state_store import read_game

from .playing import next_move

pytestmark = pytest.mark.django_db


def values(instance) -> dict:
    return {
        field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields
    }


def test_read_game_makes_the_instances_the_orm_makes(start_game):
    game = start_game(3)
    for _ in range(4):  # a draft, its placement...: boards, trays and a pending draft
        seat, action = next_move(game)
        user = game.seats.get(number=seat).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)

    read, seats = read_game(game.pk)

    expected = list(
        Seat.objects.filter(game=game).select_related("game__created_by", "user").order_by("number")
    )
    assert [values(seat) for seat in seats] == [values(seat) for seat in expected]
    assert [values(seat.user) for seat in seats] == [values(seat.user) for seat in expected]
    assert values(read) == values(expected[0].game)
    assert values(read.created_by) == values(expected[0].game.created_by)
    assert all(seat.game is read for seat in seats)
    # The fields' own conversions: JSON, durations, aware times.
    assert isinstance(read.pool["columns"], list) and isinstance(seats[0].board, list)
    assert read.time_per_move == game.time_per_move
    assert read.started_at.tzinfo is not None


@pytest.mark.parametrize("game_id", [987654, 10**30, -1])
def test_no_such_game_is_no_such_game(db, game_id):
    with pytest.raises(Game.DoesNotExist):
        read_game(game_id)


@pytest.mark.parametrize("game_id", [987654, 10**30, "12x", None])
def test_a_move_in_no_such_game_is_refused(players, game_id):
    with pytest.raises(ActionRefused) as refused:
        actions.play(game_id=game_id, user=players[0], action=rules.Clear(), seen_version=None)
    assert refused.value.code == "no_such_game"


def test_the_logs_events_are_the_ones_the_orm_reads(start_game, django_assert_num_queries):
    """The move log reads the events after its copy's version with a select of its own
    (games/move_log.py `events_after`): the same events, in order, with their actors, the
    server's (no actor) among them."""
    game = start_game(3)
    for _ in range(4):
        seat, action = next_move(game)
        user = game.seats.get(number=seat).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    game.refresh_from_db()

    for after in (-1, 2, game.version - 1, game.version):
        with django_assert_num_queries(1):  # the actors come with their events
            events = events_after(game.pk, after)
            actors = [event.actor for event in events]
        expected = list(
            Event.objects.filter(game=game, number__gt=after)
            .select_related("actor")
            .order_by("number")
        )
        assert [values(event) for event in events] == [values(event) for event in expected]
        assert [actor and values(actor) for actor in actors] == [
            event.actor and values(event.actor) for event in expected
        ]
    everything = events_after(game.pk, -1)
    assert {event.actor_id is None for event in everything} == {True, False}
    assert isinstance(everything[-1].action, dict) and everything[-1].created_at.tzinfo
    assert events_after(game.pk, game.version) == []
    assert events_after(987654, -1) == []
