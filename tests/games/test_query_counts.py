"""The queries an action or a page costs do not grow with the number of players."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import rules
from games.play import actions
from infra.models import OutboxEmail

from .playing import current_state

pytestmark = pytest.mark.django_db


def queries_of(call):
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured.captured_queries)


def costs(game):
    """Queries of: a draft, a placement, the game page, for the first player."""
    me = game.seats.get(number=0).user
    tile = current_state(game).draw_tiles()[0]
    client = Client()
    client.force_login(me)
    client.get(reverse("games:game", args=[game.pk]))  # warm the session
    return (
        queries_of(
            lambda: actions.play(
                game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None
            )
        ),
        queries_of(
            lambda: actions.play(
                game_id=game.pk, user=me, action=rules.Place(tile, 12), seen_version=None
            )
        ),
        queries_of(lambda: client.get(reverse("games:game", args=[game.pk]))),
    )


def test_queries_per_action_and_per_page_are_bounded_and_do_not_grow_with_players(start_game):
    two = costs(start_game(2))
    five = costs(start_game(5))

    assert two == five, (two, five)
    draft, place, page = five
    assert draft <= 8
    assert place <= 8
    assert page <= 8


def sql_of(call) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        call()
    return [query["sql"] for query in captured.captured_queries]


def statements(sql: list[str], verb: str) -> list[str]:
    return [statement for statement in sql if statement.startswith(verb)]


def test_a_placement_writes_only_its_board_and_the_version(start_game):
    game = start_game(3)
    me = game.seats.get(number=0).user
    tile = current_state(game).draw_tiles()[0]
    actions.play(game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None)

    sql = sql_of(
        lambda: actions.play(
            game_id=game.pk, user=me, action=rules.Place(tile, 12), seen_version=None
        )
    )

    game_update, seat_update = statements(sql, "UPDATE")
    assert '"version"' in game_update and '"pool"' not in game_update
    assert '"board"' in seat_update and '"tray"' in seat_update
    assert '"colours"' not in seat_update and "CASE" not in seat_update


def test_passing_the_turn_reads_nothing_after_the_commit_in_a_game_without_bots(
    start_game, committed, lost_tasks
):
    """The bots to wake, the notice's game and recipients are known to the move itself; the
    email of the player whose turn it is now is written with the move, and its task queued."""
    queued = lost_tasks("infra.send_email")
    game = start_game(2)
    me = game.seats.get(number=0).user
    tile = current_state(game).draw_tiles()[0]
    committed(actions.play, game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None)
    queued.clear()  # the start's emails

    sql = sql_of(
        lambda: committed(
            actions.play, game_id=game.pk, user=me, action=rules.ConfirmDraft(), seen_version=None
        )
    )

    (read,) = statements(sql, "SELECT")  # the game and its seats, locked, in one statement
    assert '"games_game"' in read and '"games_seat"' in read
    assert len(statements(sql, "INSERT")) == 2  # the event, and the next player's email
    # The game (no board changed), and the next player's seat: the version of the "your move"
    # just written, so that no other is written before they have looked (one unread a game).
    game_update, seat_update = statements(sql, "UPDATE")
    assert "games_game" in game_update
    assert 'UPDATE "games_seat" SET "notified_version"' in seat_update
    game.refresh_from_db()
    assert game.current_seat == 1
    [email] = OutboxEmail.objects.filter(game_id=game.pk, kind="your_turn")
    assert (email.user_id, email.version) == (game.seats.get(number=1).user_id, game.version)
    assert game.seats.get(number=1).notified_version == game.version
    assert [(task.name, task.args) for task in queued] == [("infra.send_email", (email.pk,))]


def page_queries(game, user, *, cold: bool) -> int:
    from games import move_log

    client = Client()
    client.force_login(user)
    client.get(reverse("games:game", args=[game.pk]))  # the session, and the log read once
    if cold:  # another process, which never drew this game
        move_log._logs.clear()
    return queries_of(lambda: client.get(reverse("games:game", args=[game.pk])))


def play_events(game, count):
    """Play sensibly (a few turns), then turn a placed tile round and round, until the game
    has at least `count` events: drafts, forced takes and arrangements, as players make them."""
    from .playing import next_move

    game.refresh_from_db()
    while game.version < min(count, 40):
        move = next_move(game)
        assert move is not None, f"the game ended after {game.version} events"
        seat, action = move
        user = game.seats.get(number=seat).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
        if current_state(game).forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
        game.refresh_from_db()
    board = current_state(game).boards[0]
    space = next(index for index, cell in enumerate(board.cells) if cell is not None)
    user = game.seats.get(number=0).user
    while game.version < count:
        actions.play(game_id=game.pk, user=user, action=rules.Rotate(space), seen_version=None)
        game.refresh_from_db()


def test_the_game_page_with_its_move_log_costs_the_same_from_10_to_300_events(start_game):
    short, long = start_game(2), start_game(5)
    play_events(short, 10)
    play_events(long, 300)
    short_user, long_user = short.seats.get(number=0).user, long.seats.get(number=0).user

    cold = page_queries(short, short_user, cold=True), page_queries(long, long_user, cold=True)
    warm = page_queries(short, short_user, cold=False), page_queries(long, long_user, cold=False)

    assert cold[0] == cold[1] and warm[0] == warm[1], (cold, warm)
    assert warm[0] < cold[0]  # a process that drew the game reads none of its events again


def test_passing_the_turn_to_a_player_with_an_unread_your_move_writes_no_email_and_no_seat(
    start_game, committed
):
    """The next player has not looked at the game since their last "your move": the move
    writes no email, and so does not touch their seat either."""
    game = start_game(2)
    waiting = game.seats.get(number=1)
    waiting.notified_version = game.version  # a "your move" they have not seen the game since
    waiting.save(update_fields=["notified_version"])
    me = game.seats.get(number=0).user
    tile = current_state(game).draw_tiles()[0]
    committed(actions.play, game_id=game.pk, user=me, action=rules.Draft(tile), seen_version=None)
    before = OutboxEmail.objects.count()

    sql = sql_of(
        lambda: committed(
            actions.play, game_id=game.pk, user=me, action=rules.ConfirmDraft(), seen_version=None
        )
    )

    assert OutboxEmail.objects.count() == before
    assert len(statements(sql, "INSERT")) == 1  # the event
    assert len(statements(sql, "UPDATE")) == 1  # the game
