"""Live events are data: a change records `effects.push(group, event)`, and one dispatcher sends
them after the commit, in the order recorded, before the change's tasks (games/effects.py)."""

import pytest

from games import effects
from games.live import pushes
from games.live.changes import game_group, user_group
from games.play import actions
from games.play.applying import changing
from tests.games.playing import next_move

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """What the live layer was handed, batch by batch, and the tasks queued, in one timeline."""
    timeline = []
    monkeypatch.setattr(pushes, "send", lambda messages: timeline.append(messages) or True)
    monkeypatch.setattr(effects.Task, "queue", lambda task: timeline.append(task))
    return timeline


def test_a_new_kind_of_event_is_one_push_and_leaves_after_the_commit_before_the_tasks(
    start_game, sent, django_capture_on_commit_callbacks
):
    game = start_game(2)
    sent.clear()  # the table filling up
    event = {"type": "game.something_new", "game": game.pk, "said": [1, 2]}
    with django_capture_on_commit_callbacks(execute=True), changing(game.pk) as table:
        table.effects.push(game_group(game.pk), event)
        table.effects.push(user_group(7), {"type": "user.notify", "game": game.pk})
        table.effects.push(game_group(game.pk), dict(event))  # the same again: sent once
        table.effects.tasks.append(effects.analyse_game(game.pk))
        assert sent == []  # nothing leaves inside the transaction

    batch, task = sent
    assert batch == [
        (game_group(game.pk), event),
        (user_group(7), {"type": "user.notify", "game": game.pk}),
    ]
    assert task == effects.analyse_game(game.pk)


def test_nothing_leaves_for_a_change_that_rolled_back(
    start_game, sent, django_capture_on_commit_callbacks
):
    game = start_game(2)
    sent.clear()  # the table filling up
    on_commit = django_capture_on_commit_callbacks(execute=True)
    with on_commit, pytest.raises(RuntimeError), changing(game.pk) as table:
        table.effects.push(game_group(game.pk), {"type": "game.rematch", "game": game.pk})
        raise RuntimeError("the change fails")
    assert sent == []


def test_a_move_pushes_its_version_first_with_the_version_it_made(
    start_game, sent, django_capture_on_commit_callbacks
):
    game = start_game(2)
    sent.clear()  # the table filling up
    seat, action = next_move(game)
    mover = game.seats.get(number=seat).user
    with django_capture_on_commit_callbacks(execute=True):
        actions.play(game_id=game.pk, user=mover, action=action, seen_version=game.version)

    (batch, *_) = sent
    group, first = batch[0]
    assert group == game_group(game.pk)
    assert first["type"] == "game.changed" and first["version"] == game.version + 1
    # The version rides with it to the other processes (none to carry to on one process's layer).
    assert ("made" in first) == (not pushes._layer_is_in_memory())
