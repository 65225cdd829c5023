"""`manage.py check_games`: every game's rows against its event log, and what it says when one
was changed behind the log's back (the check to run after restoring a backup)."""

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from games.history.integrity import check_games
from games.models import Event, Game, RatingChange, Seat

from .games import games_of_every_kind

pytestmark = pytest.mark.django_db


def check(*args) -> tuple[bool, str]:
    """Run the command: (whether it passed, what it printed and its error)."""
    out = io.StringIO()
    try:
        call_command("check_games", *args, stdout=out)
    except CommandError as error:
        return False, f"{out.getvalue()}{error}"
    return True, out.getvalue()


@pytest.fixture
def games(start_game, players):
    return games_of_every_kind(start_game, players)


def test_every_kind_of_game_is_what_its_event_log_replays_to(games, django_assert_max_num_queries):
    # Read in batches, not game by game: a batch's games, their seats, their events, the rating
    # changes of the rated ended ones; then the empty batch that ends the loop.
    with django_assert_max_num_queries(5):
        checked = check_games(batch=10)
    assert checked.count == 4 and not checked.mismatches

    passed, output = check()

    assert passed, output
    assert re.fullmatch(
        rf"4 games \(1 cancelled, 1 ended, 1 playing, 1 waiting\) and {Event.objects.count()} "
        r"events checked in [\d.]+ s: every game is what its event log replays to\.\n",
        output,
    ), output


def rotate_a_placed_tile(games):
    seat = Seat.objects.get(game=games["ended"], number=1)
    space = next(n for n, cell in enumerate(seat.board) if cell is not None)
    seat.board[space] = [seat.board[space][0], (seat.board[space][1] + 1) % 4]
    seat.save(update_fields=["board"])
    return games["ended"], "seat 1's board is not what the event log replays to"


def lose_the_last_event(games):
    game = games["playing"]
    Event.objects.filter(game=game, number=game.version).delete()
    return game, f"its version is {game.version} but its event log holds {game.version - 1} " \
        f"events (missing [{game.version}])"  # fmt: skip


def change_a_score(games):
    Seat.objects.filter(game=games["ended"], number=0).update(score=99)
    return games["ended"], "seat 0's result (99, "


def pass_the_turn(games):
    game = games["playing"]
    Game.objects.filter(pk=game.pk).update(current_seat=(game.current_seat + 1) % 3)
    return game, "its turn is not what its event log replays to"


def draft_another_tile(games):
    game = games["playing"]
    event = Event.objects.filter(game=game, kind="draft").order_by("number").first()
    event.action = {**event.action, "tile_id": 999}
    event.save(update_fields=["action"])
    return game, f"event {event.number} (draft by seat {event.seat}) is not allowed"


def lose_the_deals_seed(games):
    game = games["ended"]
    event = Event.objects.get(game=game, kind="started")
    event.data = {key: value for key, value in event.data.items() if key != "seed"}
    event.save(update_fields=["data"])
    return game, "its start event cannot deal the game ('seed')"


def bring_back_a_resigned_player(games):
    Seat.objects.filter(game=games["playing"], number=2).update(left="", left_turn=None)
    return games["playing"], "seat 2's leaving (resigned, abandoned or expelled) is not what"


def lose_a_rating_change(games):
    RatingChange.objects.filter(game=games["ended"]).first().delete()
    return games["ended"], "it is rated and ended but has 1 rating changes, not 2"


def reopen_an_ended_game(games):
    Game.objects.filter(pk=games["ended"].pk).update(status=Game.Status.PLAYING)
    return games["ended"], "it is playing but its event log has ended it"


TAMPERS = [
    rotate_a_placed_tile,
    lose_the_last_event,
    change_a_score,
    pass_the_turn,
    draft_another_tile,
    lose_the_deals_seed,
    bring_back_a_resigned_player,
    lose_a_rating_change,
    reopen_an_ended_game,
]


def test_a_row_changed_without_an_event_is_found_and_the_command_fails(games):
    for tamper in TAMPERS:  # each on the games as they were (one deal of games for them all)
        with transaction.atomic():
            game, said = tamper(games)

            passed, output = check()

            assert not passed, tamper.__name__
            assert f"game {game.pk}: {said}" in output, (tamper.__name__, output)
            assert output.endswith("1 do not match their event log (above)."), output
            others = [other for other in games.values() if other != game]
            assert all(f"game {other.pk}:" not in output for other in others), output

            # Only the games asked for are checked; read in batches of any size.
            passed, output = check("--game", str(games["waiting"].pk), "--batch", "1")
            assert passed and output.startswith("1 games (1 waiting) and "), output
            one_by_one = check_games(batch=1)
            assert [mismatch.game_id for mismatch in one_by_one.mismatches] == [game.pk] * len(
                one_by_one.mismatches
            )
            transaction.set_rollback(True)
