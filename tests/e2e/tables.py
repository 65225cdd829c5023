"""Tables set up for the browser tests: a game at a given moment, reached through the platform's
own state changes (each committed with its effects, as the server makes them)."""

from datetime import timedelta

from games import rules
from games.play import actions
from games.rules.greedy import best_placement
from tests.games.playing import current_state, next_move

NAMES = ("ada", "brian", "cora", "dan", "eve")


def mid_game(make_player, committed, *, players=2, tray=8, placed=4):
    """A started game of `players` at the first turn of its first player (seat order) that
    finds them holding `placed` tiles on their board and `tray` in their tray, the others
    having arranged what they drafted as a greedy player would (`placed` is cut so that they
    still have a draft to make). Return the game, its users by seat and that player's seat
    number."""
    placed = min(placed, rules.drafts_per_player(players) - tray - 1)
    users = [make_player(name) for name in NAMES[:players]]
    game = actions.create_game(
        creator=users[0], player_count=players, time_per_move=timedelta(days=1)
    )
    for user in users[1:]:
        committed(actions.join_game, game_id=game.pk, user=user)
    game.refresh_from_db()
    by_seat = [seat.user for seat in game.seats.order_by("number")]
    me = current_state(game).current
    while True:
        state = current_state(game)
        seat = state.current
        if state.forced_action() is not None:
            committed(actions.take_last_tile, game_id=game.pk)
        else:
            owned = len(state.trays[seat]) + len(state.boards[seat].tiles())
            if seat == me and owned >= tray + placed:
                break
            tile = state.draw_tiles()[0]
            for action in (rules.Draft(tile), rules.ConfirmDraft()):
                committed(
                    actions.play, game_id=game.pk, user=by_seat[seat], action=action,
                    seen_version=None,
                )  # fmt: skip
        # The drafter arranges what they got; the player keeps `tray` tiles in theirs (the
        # server may have taken a column's last tile for them meanwhile).
        if seat != me:
            _arrange(game, by_seat, seat, keep=0, committed=committed)
        _arrange(game, by_seat, me, keep=tray, committed=committed)
    game.refresh_from_db()
    return game, by_seat, me


def _arrange(game, by_seat, seat, *, keep, committed):
    """Place the seat's tray tiles where they fit best, greedily, until `keep` are left (where
    none fits, on the first empty space, as a player trying things out may)."""
    while True:
        state = current_state(game)
        tray = state.trays[seat]
        if len(tray) <= keep:
            return
        found = best_placement(state.boards[seat], list(tray))
        if found is not None:
            action = found[1]
        elif keep:
            space = state.boards[seat].cells.index(None)
            action = rules.Place(tray[-1], space, 0)
        else:
            return
        committed(
            actions.play, game_id=game.pk, user=by_seat[seat], action=action, seen_version=None
        )


def finishing(make_player, committed, *, players=2, waiting=2):
    """A started game played sensibly (greedy players) into its finishing phase, where every
    player but the last `waiting` (by seat) has pressed Finish. Return the game, its users by
    seat and the seats still to finish."""
    users = [make_player(name) for name in NAMES[:players]]
    game = actions.create_game(
        creator=users[0], player_count=players, time_per_move=timedelta(days=1)
    )
    for user in users[1:]:
        committed(actions.join_game, game_id=game.pk, user=user)
    game.refresh_from_db()
    by_seat = [seat.user for seat in game.seats.order_by("number")]
    keep = set(range(players - waiting, players))
    while True:
        state = current_state(game)
        if state.forced_action() is not None:
            committed(actions.take_last_tile, game_id=game.pk)
            continue
        seat, action = next_move(game)
        if state.phase == rules.FINISHING and isinstance(action, rules.Finish):
            unfinished = [s for s in range(players) if not state.finished[s] and s not in keep]
            if not unfinished:
                break
            seat = unfinished[0]
        committed(
            actions.play, game_id=game.pk, user=by_seat[seat], action=action, seen_version=None
        )
    game.refresh_from_db()
    return game, by_seat, sorted(keep)
