"""Two requests racing on one game: exactly one wins, the other is told the game moved on."""

import threading

import pytest
from django.db import connection

from games import rules
from games.play import actions
from games.play.errors import ActionRefused

from .playing import current_state

pytestmark = pytest.mark.django_db(transaction=True)


def race(*calls):
    """Run the calls at the same moment in threads; return what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    outcomes = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as error:  # the outcome under test
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def test_two_drafts_of_the_same_tile_one_wins_and_one_is_refused(start_game):
    game = start_game(2)
    me = game.seats.get(number=0).user
    tile = current_state(game).draw_tiles()[0]

    def draft():
        return actions.play(
            game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=game.version
        )

    outcomes = race(draft, draft)

    refused = [outcome for outcome in outcomes if isinstance(outcome, ActionRefused)]
    accepted = [outcome for outcome in outcomes if isinstance(outcome, actions.Played)]
    assert len(accepted) == 1, outcomes
    assert len(refused) == 1, outcomes
    assert refused[0].code == "stale"
    state = current_state(game)
    assert state.trays[0] == (tile,)
    assert game.events.filter(kind="draft").count() == 1


def test_two_tabs_drafting_different_tiles_take_only_one(start_game):
    game = start_game(3)
    me = game.seats.get(number=0).user
    first, second = current_state(game).draw_tiles()[:2]

    outcomes = race(
        lambda: actions.play(
            game_id=game.pk, user=me, action=rules.Draft(first), seen_version=game.version
        ),
        lambda: actions.play(
            game_id=game.pk, user=me, action=rules.Draft(second), seen_version=game.version
        ),
    )

    assert sum(isinstance(outcome, actions.Played) for outcome in outcomes) == 1, outcomes
    assert len(current_state(game).trays[0]) == 1
    game.refresh_from_db()
    assert list(game.events.values_list("number", flat=True)) == list(range(1, game.version + 1))
