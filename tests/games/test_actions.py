from datetime import timedelta

import pytest

from games import rules
from games.history.replay import rebuild_state
from games.models import Event, Game, Seat
from games.play import actions
from games.play.errors import ActionRefused, StaleVersion
from games.state_store import load_state

from .playing import current_state, next_move

pytestmark = pytest.mark.django_db


def seat_user(game, number):
    return game.seats.get(number=number).user


def version(game):
    game.refresh_from_db()
    return game.version


# --- the lobby ---------------------------------------------------------------------------------


def test_create_game_seats_the_creator_and_checks_its_options(players):
    game = actions.create_game(
        creator=players[0], player_count=3, time_per_move=timedelta(hours=6), rated=False
    )

    assert game.status == Game.Status.WAITING
    assert list(game.seats.values_list("user__username", flat=True)) == ["ada"]
    assert game.events.get().kind == "created"
    with pytest.raises(ActionRefused, match="2 to 5 players"):
        actions.create_game(creator=players[0], player_count=6, time_per_move=timedelta(days=1))
    with pytest.raises(ActionRefused, match="1 hour to 14 days"):
        actions.create_game(creator=players[0], player_count=2, time_per_move=timedelta(days=15))
    with pytest.raises(ActionRefused, match="no player called"):
        actions.create_game(
            creator=players[0], player_count=2, time_per_move=timedelta(days=1), invitees=("zed",)
        )
    assert Game.objects.count() == 1


def test_the_game_starts_when_the_last_seat_is_taken_with_a_drawn_seat_order(players):
    game = actions.create_game(creator=players[0], player_count=3, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=players[1])
    game.refresh_from_db()
    assert game.status == Game.Status.WAITING

    actions.join_game(game_id=game.pk, user=players[2])

    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    assert game.phase == rules.DRAFTING
    assert game.current_seat == 0
    assert game.deadline is not None
    assert sorted(game.seats.values_list("number", flat=True)) == [0, 1, 2]
    started = game.events.get(kind="started")
    assert started.data["seats"] == list(
        game.seats.order_by("number").values_list("user", flat=True)
    )
    assert load_state(game, list(game.seats.order_by("number"))) == rules.new_game(3, game.seed)


def test_an_invitation_only_table_takes_the_invited_and_the_link_holders_only(players):
    game = actions.create_game(
        creator=players[0],
        player_count=4,
        time_per_move=timedelta(days=1),
        access=Game.Access.INVITATION,
        invitees=("Brian",),
    )

    with pytest.raises(ActionRefused, match="by invitation only"):
        actions.join_game(game_id=game.pk, user=players[2])
    with pytest.raises(ActionRefused, match="by invitation only"):
        actions.join_game(game_id=game.pk, user=players[2], invite_token="forged")
    actions.join_game(game_id=game.pk, user=players[1])
    actions.join_game(game_id=game.pk, user=players[2], invite_token=game.invite_token)
    assert game.seats.count() == 3


def test_leave_cancel_and_start_early(players):
    game = actions.create_game(creator=players[0], player_count=4, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=players[1])

    with pytest.raises(ActionRefused, match="already have a seat"):
        actions.join_game(game_id=game.pk, user=players[1])
    with pytest.raises(ActionRefused, match="cancel it instead"):
        actions.leave_game(game_id=game.pk, user=players[0])
    with pytest.raises(ActionRefused, match="Only the game's creator"):
        actions.start_game(game_id=game.pk, user=players[1])
    actions.leave_game(game_id=game.pk, user=players[1])
    with pytest.raises(ActionRefused, match="at least 2 players"):
        actions.start_game(game_id=game.pk, user=players[0])
    actions.join_game(game_id=game.pk, user=players[2])

    actions.start_game(game_id=game.pk, user=players[0])

    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING
    assert game.player_count == 2
    with pytest.raises(ActionRefused, match="already started"):
        actions.join_game(game_id=game.pk, user=players[3])
    other = actions.create_game(creator=players[0], player_count=2, time_per_move=timedelta(days=1))
    actions.cancel_game(game_id=other.pk, user=players[0])
    other.refresh_from_db()
    assert other.status == Game.Status.CANCELLED


# --- drafting ----------------------------------------------------------------------------------


def test_a_draft_is_pending_until_confirmed_and_undo_puts_it_back(start_game):
    game = start_game(2)
    me = seat_user(game, 0)
    column = list(current_state(game).draw_tiles())
    tile = column[2]

    actions.play(game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=version(game))
    state = current_state(game)
    assert tile in state.trays[0]
    assert state.current == 0
    actions.play(game_id=game.pk, user=me, action=rules.UndoDraft(), seen_version=version(game))
    assert list(current_state(game).draw_tiles()) == column

    actions.play(game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=version(game))
    actions.play(game_id=game.pk, user=me, action=rules.ConfirmDraft(), seen_version=version(game))

    state = current_state(game)
    assert state.current == 1
    assert state.trays[0] == (tile,)
    kinds = list(game.events.order_by("number").values_list("kind", flat=True))
    assert kinds[-5:] == ["started", "draft", "undo_draft", "draft", "confirm_draft"]


def test_a_player_out_of_turn_or_outside_the_game_is_refused(start_game, players):
    game = start_game(2)
    waiting = seat_user(game, 1)
    tile = current_state(game).draw_tiles()[0]

    with pytest.raises(ActionRefused, match="not your turn") as refused:
        actions.play(game_id=game.pk, user=waiting, action=rules.Draft(tile), seen_version=None)
    assert refused.value.code == "not_your_turn"
    with pytest.raises(ActionRefused, match="not playing in this game"):
        actions.play(game_id=game.pk, user=players[4], action=rules.Draft(tile), seen_version=None)
    with pytest.raises(ActionRefused, match="not in the draw column"):
        actions.play(
            game_id=game.pk,
            user=seat_user(game, 0),
            action=rules.Draft(current_state(game).columns[0][0]),
            seen_version=None,
        )
    game.refresh_from_db()
    assert game.events.count() == 3  # created, joined, started: nothing was recorded


def test_a_draft_made_on_a_page_older_than_another_draft_is_refused_as_stale(start_game):
    game = start_game(2)
    first, second = seat_user(game, 0), seat_user(game, 1)
    seen = game.version
    tiles = current_state(game).draw_tiles()
    actions.play(game_id=game.pk, user=first, action=rules.Draft(tiles[0]), seen_version=seen)
    actions.play(
        game_id=game.pk, user=first, action=rules.ConfirmDraft(), seen_version=version(game)
    )

    with pytest.raises(StaleVersion, match="moved on"):
        actions.play(game_id=game.pk, user=second, action=rules.Draft(tiles[1]), seen_version=seen)


def test_arranging_is_not_stale_because_of_other_boards_but_is_after_my_own_change(start_game):
    game = start_game(2)
    first, second = seat_user(game, 0), seat_user(game, 1)
    tile = current_state(game).draw_tiles()[0]
    actions.play(game_id=game.pk, user=first, action=rules.Draft(tile), seen_version=version(game))
    actions.play(
        game_id=game.pk, user=first, action=rules.ConfirmDraft(), seen_version=version(game)
    )
    other = current_state(game).draw_tiles()[0]
    actions.play(
        game_id=game.pk, user=second, action=rules.Draft(other), seen_version=version(game)
    )
    seen_by_second = version(game)
    # The first player arranges while the second player's page stays as it was.
    actions.play(
        game_id=game.pk, user=first, action=rules.Place(tile, 12), seen_version=version(game)
    )
    actions.play(game_id=game.pk, user=first, action=rules.Rotate(12), seen_version=version(game))

    actions.play(
        game_id=game.pk, user=second, action=rules.Place(other, 0), seen_version=seen_by_second
    )
    tab_version = version(game)
    actions.play(game_id=game.pk, user=second, action=rules.Rotate(0), seen_version=tab_version)

    # A second tab still showing the board before that rotation.
    with pytest.raises(StaleVersion):
        actions.play(game_id=game.pk, user=second, action=rules.Return(0), seen_version=tab_version)


def test_every_arranging_action_changes_only_the_players_own_board(start_game):
    game = start_game(2)
    me = seat_user(game, 0)
    first, second = current_state(game).draw_tiles()[:2]
    actions.play(game_id=game.pk, user=me, action=rules.Draft(first), seen_version=None)
    actions.play(game_id=game.pk, user=me, action=rules.Place(first, 6, 1), seen_version=None)
    actions.play(game_id=game.pk, user=me, action=rules.Rotate(6), seen_version=None)
    actions.play(game_id=game.pk, user=me, action=rules.Move(6, 7), seen_version=None)
    assert current_state(game).boards[0].cells[7] == rules.Placed(first, 2)
    actions.play(game_id=game.pk, user=me, action=rules.ConfirmDraft(), seen_version=None)
    actions.take_last_tile(game_id=game.pk)  # nothing due: changes nothing
    opponent = seat_user(game, 1)
    actions.play(
        game_id=game.pk,
        user=opponent,
        action=rules.Draft(current_state(game).draw_tiles()[0]),
        seen_version=None,
    )
    actions.play(game_id=game.pk, user=opponent, action=rules.ConfirmDraft(), seen_version=None)
    third = current_state(game).draw_tiles()[0]
    actions.play(game_id=game.pk, user=me, action=rules.Draft(third), seen_version=None)
    actions.play(game_id=game.pk, user=me, action=rules.Place(third, 8), seen_version=None)
    actions.play(game_id=game.pk, user=me, action=rules.Swap(7, 8), seen_version=None)
    assert current_state(game).boards[0].cells[8].tile == first
    actions.play(game_id=game.pk, user=me, action=rules.Return(8), seen_version=None)
    actions.play(game_id=game.pk, user=me, action=rules.Clear(), seen_version=None)

    state = current_state(game)
    assert state.boards[0].tile_count == 0
    assert sorted(state.trays[0]) == sorted([first, third])
    assert state.boards[1].tile_count == 0
    with pytest.raises(ActionRefused, match="only when the pool is empty"):
        actions.play(game_id=game.pk, user=me, action=rules.Finish(), seen_version=None)
    del second


# --- forced takes, a whole game, replay ----------------------------------------------------------


def test_the_last_tile_of_a_column_is_taken_by_the_task_for_the_next_player(
    start_game, django_capture_on_commit_callbacks
):
    game = start_game(2)
    for _ in range(4):  # four drafts leave one tile in the first draw column of five
        state = current_state(game)
        user = seat_user(game, state.current)
        with django_capture_on_commit_callbacks(execute=True):
            actions.play(
                game_id=game.pk,
                user=user,
                action=rules.Draft(state.draw_tiles()[0]),
                seen_version=None,
            )
            actions.play(game_id=game.pk, user=user, action=rules.ConfirmDraft(), seen_version=None)

    forced = game.events.get(kind="take_last")
    assert forced.cause == Event.Cause.FORCED_TAKE
    assert forced.actor is None
    assert forced.seat == 0
    state = current_state(game)
    assert len(state.draw_tiles()) == 5
    assert state.current == 1
    assert [len(tray) for tray in state.trays] == [3, 2]


@pytest.mark.slow
@pytest.mark.parametrize("count", [2, 5])
def test_a_whole_game_plays_to_its_results_and_replays_from_the_log(
    count, start_game, django_capture_on_commit_callbacks
):
    game = start_game(count)
    seen = []
    while (move := next_move(game)) is not None:
        seat, action = move
        with django_capture_on_commit_callbacks(execute=True):
            actions.play(
                game_id=game.pk,
                user=seat_user(game, seat),
                action=action,
                seen_version=version(game),
            )
        seen.append(action.type)

    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    assert game.ended_at is not None
    final = current_state(game)
    assert final.is_terminal()
    assert rebuild_state(game) == final
    for result in final.results():
        seat = game.seats.get(number=result.seat)
        assert (seat.score, seat.place, seat.chip_tiles) == (
            result.score,
            result.place,
            result.chip_tiles,
        )
    assert {len(final.trays[s]) + final.boards[s].tile_count for s in range(count)} == {
        rules.drafts_per_player(count)
    }
    assert "place" in seen
    assert game.events.filter(kind="take_last").exists()
    with pytest.raises(ActionRefused, match="over"):
        actions.play(
            game_id=game.pk, user=seat_user(game, 0), action=rules.Clear(), seen_version=None
        )


def test_finishing_is_refused_while_a_tile_is_illegal(
    start_game, django_capture_on_commit_callbacks
):
    game = start_game(2)
    while current_state(game).phase == rules.DRAFTING:
        state = current_state(game)
        user = seat_user(game, state.current)
        with django_capture_on_commit_callbacks(execute=True):
            actions.play(
                game_id=game.pk,
                user=user,
                action=rules.Draft(state.draw_tiles()[0]),
                seen_version=None,
            )
            actions.play(game_id=game.pk, user=user, action=rules.ConfirmDraft(), seen_version=None)
    state = current_state(game)
    me = seat_user(game, 0)
    tile = state.trays[0][0]
    wrong_space = next(
        space
        for space, colour in enumerate(state.boards[0].colours)
        if colour != rules.TILES[tile].colour
    )
    actions.play(game_id=game.pk, user=me, action=rules.Place(tile, wrong_space), seen_version=None)

    with pytest.raises(ActionRefused) as refused:
        actions.play(game_id=game.pk, user=me, action=rules.Finish(), seen_version=None)

    assert refused.value.code == "illegal_tiles_on_board"
    actions.play(game_id=game.pk, user=me, action=rules.Return(wrong_space), seen_version=None)
    actions.play(game_id=game.pk, user=me, action=rules.Finish(), seen_version=None)
    assert current_state(game).finished[0]
    with pytest.raises(ActionRefused) as locked:
        actions.play(
            game_id=game.pk, user=me, action=rules.Place(tile, wrong_space), seen_version=None
        )
    assert locked.value.code == "board_finished"
    assert Seat.objects.get(game=game, number=0).finished
